package vm_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/unitrace/unitrace/internal/vmconfig"
)

// TestTimers boots examples/timers on one CPU and on two: runtime/pprof's CPU profile has at
// least 90% of 100 Hz × the CPU time it covered, setitimer's SIGALRM comes every period (its
// error is logged) and SIGVTALRM after the user time asked for, a blocked POSIX timer's overrun is exact, the CPU-time clocks follow the
// threads' runs, a signal interrupts nanosleep with EINTR and the time left, and bad input gets
// Linux's errors. Every check prints its numbers, which the test logs.
func TestTimers(t *testing.T) { forEachArch(t, testTimers) }

func testTimers(t *testing.T, a guestArch) {
	img := buildImage(t, a, "examples/timers")
	for _, cpus := range []int{1, 2} {
		t.Run(fmt.Sprintf("%dcpu", cpus), func(t *testing.T) {
			cfg := a.config(img)
			cfg.SMP = cpus
			console, out := bootVM(t, cfg)
			results := 0
			for _, l := range programLines(console) {
				if !strings.HasPrefix(l, "timers: ") {
					continue
				}
				results++
				t.Log(l)
				if strings.Contains(l, " FAIL ") {
					t.Error(l)
				}
			}
			if results != 8 {
				t.Errorf("%d check results on the console, want 8", results)
			}
			if out.Kind != vmconfig.Exited || out.Status != 0 {
				t.Errorf("outcome %+v", out)
			}
		})
	}
}
