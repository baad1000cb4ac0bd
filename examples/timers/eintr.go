package main

import (
	"errors"
	"fmt"
	"os"
	"os/signal"
	"runtime"
	"syscall"
	"time"
	"unsafe"
)

// checkEINTR sleeps 2 s in nanosleep on one thread and sends that thread SIGUSR1, which the
// program handles, after 100 ms: the sleep must end early with EINTR, with about 1.9 s left.
func checkEINTR() (string, error) {
	ch := make(chan os.Signal, 1)
	signal.Notify(ch, syscall.SIGUSR1)
	defer signal.Stop(ch)
	tid := make(chan int)
	type result struct {
		err  error
		rem  time.Duration
		took time.Duration
	}
	done := make(chan result)
	go func() {
		runtime.LockOSThread()
		defer runtime.UnlockOSThread()
		tid <- syscall.Gettid()
		req := syscall.NsecToTimespec(int64(2 * time.Second))
		var rem syscall.Timespec
		start := time.Now()
		_, _, e := syscall.Syscall(syscall.SYS_NANOSLEEP, uintptr(unsafe.Pointer(&req)), uintptr(unsafe.Pointer(&rem)), 0)
		var err error
		if e != 0 {
			err = e
		}
		done <- result{err, time.Duration(rem.Nano()), time.Since(start)}
	}()
	t := <-tid
	time.Sleep(100 * time.Millisecond)
	if err := syscall.Tgkill(syscall.Getpid(), t, syscall.SIGUSR1); err != nil {
		return "", err
	}
	r := <-done
	<-ch
	detail := fmt.Sprintf("err=%v rem=%v slept=%v", r.err, r.rem.Round(time.Millisecond), r.took.Round(time.Millisecond))
	if !errors.Is(r.err, syscall.EINTR) || r.rem < time.Second || r.rem > 2*time.Second || r.took > time.Second {
		return "", fmt.Errorf("%s: want EINTR after about 100 ms with about 1.9 s left", detail)
	}
	return detail, nil
}
