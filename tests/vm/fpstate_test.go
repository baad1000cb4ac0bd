package vm_test

import (
	"strings"
	"testing"
)

// TestFPState boots examples/fpstate on one CPU and on two: four threads keep patterns in every
// vector register (and the x87 control word or FPCR) across system calls that block and switch
// threads, with the runtime's preemption signals and a CPU profile's SIGPROF arriving meanwhile.
// The trap stubs save only what the kernel's own code can change, and the thread switch the
// rest, so a lost register shows here.
func TestFPState(t *testing.T) { forEachArch(t, testFPState) }

func testFPState(t *testing.T, a guestArch) {
	checkOnCPUs(t, a, "examples/fpstate", "fpstate: ", []int{1, 2}, func(t *testing.T, lines []string) {
		if len(lines) != 1 || !strings.HasPrefix(lines[0], "fpstate: ok ") {
			t.Errorf("want one \"fpstate: ok\" line, got %q", lines)
		}
		// AVX is on by default on amd64 (QEMU's -cpu max has it): the YMM registers' upper
		// halves must have been checked too.
		if a.name == "amd64" && (len(lines) != 1 || !strings.Contains(lines[0], "YMM")) {
			t.Errorf("amd64: want the YMM registers checked, got %q", lines)
		}
	})
}
