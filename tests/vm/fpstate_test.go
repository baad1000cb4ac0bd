package vm_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/unitrace/unitrace/internal/vmconfig"
)

// TestFPState boots examples/fpstate on one CPU and on two: four threads keep patterns in every
// vector register (and the x87 control word or FPCR) across system calls that block and switch
// threads, with the runtime's preemption signals and a CPU profile's SIGPROF arriving meanwhile.
// The trap stubs save only what the kernel's own code can change, and the thread switch the
// rest, so a lost register shows here.
func TestFPState(t *testing.T) { forEachArch(t, testFPState) }

func testFPState(t *testing.T, a guestArch) {
	img := buildImage(t, a, "examples/fpstate")
	for _, cpus := range []int{1, 2} {
		t.Run(fmt.Sprintf("%dcpu", cpus), func(t *testing.T) {
			cfg := a.config(img)
			cfg.SMP = cpus
			console, out := bootVM(t, cfg)
			ok := false
			for _, l := range programLines(console) {
				if strings.HasPrefix(l, "fpstate: ") {
					t.Log(l)
					ok = strings.HasPrefix(l, "fpstate: ok ")
				}
			}
			if !ok || out.Kind != vmconfig.Exited || out.Status != 0 {
				t.Errorf("no \"fpstate: ok\" line, or outcome %+v", out)
			}
		})
	}
}
