package main

import (
	"runtime"
	"strconv"
	"sync"
	"sync/atomic"
	"time"
)

// gcResult is what the gcstress mode reports.
type gcResult struct {
	workers     int
	elapsed     time.Duration
	allocations uint64 // objects the workers made (maps, slices and strings, not counting their insides)
	gcs         uint32 // collections run (runtime.MemStats.NumGC)
	forced      uint32 // of those, forced by runtime.GC
}

const (
	// liveSlots is how many objects a worker keeps alive at a time, each replaced at random:
	// survivors of a few cycles give the collector marking to do, not just sweeping.
	liveSlots = 128
	// maxBlock bounds a medium object (a []byte of 16 bytes up to this), so that the live set
	// stays below 4 workers × 128 slots × 16 KiB = 8 MiB, far under the guest's memory.
	maxBlock = 16 << 10
	// checkEvery is how many allocation rounds a worker runs between looks at the clock.
	checkEvery = 256
	// forceEvery is how often the first worker forces a collection on top of the paced ones.
	forceEvery = 500 * time.Millisecond
)

// gcstress runs GOMAXPROCS goroutines allocating and dropping maps, slices and strings for d,
// the first one also calling runtime.GC every forceEvery, and reports how many collections ran.
// It keeps every CPU busy in the allocator, the write barrier and the collector's workers at
// once: the workload of the sampler's SMP stress test.
func gcstress(d time.Duration) gcResult {
	var before runtime.MemStats
	runtime.ReadMemStats(&before)
	workers := runtime.GOMAXPROCS(0)
	var allocations atomic.Uint64
	var wg sync.WaitGroup
	t0 := time.Now()
	deadline := t0.Add(d)
	for w := range workers {
		wg.Go(func() { allocations.Add(churn(uint64(w)+1, deadline, w == 0)) })
	}
	wg.Wait()
	elapsed := time.Since(t0)
	var after runtime.MemStats
	runtime.ReadMemStats(&after)
	return gcResult{
		workers:     workers,
		elapsed:     elapsed,
		allocations: allocations.Load(),
		gcs:         after.NumGC - before.NumGC,
		forced:      after.NumForcedGC - before.NumForcedGC,
	}
}

// published holds a worker's live set. Storing it there makes the set, and so everything put
// in it, escape to the heap: the compiler cannot keep the objects on the stack or drop them.
var published atomic.Pointer[[liveSlots]any]

// churn allocates until deadline: each round makes a small map with string keys, a byte slice
// of 16 B to maxBlock and a string, stores one of them in a random live slot (dropping what
// was there) and lets the rest die at once; with force it also calls runtime.GC every
// forceEvery. It returns the objects made.
func churn(seed uint64, deadline time.Time, force bool) (allocs uint64) {
	live := new([liveSlots]any)
	published.Store(live)
	rng := seed * 0x9e3779b97f4a7c15
	next := func() uint64 {
		rng ^= rng << 13
		rng ^= rng >> 7
		rng ^= rng << 17
		return rng
	}
	lastForce := time.Now()
	for {
		for range checkEvery {
			r := next()
			m := make(map[string]int, 8)
			for i := range 8 {
				m[strconv.Itoa(int(r>>8)+i)] = i
			}
			b := make([]byte, 16+r%maxBlock)
			b[0], b[len(b)-1] = byte(r), byte(r>>8)
			s := strconv.FormatUint(r, 36) + "/" + strconv.Itoa(len(m))
			switch slot := int(r>>32) % liveSlots; r % 3 {
			case 0:
				live[slot] = m
			case 1:
				live[slot] = b
			default:
				live[slot] = s
			}
			allocs += 3
		}
		now := time.Now()
		if now.After(deadline) {
			return allocs
		}
		if force && now.Sub(lastForce) >= forceEvery {
			runtime.GC()
			lastForce = now
		}
	}
}
