package main

import (
	"fmt"
	"math/rand/v2"
	"runtime"
	"sync"
	"sync/atomic"
	"time"
)

// churn is the hostile mode for the off-CPU sweep, which reads the runtime's goroutines while
// they change under it: for d, on every CPU, goroutines are created and exit all the time,
// grow their stacks deep (the runtime copies them to bigger ones) and shrink back, wait on
// channels and mutexes for moments, and the heap churns so that the GC runs often (it scans and
// shrinks stacks). It prints how many goroutines it ran and how many GCs there were.
func churn(d time.Duration) error {
	var started atomic.Int64
	var mu sync.Mutex
	ch := make(chan int)
	stop := make(chan struct{})
	var wg sync.WaitGroup
	for w := range runtime.GOMAXPROCS(0) * 2 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r := rand.New(rand.NewPCG(uint64(w), 3))
			var inner sync.WaitGroup
			for !stopped(stop) {
				for range 4 {
					inner.Add(1)
					started.Add(1)
					go func(depth int) {
						defer inner.Done()
						churnSink.Add(uint64(deep(depth))) // grows the stack by its depth's frames
						select {
						case ch <- depth:
						case <-ch:
						case <-time.After(time.Duration(depth) * time.Microsecond):
						}
						mu.Lock()
						garbage = make([]byte, 1<<(10+depth%8))
						mu.Unlock()
					}(r.IntN(2000))
				}
				inner.Wait()
			}
		}()
	}
	time.Sleep(d)
	close(stop)
	wg.Wait()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	fmt.Printf("waits: churn ran %d goroutines, %d GCs\n", started.Load(), ms.NumGC)
	return nil
}

var (
	garbage   []byte
	churnSink atomic.Uint64
)

// deep recurses n frames of 256 bytes each.
//
//go:noinline
func deep(n int) int {
	var pad [32]uint64
	pad[n%32] = uint64(n)
	if n == 0 {
		return int(pad[0])
	}
	return deep(n-1) + int(pad[n%32]&1)
}
