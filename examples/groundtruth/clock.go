package main

import (
	"runtime"
	"time"
)

// checkEvery is about how often a workload reads the clock and yields the processor.
//
// Reading the clock is a system call under unitrace (about 5 µs under QEMU TCG), so a workload
// reads it only every few milliseconds, not after every call of its hot function: the share of
// time outside the hot function then does not depend on how long one call takes, natively,
// under TCG or under KVM.
//
// The yield is there because the runtime's sysmon preempts a goroutine that has run for 10 ms
// without passing through the scheduler (a signal, runtime.asyncPreempt, a trip through the
// scheduler), and after every preemption it polls every 20 µs for the next millisecond: on a
// one-CPU guest each of those wake-ups is a thread switch that takes the CPU from the workload.
// A runtime.Gosched every few milliseconds keeps sysmon from finding a goroutine to preempt, so
// it backs off to sleeping 10 ms at a time. The yield itself finds no other goroutine to run
// (unless the kernel's trace agent has work) and returns at once.
const checkEvery = 4 * time.Millisecond

// runClock tells a workload when its time is up. The workload calls running after every call
// of its hot function; running counts calls and reads the clock only every callsPerCheck of
// them, doubling or halving callsPerCheck so that the reads stay between about checkEvery/2
// and 2*checkEvery apart, however fast the calls are.
type runClock struct {
	start         time.Time
	d             time.Duration
	lastCheck     time.Duration // elapsed time at the last clock read
	callsPerCheck int
	callsLeft     int // calls until the next clock read
}

func startClock(d time.Duration) runClock {
	return runClock{start: time.Now(), d: d, callsPerCheck: 1, callsLeft: 1}
}

// running reports whether the workload should go on. It overshoots the duration by at most the
// time between two clock reads.
func (c *runClock) running() bool {
	c.callsLeft--
	if c.callsLeft > 0 {
		return true
	}
	elapsed := time.Since(c.start)
	switch since := elapsed - c.lastCheck; {
	case since < checkEvery/2:
		c.callsPerCheck *= 2
	case since > 2*checkEvery && c.callsPerCheck > 1:
		c.callsPerCheck /= 2
	}
	c.lastCheck = elapsed
	c.callsLeft = c.callsPerCheck
	runtime.Gosched()
	return elapsed < c.d
}
