// Command timers checks, from inside a guest, the clocks, timers and signals that Go programs
// and the Go runtime rely on, each against what it must be by construction:
//
//	pprof     runtime/pprof's CPU profile of a spin loop has 100 Hz × its CPU time samples
//	itimer    setitimer(ITIMER_REAL) delivers SIGALRM every period: the error is printed
//	virtual   setitimer(ITIMER_VIRTUAL) waits for the process's user time, not the wall clock
//	overrun   a POSIX timer whose signal is blocked counts exactly the expiries it missed
//	cputime   a spinning thread's CLOCK_THREAD_CPUTIME_ID advances with its run time, a sleeping
//	          thread's does not, and getrusage(RUSAGE_SELF) sums the threads
//	eintr     a signal with a handler interrupts nanosleep: EINTR and the time left
//	vdso      the runtime's clock reads (through the vDSO) agree with the system call, and never
//	          go back from one thread or CPU to another
//	errors    bad clock ids, timer ids, signals and pointers give Linux's errors
//
// Each check prints one line, "timers: NAME ok ..." or "timers: NAME FAIL ...", and the
// program exits with status 1 if any failed. Usage: timers [CHECK ...] (default: all).
// `go run ./examples/timers` runs the same checks on the host's Linux.
package main

import (
	"fmt"
	"os"
	"slices"

	_ "github.com/unitrace/unitrace/kernel"
)

type check struct {
	name string
	run  func() (detail string, err error)
}

var checks = []check{
	{"pprof", checkPprof},
	{"itimer", checkITimer},
	{"virtual", checkVirtual},
	{"overrun", checkOverrun},
	{"cputime", checkCPUTime},
	{"eintr", checkEINTR},
	{"vdso", checkVDSO},
	{"errors", checkErrors},
}

func main() {
	failed := false
	for _, c := range checks {
		if len(os.Args) > 1 && !slices.Contains(os.Args[1:], c.name) {
			continue
		}
		detail, err := c.run()
		if err != nil {
			failed = true
			fmt.Printf("timers: %s FAIL %v\n", c.name, err)
			continue
		}
		fmt.Printf("timers: %s ok %s\n", c.name, detail)
	}
	if failed {
		os.Exit(1)
	}
}
