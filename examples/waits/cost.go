package main

import (
	"fmt"
	"syscall"
	"time"
)

// idle parks n goroutines on a channel receive and sleeps for d: the off-CPU sweep's cost per
// goroutine, with nothing else running.
func idle(n int, d time.Duration) error {
	block := make(chan int)
	for range n {
		go func() { <-block }()
	}
	fmt.Printf("waits: idle with %d goroutines parked\n", n)
	time.Sleep(d)
	return nil
}

// pingpong has two goroutines hand a byte back and forth over two blocking pipes (read(2) and
// write(2)) n times: every hand-over wakes a thread blocked in the kernel. It prints the time
// per round trip, two wake-ups.
func pingpong(n int) error {
	var ab, ba [2]int
	if err := syscall.Pipe2(ab[:], syscall.O_CLOEXEC); err != nil {
		return err
	}
	if err := syscall.Pipe2(ba[:], syscall.O_CLOEXEC); err != nil {
		return err
	}
	done := make(chan error)
	go func() {
		b := make([]byte, 1)
		for range n {
			if _, err := syscall.Read(ab[0], b); err != nil {
				done <- err
				return
			}
			if _, err := syscall.Write(ba[1], b); err != nil {
				done <- err
				return
			}
		}
		done <- nil
	}()
	b := make([]byte, 1)
	start := time.Now()
	for range n {
		if _, err := syscall.Write(ab[1], b); err != nil {
			return err
		}
		if _, err := syscall.Read(ba[0], b); err != nil {
			return err
		}
	}
	if err := <-done; err != nil {
		return err
	}
	el := time.Since(start)
	fmt.Printf("waits: pingpong %d round trips in %v, %v each\n", n, el, el/time.Duration(n))
	return nil
}

// costMode runs the cost modes: idle N DURATION, pingpong N.
func costMode(args []string) (bool, error) {
	switch {
	case len(args) == 3 && args[0] == "idle":
		var n int
		d, err := time.ParseDuration(args[2])
		if _, e := fmt.Sscan(args[1], &n); e != nil || err != nil || n < 0 {
			return true, fmt.Errorf("usage: waits idle N DURATION")
		}
		return true, idle(n, d)
	case len(args) == 2 && args[0] == "pingpong":
		var n int
		if _, err := fmt.Sscan(args[1], &n); err != nil || n < 1 {
			return true, fmt.Errorf("usage: waits pingpong N")
		}
		return true, pingpong(n)
	}
	return false, nil
}
