package main

import (
	"fmt"
	"runtime"
	"sync"
	"syscall"
	"time"
)

// park is the mode that `unitrace stacks -g` is checked against: goroutines that each wait
// one known way for good, then, after d, the runtime's own dump of every goroutine
// (runtime.Stack, as SIGQUIT prints it) between two marker lines, and exit.
func park(d time.Duration) error {
	var mu sync.Mutex
	mu.Lock() // held by main: the Lock below waits for good
	var wg sync.WaitGroup
	wg.Add(1) // never done
	cond := sync.NewCond(&sync.Mutex{})
	pr, pw, raw, err := pipes()
	if err != nil {
		return err
	}
	parked := []func(){
		func() { <-make(chan int) },
		func() { make(chan int) <- 1 },
		func() {
			select {
			case <-make(chan int):
			case <-make(chan bool):
			}
		},
		func() { mu.Lock() },
		func() { wg.Wait() },
		func() { cond.L.Lock(); cond.Wait() },
		func() { time.Sleep(time.Hour) },
		func() { pr.Read(make([]byte, 1)) },
		func() { syscall.Read(raw[0], make([]byte, 1)) },
	}
	for _, f := range parked {
		go f()
	}
	fmt.Printf("waits: parked %d goroutines\n", len(parked))
	time.Sleep(d)
	buf := make([]byte, 1<<20)
	n := runtime.Stack(buf, true)
	fmt.Printf("waits: dump begin\n%s\nwaits: dump end\n", buf[:n])
	runtime.KeepAlive(pw) // closed by its finalizer, it would end the read that waits on it
	return nil
}
