package vm_test

import (
	"slices"
	"testing"
	"time"

	"github.com/hugelgupf/vmtest/qemu"
	"github.com/unitrace/unitrace/internal/vmconfig"
)

// The fake guest (testdata/fakeguest) echoes its command line to COM1 with
// '|' turned into line breaks and then, depending on its first word x=<op>,
// exits through isa-debug-exit, triple-faults or hangs. It needs no kernel,
// so these tests check the harness itself: QEMU options on every machine,
// the PVH note, -append delivery, console capture and exit decoding. They are
// amd64's only: the fake guest is a PVH program that exits through
// isa-debug-exit.

func TestFakeGuest(t *testing.T) {
	requireQEMU(t, qemu.ArchAMD64)
	kernel := buildImage(t, amd64, fakeApp)
	tests := []struct {
		name    string
		env     []string
		args    []string
		timeout time.Duration
		console []string
		kind    vmconfig.Kind
		status  int
	}{
		{"exit 3", []string{"x=e3"}, []string{"|unitrace:", "exit", "status", "3|"}, 0,
			[]string{"x=e3 -- ", "unitrace: exit status 3", ""}, vmconfig.Exited, 3},
		{"exit 0", []string{"x=e0", "GODEBUG=a=1"}, []string{"-v|unitrace:", "exit", "status", "0"}, 0,
			[]string{"x=e0 GODEBUG=a=1 -- -v", "unitrace: exit status 0"}, vmconfig.Exited, 0},
		{"kernel fault", []string{"x=f"}, []string{"|unitrace:", "kernel", "fault:", "test|unitrace:", "kernel", "fault,", "halting"}, 0,
			[]string{"x=f -- ", "unitrace: kernel fault: test", "unitrace: kernel fault, halting"}, vmconfig.KernelFault, vmconfig.StatusKernelFault},
		{"silent exit", []string{"x=e5"}, nil, 0, []string{"x=e5 --"}, vmconfig.QEMUFailed, vmconfig.StatusQEMUFailed},
		{"triple fault", []string{"x=t"}, nil, 0, []string{"x=t --"}, vmconfig.QEMUFailed, vmconfig.StatusQEMUFailed},
		{"hang", []string{"x=h"}, nil, 2 * time.Second, []string{"x=h --"}, vmconfig.Hung, vmconfig.StatusTimeout},
	}
	for _, machine := range vmconfig.Machines(qemu.ArchAMD64) {
		t.Run(machine, func(t *testing.T) {
			t.Parallel()
			for _, tt := range tests {
				t.Run(tt.name, func(t *testing.T) {
					cfg := vmconfig.Config{Machine: machine, Kernel: kernel, Env: tt.env, Args: tt.args, Timeout: tt.timeout}
					if tt.timeout == 0 {
						cfg.Timeout = time.Minute
					}
					console, out := bootVM(t, cfg)
					if !slices.Equal(console, tt.console) {
						t.Errorf("console %q, want %q", console, tt.console)
					}
					if out.Kind != tt.kind || out.Status != tt.status {
						t.Errorf("outcome %+v, want %v %d", out, tt.kind, tt.status)
					}
				})
			}
		})
	}
}

// TestLauncherFakeGuest runs `unitrace run` end to end on the fake guest, which echoes its
// command line: on microvm the launcher adds unitrace.ctl=1 (the control port for ^C), on q35
// not, and on both unitrace.stdin=null (QEMU gets no input). The runs on microvm are -net=none: with sockets the launcher would add the host's
// nameservers too (unitrace.dns), which vary from host to host.
func TestLauncherFakeGuest(t *testing.T) {
	requireQEMU(t, qemu.ArchAMD64)
	out := scratch + "/launcher-fake.elf"
	tests := []struct {
		name    string
		args    []string
		console []string
		status  int
		stderr  string
	}{
		{"exit 3", []string{"-net=none", "x=e3", "--", "|unitrace:", "exit", "status", "3|"}, []string{"x=e3 unitrace.ctl=1 unitrace.stdin=null -- ", "unitrace: exit status 3", ""}, 3, ""},
		{"flags after APP_DIR", []string{"-machine", "q35", "x=e4", "--", "|unitrace:", "exit", "status", "4"}, []string{"x=e4 unitrace.stdin=null -- ", "unitrace: exit status 4"}, 4, ""},
		{"kernel fault", []string{"-net=none", "x=f", "--", "|unitrace:", "kernel", "fault,", "halting"}, []string{"x=f unitrace.ctl=1 unitrace.stdin=null -- ", "unitrace: kernel fault, halting"}, 70, "kernel faulted"},
		{"hang", []string{"-net=none", "-timeout", "2s", "x=h"}, []string{"x=h unitrace.ctl=1 unitrace.stdin=null --"}, 124, "did not exit within -timeout 2s"},
		{"triple fault", []string{"-net=none", "x=t"}, []string{"x=t unitrace.ctl=1 unitrace.stdin=null --"}, 125, "triple-faulted"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			stdout, stderr, status := runLauncher(t, amd64, append([]string{"-image", out, fakeApp}, tt.args...)...)
			if got := consoleLines(stdout); !slices.Equal(got, tt.console) {
				t.Errorf("console %q, want %q", got, tt.console)
			}
			if status != tt.status {
				t.Errorf("status %d, want %d", status, tt.status)
			}
			if tt.stderr != "" && !contains(stderr, "unitrace run: ", tt.stderr) {
				t.Errorf("stderr %q lacks %q", stderr, tt.stderr)
			}
		})
	}
}
