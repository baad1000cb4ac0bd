package vm_test

import "testing"

// TestTimers boots examples/timers on one CPU and on two: runtime/pprof's CPU profile has at
// least 90% of 100 Hz × the CPU time it covered (in one of up to three tries: a busy host
// costs samples), setitimer's SIGALRM comes every period (its
// error is logged) and SIGVTALRM after the user time asked for, a blocked POSIX timer's overrun
// is exact, the CPU-time clocks follow the threads' runs, a signal interrupts nanosleep with
// EINTR and the time left, the vDSO's clock reads agree with the system call and across
// threads, and bad input gets Linux's errors. Every check prints its numbers, which the test
// logs.
func TestTimers(t *testing.T) { forEachArch(t, testTimers) }

func testTimers(t *testing.T, a guestArch) {
	checkOnCPUs(t, a, "examples/timers", "timers: ", []int{1, 2}, func(t *testing.T, lines []string) {
		if len(lines) != 8 {
			t.Errorf("%d check results on the console, want 8", len(lines))
		}
	})
}
