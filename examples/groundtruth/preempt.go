package main

import (
	"fmt"
	"time"
)

// preemptShares runs the preempt workload until d has passed: the shares workload's 6:3:1
// rounds, but with the work in Go (preempt60, preempt30, preempt10) and without the yields of
// runClock, so that the runtime's sysmon finds the goroutine running for 10 ms at a time and
// preempts it asynchronously (SIGURG, whose handler injects a call of runtime.asyncPreempt where
// the loop was), about a hundred times a second. A profile that is right charges that preemption
// its real cost, a fraction of a percent, and the three functions their shares of the time.
//
// A compiled Go loop's cost under QEMU TCG depends on where it falls (a loop that straddles a
// page runs several times slower: shares_amd64.s), so the three loops' costs per unit can
// differ, and the true shares are measured: each call is timed, and the workload prints each
// function's share of the time in calls (preemptTruth), which is what a test compares a
// profile with.
//
//go:noinline
func preemptShares(d time.Duration) (result, [3]time.Duration) {
	start := time.Now()
	var r result
	var spent [3]time.Duration
	x := uint64(0xa0761d6478bd642f)
	rng := uint64(0xe7037ed1a0b428db)
	for time.Since(start) < d {
		rng ^= rng << 13
		rng ^= rng >> 7
		rng ^= rng << 17
		n := (1 + uint64(rng>>61)) * shareUnits
		t0 := time.Now()
		x = preempt60(x, 6*n)
		t1 := time.Now()
		x = preempt30(x, 3*n)
		t2 := time.Now()
		x = preempt10(x, 1*n)
		t3 := time.Now()
		spent[0] += t1.Sub(t0)
		spent[1] += t2.Sub(t1)
		spent[2] += t3.Sub(t2)
		r.calls += 3
		r.units += 10 * n
	}
	r.checksum = x
	return r, spent
}

// preempt60, preempt30 and preempt10 each run n steps of xorshift64 from x, in Go: a loop the
// runtime may preempt anywhere (an asynchronous safe point), unlike the shares workload's
// assembly.

//go:noinline
func preempt60(x, n uint64) uint64 {
	for range n {
		x ^= x << 13
		x ^= x >> 7
		x ^= x << 17
	}
	return x
}

//go:noinline
func preempt30(x, n uint64) uint64 {
	for range n {
		x ^= x << 13
		x ^= x >> 7
		x ^= x << 17
	}
	return x
}

//go:noinline
func preempt10(x, n uint64) uint64 {
	for range n {
		x ^= x << 13
		x ^= x >> 7
		x ^= x << 17
	}
	return x
}

// preemptTruth is the preempt workload's line of true shares: each function's share of the
// time its calls took, in percent,
//
//	groundtruth: preempt truth preempt60=P preempt30=P preempt10=P
func preemptTruth(spent [3]time.Duration) string {
	total := spent[0] + spent[1] + spent[2]
	if total <= 0 {
		total = 1
	}
	pct := func(d time.Duration) float64 { return 100 * float64(d) / float64(total) }
	return fmt.Sprintf("groundtruth: preempt truth preempt60=%.1f preempt30=%.1f preempt10=%.1f", pct(spent[0]), pct(spent[1]), pct(spent[2]))
}
