package main

import (
	"fmt"
	"os"
	"os/signal"
	"syscall"
	"time"
	"unsafe"
)

// checkITimer arms ITIMER_REAL with a 20 ms period, takes 25 SIGALRMs on a channel and measures
// each interval between arrivals against the period. The mean of the intervals must be within
// 1% of the period (the timer does not drift), and the printed error shows the jitter.
func checkITimer() (string, error) {
	const period = 20 * time.Millisecond
	const n = 25
	ch := make(chan os.Signal, n)
	signal.Notify(ch, syscall.SIGALRM)
	defer signal.Stop(ch)
	if err := setitimer(0, period, period); err != nil {
		return "", err
	}
	start := time.Now()
	last := start
	var maxErr, sumErr time.Duration
	for i := 0; i < n; i++ {
		select {
		case <-ch:
		case <-time.After(2 * time.Second):
			setitimer(0, 0, 0)
			return "", fmt.Errorf("no SIGALRM %d within 2 s", i+1)
		}
		now := time.Now()
		e := (now.Sub(last) - period).Abs()
		sumErr += e
		maxErr = max(maxErr, e)
		last = now
	}
	setitimer(0, 0, 0)
	mean := time.Since(start) / n
	detail := fmt.Sprintf("period=%v mean_interval=%v mean_error=%v max_error=%v", period, mean.Round(time.Microsecond),
		(sumErr / n).Round(time.Microsecond), maxErr.Round(time.Microsecond))
	if (mean - period).Abs() > period/100 {
		return "", fmt.Errorf("%s: the mean interval is more than 1%% off", detail)
	}
	return detail, nil
}

type itimerval struct{ Interval, Value syscall.Timeval }

func setitimer(which int, value, interval time.Duration) error {
	it := itimerval{syscall.NsecToTimeval(int64(interval)), syscall.NsecToTimeval(int64(value))}
	if _, _, e := syscall.Syscall(syscall.SYS_SETITIMER, uintptr(which), uintptr(unsafe.Pointer(&it)), 0); e != 0 {
		return fmt.Errorf("setitimer: %w", e)
	}
	return nil
}
