package main

import (
	"fmt"
	"os"
	"os/signal"
	"syscall"
	"time"
)

// checkVirtual arms ITIMER_VIRTUAL for 100 ms of the process's user time, sleeps 300 ms (no
// user time to speak of: no signal may come), then spins until SIGVTALRM arrives: by then the
// process has used about 100 ms of user time, however long that took on the wall clock.
func checkVirtual() (string, error) {
	const budget = 100 * time.Millisecond
	ch := make(chan os.Signal, 1)
	signal.Notify(ch, syscall.SIGVTALRM)
	defer signal.Stop(ch)
	start := userTime()
	if err := setitimer(1, budget, 0); err != nil {
		return "", err
	}
	time.Sleep(300 * time.Millisecond)
	select {
	case <-ch:
		return "", fmt.Errorf("SIGVTALRM while sleeping, after %v of user time", userTime()-start)
	default:
	}
	deadline := time.Now().Add(5 * time.Second)
	for {
		select {
		case <-ch:
			used := userTime() - start
			detail := fmt.Sprintf("SIGVTALRM after %v of user time (armed for %v)", used.Round(time.Millisecond), budget)
			// Late by up to a budget: the signal reaches ch through the runtime's signal
			// goroutine, which waits for this spinning goroutine to be preempted (10 ms at a
			// time), and a host that deschedules the vCPU while the thread runs charges the
			// gap to its user time, which a guest cannot tell apart (seen: 50 ms once).
			if used < budget || used > 2*budget {
				return "", fmt.Errorf("%s: want %v to %v", detail, budget, 2*budget)
			}
			return detail, nil
		default:
		}
		if time.Now().After(deadline) {
			return "", fmt.Errorf("no SIGVTALRM after %v of user time", userTime()-start)
		}
		spin(time.Millisecond)
	}
}

// userTime is the process's user time.
func userTime() time.Duration {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano())
}
