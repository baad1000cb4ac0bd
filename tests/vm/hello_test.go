package vm_test

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/unitrace/unitrace/internal/vmconfig"
)

// helloExitStatus is what examples/hello exits with when every check passes.
const helloExitStatus = 3

// helloGolden is hello's output for the canonical command line
// HELLO_NAME=unitrace -- alpha beta (its host test uses the same file).
func helloGolden(t *testing.T) []string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(repoRoot, helloApp, "testdata", "golden.txt"))
	if err != nil {
		t.Fatal(err)
	}
	return strings.Split(strings.TrimSuffix(string(data), "\n"), "\n")
}

// helloMachines are the machines TestHello boots hello on, per architecture.
var helloMachines = map[string][]string{"amd64": {"microvm", "q35"}, "arm64": {"virt", "virt-gicv3"}}

// TestHello boots examples/hello on each machine under TCG and compares its
// console line by line with the golden output.
func TestHello(t *testing.T) {
	want := helloGolden(t)
	forEachArch(t, func(t *testing.T, a guestArch) {
		kernel := buildImage(t, a, helloApp)
		for _, machine := range helloMachines[a.name] {
			t.Run(machine, func(t *testing.T) {
				t.Parallel()
				cfg := a.config(kernel)
				cfg.Machine, cfg.Env, cfg.Args = machine, []string{"HELLO_NAME=unitrace"}, []string{"alpha", "beta"}
				console, out := bootVM(t, cfg)
				compareLines(t, programLines(console), want)
				if last := lastLine(console); last != vmconfig.ExitLinePrefix+"3" {
					t.Errorf("last console line %q, want the exit line", last)
				}
				if out.Kind != vmconfig.Exited || out.Status != helloExitStatus {
					t.Errorf("outcome %+v, want exit status %d", out, helloExitStatus)
				}
			})
		}
	})
}

// TestHelloOldCPU boots examples/hello on an amd64 CPU without FSGSBASE and without LAHF/SAHF in
// 64-bit mode: the trap stubs then switch FS base through the MSR and return from every system
// call with IRETQ, the paths that -cpu max never takes.
func TestHelloOldCPU(t *testing.T) {
	want := helloGolden(t)
	forEachArch(t, func(t *testing.T, a guestArch) {
		if a.name != "amd64" {
			t.Skip("amd64 CPU features")
		}
		cfg := a.config(buildImage(t, a, helloApp))
		cfg.CPU, cfg.Env, cfg.Args = "qemu64,-lahf-lm,-fsgsbase", []string{"HELLO_NAME=unitrace"}, []string{"alpha", "beta"}
		console, out := bootVM(t, cfg)
		compareLines(t, programLines(console), want)
		if out.Kind != vmconfig.Exited || out.Status != helloExitStatus {
			t.Errorf("outcome %+v, want exit status %d", out, helloExitStatus)
		}
	})
}

// TestHelloCommandLine checks through the launcher that KEY=VALUE words and
// arguments reach os.Getenv and os.Args, and that the launcher exits with the
// guest's status.
func TestHelloCommandLine(t *testing.T) {
	forEachArch(t, func(t *testing.T, a guestArch) {
		stdout, _, status := runLauncher(t, a, "-image", a.path("hello-cmdline.elf"), helloApp,
			"HELLO_NAME=from-the-command-line", "GODEBUG=asyncpreemptoff=0", "--", "first", "--second", "k=v")
		lines := consoleLines(stdout)
		for _, want := range []string{
			`args: ["first" "--second" "k=v"]`,
			`env HELLO_NAME: "from-the-command-line"`,
			"exit: 3",
		} {
			if !slices.Contains(lines, want) {
				t.Errorf("console lacks %q", want)
			}
		}
		if status != helloExitStatus {
			t.Errorf("launcher status %d, want %d\nconsole:\n%s", status, helloExitStatus, stdout)
		}
	})
}

// faultReport is, per architecture, what the kernel's fault report for unitrace.debug=kfault
// (a load from address 8 in the system-call handler, in kernel mode) must show, one pattern per
// line, in this order (other lines may come between): why, the trap's own words (amd64: vector,
// error code, cr2; arm64: exception kind, ESR with its class, FAR), the registers, and a
// backtrace from the faulting pc through the frame-pointer chain.
var faultReport = map[string][]string{
	"amd64": {
		`^unitrace: kernel fault: fault inside the kernel$`,
		`^unitrace: vector 14 \(page fault\) error 0x[0-9a-f]+ cr2 0x8$`,
		`^unitrace: rip=[0-9a-f]{16} rsp=[0-9a-f]{16} rbp=[0-9a-f]{16} rflags=[0-9a-f]{16} $`,
		`^unitrace: fs.base=[0-9a-f]{16} $`,
		`^unitrace: backtrace \(exception pc, then the frame-pointer chain\):$`,
		`^unitrace:   0x[0-9a-f]+ github.com/unitrace/unitrace/kernel/syscalls.crashForTest\+0x[0-9a-f]+ \S+/kernel/syscalls/syscall.go:\d+$`,
		`^unitrace:   0x[0-9a-f]+ github.com/unitrace/unitrace/kernel/syscalls.Unlocked\+0x[0-9a-f]+ \S+/kernel/syscalls/syscall.go:\d+$`,
		`^unitrace:   0x[0-9a-f]+ github.com/unitrace/unitrace/arch/amd64.trapCommon\+`,
	},
	"arm64": {
		// Class 0x25: a data abort taken without a change in exception level.
		`^unitrace: kernel fault: exception in the kernel$`,
		`^unitrace: exception sync in the kernel: esr 0x[0-9a-f]+ \(class 0x25\) far 0x8$`,
		`^unitrace:  x0 0x[0-9a-f]+ x1 0x[0-9a-f]+ x2 0x[0-9a-f]+ x3 0x[0-9a-f]+$`,
		`^unitrace:  x28 0x[0-9a-f]+ x29 0x[0-9a-f]+ x30 0x[0-9a-f]+$`,
		`^unitrace:  sp 0x[0-9a-f]+ pc 0x[0-9a-f]+ spsr 0x[0-9a-f]+$`,
		`^unitrace: backtrace \(exception pc, then the frame-pointer chain\):$`,
		`^unitrace:   0x[0-9a-f]+ github.com/unitrace/unitrace/kernel/syscalls.crashForTest\+0x[0-9a-f]+ \S+/kernel/syscalls/syscall.go:\d+$`,
		`^unitrace:   0x[0-9a-f]+ github.com/unitrace/unitrace/kernel/syscalls.Unlocked\+0x[0-9a-f]+ \S+/kernel/syscalls/syscall.go:\d+$`,
		`^unitrace:   0x[0-9a-f]+ trapSaved\+`, // the stub that calls the kernel's trap
	},
}

// TestKernelFault asks the kernel to fault on purpose and expects the fault report on the
// console, in the arch's format, and the launcher's kernel-fault status.
func TestKernelFault(t *testing.T) {
	forEachArch(t, func(t *testing.T, a guestArch) {
		stdout, stderr, status := runLauncher(t, a, "-image", a.path("hello-kfault.elf"), helloApp, "unitrace.debug=kfault", "--")
		lines := consoleLines(stdout)
		first := slices.IndexFunc(lines, func(l string) bool { return strings.HasPrefix(l, vmconfig.FaultLinePrefix) })
		halt := slices.Index(lines, vmconfig.FaultHaltLine)
		switch {
		case first < 0:
			t.Errorf("no %q line", vmconfig.FaultLinePrefix)
		case halt < 0:
			t.Errorf("no %q line", vmconfig.FaultHaltLine)
		case halt <= first:
			t.Errorf("the halting line (%d) does not end the report (%d)", halt, first)
		}
		if first >= 0 && halt > first {
			report := lines[first:halt]
			at := 0
			for _, p := range faultReport[a.name] {
				re := regexp.MustCompile(p)
				i := slices.IndexFunc(report[at:], re.MatchString)
				if i < 0 {
					t.Errorf("the report lacks a line matching %s after line %d:\n%s", p, first+at+1, strings.Join(report, "\n"))
					break
				}
				at += i + 1
			}
		}
		if slices.ContainsFunc(lines, func(l string) bool { return strings.HasPrefix(l, vmconfig.ExitLinePrefix) }) {
			t.Errorf("a faulted guest printed an exit line")
		}
		if status != vmconfig.StatusKernelFault || !contains(stderr, "unitrace run: ", "kernel faulted") {
			t.Errorf("launcher status %d, want %d; stderr %q\nconsole:\n%s", status, vmconfig.StatusKernelFault, stderr, stdout)
		}
		// The kernel's exit code after a report and the one the launcher expects must agree:
		// the launcher says "instead of" when they do not.
		if strings.Contains(stderr, "instead of") {
			t.Errorf("the launcher did not expect the fault's exit code: %q", strings.TrimSpace(stderr))
		}
	})
}

func lastLine(lines []string) string {
	for i := len(lines) - 1; i >= 0; i-- {
		if lines[i] != "" {
			return lines[i]
		}
	}
	return ""
}

// contains reports whether s has a line starting with prefix that contains sub.
func contains(s, prefix, sub string) bool {
	for _, l := range strings.Split(s, "\n") {
		if strings.HasPrefix(l, prefix) && strings.Contains(l, sub) {
			return true
		}
	}
	return false
}
