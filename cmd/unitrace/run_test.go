package main

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/unitrace/unitrace/internal/vmconfig"
	"github.com/unitrace/unitrace/trace/ctl"
)

// parseRun parses args as "unitrace run" does, printing flag errors on stderr.
func parseRun(name string, args []string, stderr io.Writer) (runOptions, error) {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	var o runOptions
	o.register(fs)
	o.registerFiles(fs)
	err := o.parse(fs, args)
	return o, err
}

func TestParseRun(t *testing.T) {
	tests := []struct {
		args      []string
		app       string
		env, argv []string
		check     func(runOptions) bool
	}{
		{[]string{"examples/hello"}, "examples/hello", nil, nil, nil},
		{[]string{"-machine", "q35", "app", "-m", "512M", "GODEBUG=x=1", "unitrace.debug=kfault", "--", "-v", "--", "a"},
			"app", []string{"GODEBUG=x=1", "unitrace.debug=kfault"}, []string{"-v", "--", "a"},
			func(o runOptions) bool { return o.machine == "q35" && o.memory == "512M" }},
		{[]string{"app", "-timeout", "5s", "-accel=kvm", "-smp", "2", "-cpu", "qemu64", "-image", "x.elf", "-v", "-n"},
			"app", nil, nil,
			func(o runOptions) bool {
				return o.timeout == 5*time.Second && o.accel == "kvm" && o.smp == 2 && o.cpu == "qemu64" && o.output == "x.elf" && o.verbose && o.dryRun
			}},
		{[]string{"app", "--"}, "app", nil, []string{}, nil},
		{[]string{"-net", "none", "app"}, "app", nil, nil, func(o runOptions) bool { return o.netMode == netNone }},
		{[]string{"app", "-listen", "80=127.0.0.1:8080", "-listen", "81=[::1]:8081"}, "app", nil, nil,
			func(o runOptions) bool {
				return o.netMode == netHost && len(o.listen) == 2 && o.listen[81].Port() == 8081
			}},
		{[]string{"-files", "a:/data", "app", "-files", "b:c:/opt/x/", "-files-mtime", "123"}, "app", nil, nil,
			func(o runOptions) bool {
				return len(o.files) == 2 && o.files[0].Host == "a" && o.files[1].Host == "b:c" && o.files[1].Guest == "/opt/x" &&
					o.packOpts.MTime != nil && *o.packOpts.MTime == 123
			}},
	}
	for _, tt := range tests {
		o, err := parseRun("run", tt.args, &bytes.Buffer{})
		if err != nil {
			t.Errorf("%q: %v", tt.args, err)
			continue
		}
		if o.appDir != tt.app || !slices.Equal(o.env, tt.env) || !slices.Equal(o.args, tt.argv) || (tt.check != nil && !tt.check(o)) {
			t.Errorf("%q: got %+v", tt.args, o)
		}
	}
}

func TestParseRunErrors(t *testing.T) {
	for _, args := range [][]string{
		{},
		{"--", "a"},
		{"app", "notkv"},
		{"app", "=v"},
		{"-timeout", "-1s", "app"},
		{"-nosuchflag", "app"},
		{"app", "-smp", "many"},
		{"-files", "nocolon", "app"},
		{"-files", "d:relative", "app"},
		{"-files", "d:/", "app"},
		{"-files-mtime", "yesterday", "app"},
		{"-net", "user", "app"},
		{"-net", "none", "-listen", "80=127.0.0.1:80", "app"},
		{"-listen", "80", "app"},
	} {
		if _, err := parseRun("run", args, &bytes.Buffer{}); err == nil {
			t.Errorf("%q: no error", args)
		}
	}
}

func TestCLIStatuses(t *testing.T) {
	tests := []struct {
		args   []string
		status int
		stderr string
	}{
		{nil, 2, "usage: unitrace"},
		{[]string{"help"}, 0, ""},
		{[]string{"frobnicate"}, 2, `unknown subcommand "frobnicate"`},
		{[]string{"run"}, 2, "missing APP_DIR"},
		{[]string{"run", "-h"}, 0, "Exit status"},
		{[]string{"run", "-bogus", "app"}, 2, "flag provided but not defined"},
		{[]string{"run", "-arch", "mips", "app"}, 2, "unsupported architecture"},
		{[]string{"run", "-machine", "virt", "app"}, 2, "unsupported machine"},
		{[]string{"run", "-accel", "hvf", "app"}, 2, "unsupported accelerator"},
		{[]string{"run", "app", "--", "two words"}, 2, "white space"},
		{[]string{"run", "../../internal/image/testdata/nokernel"}, 126, "github.com/unitrace/unitrace/kernel"},
		{[]string{"run", "-files", "d:/data/../etc", "app"}, 2, "has a .. component"},
		{[]string{"run", "-files", "testdata/no-such-dir:/data", "app"}, 126, "no such file or directory"},
	}
	for _, tt := range tests {
		var stdout, stderr bytes.Buffer
		got := cli(tt.args, stdio{strings.NewReader(""), &stdout, &stderr})
		if got != tt.status || !strings.Contains(stderr.String()+stdout.String(), tt.stderr) {
			t.Errorf("%q: status %d, want %d; output %q, want %q", tt.args, got, tt.status, stderr.String()+stdout.String(), tt.stderr)
		}
	}
}

// fakeQEMU writes a script that stands in for QEMU: it prints $FAKE_CONSOLE, and
// $FAKE_STDERR on standard error, then sleeps $FAKE_SLEEP seconds and exits with
// $FAKE_STATUS, or kills itself with signal $FAKE_KILL. FAKE_SHOW=1 prints its process group
// and what its standard input is first.
func fakeQEMU(t *testing.T) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "qemu")
	script := `#!/bin/sh
if [ "$FAKE_SHOW" = 1 ]; then echo "pgrp=$(cut -d' ' -f5 /proc/$$/stat) stdin=$(readlink /proc/$$/fd/0)"; fi
printf '%b' "$FAKE_CONSOLE"
printf '%b' "$FAKE_STDERR" >&2
sleep "${FAKE_SLEEP:-0}"
if [ -n "$FAKE_KILL" ]; then kill -"$FAKE_KILL" $$; fi
exit "$FAKE_STATUS"
`
	if err := os.WriteFile(p, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	return p
}

type failingWriter struct{}

func (failingWriter) Write([]byte) (int, error) { return 0, errors.New("closed") }

func TestBoot(t *testing.T) {
	qemuPath := fakeQEMU(t)
	tests := []struct {
		name, console, status, sleep string
		timeout                      time.Duration
		kind                         vmconfig.Kind
		want                         int
	}{
		{"exit 3", `hello\r\nunitrace: exit status 3\r\n`, "7", "0", 0, vmconfig.Exited, 3},
		{"exit 0", `unitrace: exit status 0\n`, "1", "0", time.Minute, vmconfig.Exited, 0},
		{"kernel fault", `unitrace: kernel fault: #PF\nunitrace: kernel fault, halting\n`, "255", "0", 0, vmconfig.KernelFault, 70},
		{"hang", `booting\n`, "0", "30", 300 * time.Millisecond, vmconfig.Hung, 124},
		{"triple fault", `booting\n`, "0", "0", 0, vmconfig.QEMUFailed, 125},
		{"disagreeing status", `unitrace: exit status 3\n`, "9", "0", 0, vmconfig.QEMUFailed, 125},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Setenv("FAKE_CONSOLE", tt.console)
			t.Setenv("FAKE_STATUS", tt.status)
			t.Setenv("FAKE_SLEEP", tt.sleep)
			var stdout, stderr bytes.Buffer
			start := time.Now()
			out := boot(vmconfig.Config{QEMU: qemuPath, Kernel: "k.elf"}, tt.timeout, stdio{strings.NewReader(""), &stdout, &stderr}, "unitrace run", nil, nil)
			if out.Kind != tt.kind || out.Status != tt.want {
				t.Errorf("got %+v, want %v %d", out, tt.kind, tt.want)
			}
			if want := strings.NewReplacer(`\r`, "\r", `\n`, "\n").Replace(tt.console); stdout.String() != want {
				t.Errorf("console %q, want %q", stdout.String(), want)
			}
			if time.Since(start) > 10*time.Second {
				t.Errorf("took %v", time.Since(start))
			}
		})
	}
	t.Run("killed from outside", func(t *testing.T) {
		t.Setenv("FAKE_CONSOLE", `booting\n`)
		t.Setenv("FAKE_KILL", "KILL")
		out := boot(vmconfig.Config{QEMU: qemuPath, Kernel: "k.elf"}, time.Minute, stdio{strings.NewReader(""), &bytes.Buffer{}, &bytes.Buffer{}}, "unitrace run", nil, nil)
		if out.Kind != vmconfig.QEMUKilled || out.Status != 137 || out.Reason != "QEMU was killed by signal 9 (killed)" {
			t.Errorf("got %+v", out)
		}
	})
	t.Run("stopped on SIGTERM from outside", func(t *testing.T) {
		t.Setenv("FAKE_CONSOLE", `booting\n`)
		t.Setenv("FAKE_STDERR", `qemu-system-x86_64: terminating on signal 15 from pid 1 (init)\n`)
		t.Setenv("FAKE_STATUS", "0")
		var stderr bytes.Buffer
		out := boot(vmconfig.Config{QEMU: qemuPath, Kernel: "k.elf"}, 0, stdio{strings.NewReader(""), &bytes.Buffer{}, &stderr}, "unitrace run", nil, nil)
		if out.Kind != vmconfig.QEMUKilled || out.Status != 143 || !strings.Contains(out.Reason, "stopped on signal 15") {
			t.Errorf("got %+v", out)
		}
		if !strings.Contains(stderr.String(), "terminating on signal 15") {
			t.Errorf("QEMU's standard error did not come through: %q", stderr.String())
		}
	})
	t.Run("QEMU's own process group, no terminal", func(t *testing.T) {
		if _, err := os.Stat("/proc/self/stat"); err != nil {
			t.Skip("no /proc here")
		}
		t.Setenv("FAKE_SHOW", "1")
		t.Setenv("FAKE_CONSOLE", `unitrace: exit status 0\n`)
		t.Setenv("FAKE_STATUS", "1")
		var stdout bytes.Buffer
		out := boot(vmconfig.Config{QEMU: qemuPath, Kernel: "k.elf"}, 0, stdio{os.Stdin, &stdout, &bytes.Buffer{}}, "unitrace run", nil, nil)
		var pgrp int
		var stdin string
		fmt.Sscanf(stdout.String(), "pgrp=%d stdin=%s", &pgrp, &stdin)
		if out.Kind != vmconfig.Exited || pgrp == 0 || pgrp == syscall.Getpgrp() || stdin != "/dev/null" {
			t.Errorf("got %+v; QEMU's process group %d (the launcher's %d), standard input %q", out, pgrp, syscall.Getpgrp(), stdin)
		}
	})
	t.Run("terminal closed", func(t *testing.T) {
		t.Setenv("FAKE_CONSOLE", `unitrace: exit status 5\n`)
		t.Setenv("FAKE_STATUS", "11")
		out := boot(vmconfig.Config{QEMU: qemuPath, Kernel: "k.elf"}, 0, stdio{strings.NewReader(""), failingWriter{}, &bytes.Buffer{}}, "unitrace run", nil, nil)
		if out.Kind != vmconfig.Exited || out.Status != 5 {
			t.Errorf("got %+v", out)
		}
	})
	t.Run("QEMU missing", func(t *testing.T) {
		out := boot(vmconfig.Config{QEMU: filepath.Join(t.TempDir(), "qemu-system-none"), Kernel: "k.elf"}, 0,
			stdio{strings.NewReader(""), &bytes.Buffer{}, &bytes.Buffer{}}, "unitrace run", nil, nil)
		if out.Kind != vmconfig.QEMUFailed || out.Status != 125 {
			t.Errorf("got %+v", out)
		}
	})
}

// TestBootForwardsSignals: the first SIGINT to the launcher goes to the program as the signal
// command on the guest's control port, with one line on standard error; the second stops QEMU,
// which reads as an interruption (status 125), not as a signal from outside.
func TestBootForwardsSignals(t *testing.T) {
	qemu := filepath.Join(t.TempDir(), "qemu")
	if err := os.WriteFile(qemu, []byte("#!/bin/sh\necho booting\nexec sleep 30\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	mux := newCtlMux(nil, "")
	host, guest := socketPair(t)
	got := make(chan ctl.Command, 1)
	go fakeAgent(t, guest, 1, got)
	go mux.attach(host)

	console := &signalOnWrite{sig: syscall.SIGINT}
	var stderr lockedBuffer
	done := make(chan vmconfig.Outcome)
	go func() {
		done <- boot(vmconfig.Config{QEMU: qemu, Kernel: "k.elf"}, time.Minute, stdio{nil, console, &stderr}, "unitrace run", mux, nil)
	}()
	select {
	case c := <-got:
		if c.Op != ctl.OpSignal || c.Sig != uint8(syscall.SIGINT) {
			t.Errorf("the guest got %+v, want the signal command with SIGINT", c)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("no signal command reached the guest")
	}
	time.Sleep(100 * time.Millisecond) // the launcher has printed its line by now
	syscall.Kill(os.Getpid(), syscall.SIGINT)
	out := <-done
	if out.Kind != vmconfig.QEMUFailed || out.Status != 125 || !strings.Contains(out.Reason, "interrupted") {
		t.Errorf("got %+v", out)
	}
	if want := "unitrace run: SIGINT sent to the program; ^C again stops the guest\n"; stderr.String() != want {
		t.Errorf("stderr %q, want %q", stderr.String(), want)
	}
}

// signalOnWrite sends sig to this process on the first console output, when the launcher
// catches it: boot has called signal.Notify before it starts QEMU.
type signalOnWrite struct {
	sig  syscall.Signal
	once sync.Once
}

func (s *signalOnWrite) Write(p []byte) (int, error) {
	s.once.Do(func() { syscall.Kill(os.Getpid(), s.sig) })
	return len(p), nil
}

func TestQuotedCmdline(t *testing.T) {
	line, err := quotedCmdline(vmconfig.Config{Kernel: "/tmp/my image.elf", Env: []string{"A=$x"}, Args: []string{"it's", "a;b"}})
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"-kernel '/tmp/my image.elf'", `-append 'A=$x -- it'\''s a;b'`, "-M microvm,isa-serial=on"} {
		if !strings.Contains(line, want) {
			t.Errorf("%s\nlacks %s", line, want)
		}
	}
}
