package main

import (
	"runtime"
	"sync/atomic"
	"time"
)

// stopSpinning is read by the spinning goroutine with an atomic load, which
// the compiler turns into a plain load instruction: the loop has no call and
// so no cooperative preemption point.
var stopSpinning uint32

// preempt only returns if the runtime can preempt a goroutine that never
// yields: with one CPU, main gets to run again after its sleep, and the GC
// can stop the world, only through asynchronous preemption (SIGURG).
func preempt() (string, error) {
	started := make(chan struct{})
	done := make(chan uint64)
	go func() {
		close(started)
		var spins uint64
		for atomic.LoadUint32(&stopSpinning) == 0 {
			spins++
		}
		done <- spins
	}()
	<-started
	time.Sleep(50 * time.Millisecond)
	runtime.GC()
	atomic.StoreUint32(&stopSpinning, 1)
	<-done
	return "spinning goroutine preempted while main slept and forced GC", nil
}
