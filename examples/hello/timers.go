package main

import (
	"fmt"
	"time"
)

// Timers may fire late (TCG is slow) but never early.

func sleep() (string, error) {
	const d = 20 * time.Millisecond
	start := time.Now()
	time.Sleep(d)
	if got := time.Since(start); got < d {
		return "", fmt.Errorf("Sleep(%v) returned after %v", d, got)
	}
	return fmt.Sprintf("slept at least %v", d), nil
}

func timer() (string, error) {
	const d = 15 * time.Millisecond
	stopped := time.NewTimer(d / 3)
	if !stopped.Stop() {
		return "", fmt.Errorf("Stop of a pending timer returned false")
	}
	start := time.Now()
	t := time.NewTimer(d)
	<-t.C
	if got := time.Since(start); got < d {
		return "", fmt.Errorf("%v timer fired after %v", d, got)
	}
	select {
	case <-stopped.C:
		return "", fmt.Errorf("a stopped timer fired")
	default:
	}
	return fmt.Sprintf("fired after at least %v; stopped timer stayed quiet", d), nil
}

func ticker() (string, error) {
	const (
		period = 5 * time.Millisecond
		ticks  = 5
	)
	start := time.Now()
	tk := time.NewTicker(period)
	defer tk.Stop()
	for range ticks {
		<-tk.C
	}
	if got := time.Since(start); got < ticks*period {
		return "", fmt.Errorf("%d ticks of %v took only %v", ticks, period, got)
	}
	return fmt.Sprintf("%d ticks of %v", ticks, period), nil
}
