package main

import (
	"sync"
	"time"
)

// unitSteps is crunch's work per call, one unit: about 0.2 ms under QEMU TCG on an idle host.
// A call stays far below the 10 ms after which the runtime preempts a goroutine, so a worker's
// time is nearly all in crunch, and W workers on fewer CPUs share them fairly.
const unitSteps = 1 << 16

// parallel starts workers goroutines, each running units calls of crunch, all released at the
// same instant, and returns the time from that instant until the last one finished, with the
// xor of their results (printed, so that no work can be optimised away). Each worker's job is
// the same whatever the CPU count, so the elapsed times of runs with -smp 1, 2 and 4 compare
// the kernel's throughput directly.
func parallel(workers, units int) (time.Duration, uint64) {
	var ready, done sync.WaitGroup
	start := make(chan struct{})
	sums := make([]uint64, workers)
	for w := range workers {
		ready.Add(1)
		done.Add(1)
		go func() {
			defer done.Done()
			ready.Done()
			<-start
			sums[w] = worker(uint64(w)+1, units)
		}()
	}
	ready.Wait()
	t0 := time.Now()
	close(start)
	done.Wait()
	elapsed := time.Since(t0)
	var sum uint64
	for _, s := range sums {
		sum ^= s
	}
	return elapsed, sum
}

// worker runs units calls of crunch from a seed. It is crunch's only caller, so a sample in a
// worker has the stack crunch ← worker ← runtime.goexit.
//
//go:noinline
func worker(seed uint64, units int) uint64 {
	x := seed * 0x9e3779b97f4a7c15
	for range units {
		x = crunch(x, unitSteps)
	}
	return x
}

// crunch runs n steps of xorshift64 (Marsaglia's 13, 7, 17) from x: pure register arithmetic,
// no memory traffic, no allocation, no system call. It is the hot leaf of the parallel mode.
//
//go:noinline
func crunch(x uint64, n int) uint64 {
	for range n {
		x ^= x << 13
		x ^= x >> 7
		x ^= x << 17
	}
	return x
}
