package main

import (
	"fmt"
	"sync"
)

const goroutines = 1000

// tokenRing passes a token through a ring of goroutines connected by
// unbuffered channels: every hop is a wake-up of a parked goroutine.
func tokenRing() (string, error) {
	first := make(chan int)
	in := first
	for range goroutines {
		out := make(chan int)
		go func(in <-chan int, out chan<- int) { out <- 1 + <-in }(in, out)
		in = out
	}
	first <- 0
	if hops := <-in; hops != goroutines {
		return "", fmt.Errorf("token made %d hops, want %d", hops, goroutines)
	}
	return fmt.Sprintf("passed %d hops", goroutines), nil
}

// mutexCounter has goroutines contend for one Mutex and waits for them with
// a WaitGroup.
func mutexCounter() (string, error) {
	var (
		mu  sync.Mutex
		wg  sync.WaitGroup
		sum int
	)
	for i := range goroutines {
		wg.Go(func() {
			for range 10 {
				mu.Lock()
				sum += i
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	if want := 10 * goroutines * (goroutines - 1) / 2; sum != want {
		return "", fmt.Errorf("sum %d, want %d", sum, want)
	}
	return fmt.Sprintf("%d goroutines, sum %d", goroutines, sum), nil
}
