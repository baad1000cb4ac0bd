package vm_test

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/hugelgupf/vmtest/qemu"
	"github.com/unitrace/unitrace/tools/vmconfig"
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

// TestHello boots examples/hello on each machine under TCG and compares its
// console line by line with the golden output.
func TestHello(t *testing.T) {
	requireQEMU(t, qemu.ArchAMD64)
	kernel := buildImage(t, helloApp)
	want := helloGolden(t)
	for _, machine := range []string{"microvm", "q35"} {
		t.Run(machine, func(t *testing.T) {
			t.Parallel()
			console, out := bootVM(t, vmconfig.Config{Machine: machine, Accel: vmconfig.TCG, Kernel: kernel,
				Env: []string{"HELLO_NAME=unitrace"}, Args: []string{"alpha", "beta"}})
			compareLines(t, programLines(console), want)
			if last := lastLine(console); last != vmconfig.ExitLinePrefix+"3" {
				t.Errorf("last console line %q, want the exit line", last)
			}
			if out.Kind != vmconfig.Exited || out.Status != helloExitStatus {
				t.Errorf("outcome %+v, want exit status %d", out, helloExitStatus)
			}
		})
	}
}

// TestHelloCommandLine checks through the launcher that KEY=VALUE words and
// arguments reach os.Getenv and os.Args, and that the launcher exits with the
// guest's status.
func TestHelloCommandLine(t *testing.T) {
	requireQEMU(t, qemu.ArchAMD64)
	stdout, _, status := runLauncher(t, "-image", filepath.Join(scratch, "hello-cmdline.elf"), helloApp,
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
}

// TestKernelFault asks the kernel to fault on purpose and expects the fault
// report on the console and the launcher's kernel-fault status.
func TestKernelFault(t *testing.T) {
	requireQEMU(t, qemu.ArchAMD64)
	stdout, stderr, status := runLauncher(t, "-image", filepath.Join(scratch, "hello-kfault.elf"), helloApp, "unitrace.debug=kfault", "--")
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
	case halt == first:
		t.Errorf("the report is empty")
	}
	if slices.ContainsFunc(lines, func(l string) bool { return strings.HasPrefix(l, vmconfig.ExitLinePrefix) }) {
		t.Errorf("a faulted guest printed an exit line")
	}
	if status != vmconfig.StatusKernelFault || !contains(stderr, "unitrace run: ", "kernel faulted") {
		t.Errorf("launcher status %d, want %d; stderr %q\nconsole:\n%s", status, vmconfig.StatusKernelFault, stderr, stdout)
	}
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
