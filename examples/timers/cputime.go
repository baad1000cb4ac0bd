package main

import (
	"fmt"
	"runtime"
	"sync"
	"syscall"
	"time"
	"unsafe"
)

// checkCPUTime runs a spinning and a sleeping thread side by side for 300 ms. The spinner's
// CLOCK_THREAD_CPUTIME_ID must advance by at least half the wall time (it shares the CPU with
// nobody busy) and by no more than the wall time; the sleeper's by under a tenth of its sleep
// (it runs about a millisecond around the sleep, and a host that deschedules the vCPU meanwhile
// adds its time: a guest cannot tell). The spinner's
// clock read from another thread through the clock id built from its tid agrees with its own,
// (midway, it is between the spinner's start and end), and getrusage(RUSAGE_SELF) grew by at
// least the two threads' sum.
func checkCPUTime() (string, error) {
	const wall = 300 * time.Millisecond
	var spinStart, spun, slept time.Duration
	var spinTid int
	var wg sync.WaitGroup
	selfBefore := cpuTime()
	ready := make(chan struct{})
	wg.Go(func() {
		runtime.LockOSThread()
		defer runtime.UnlockOSThread()
		spinTid = syscall.Gettid()
		close(ready)
		spinStart = threadClock(clockThreadCPU)
		spin(wall)
		spun = threadClock(clockThreadCPU) - spinStart
	})
	wg.Go(func() {
		runtime.LockOSThread()
		defer runtime.UnlockOSThread()
		t0 := threadClock(clockThreadCPU)
		ts := syscall.NsecToTimespec(int64(wall))
		syscall.Syscall(syscall.SYS_NANOSLEEP, uintptr(unsafe.Pointer(&ts)), 0, 0)
		slept = threadClock(clockThreadCPU) - t0
	})
	<-ready
	time.Sleep(wall / 2)
	byTid := threadClock(threadCPUClock(spinTid)) // the spinner's clock, from here
	wg.Wait()
	byTid -= spinStart // the thread may have run before: its clock counts from its creation
	self := cpuTime() - selfBefore
	detail := fmt.Sprintf("spinner=%v sleeper=%v spinner_by_tid_midway=%v rusage_self=%v", spun.Round(time.Millisecond),
		slept.Round(time.Microsecond), byTid.Round(time.Millisecond), self.Round(time.Millisecond))
	switch {
	case spun < wall/2 || spun > wall+wall/10:
		return "", fmt.Errorf("%s: the spinner's CPU time is off", detail)
	case slept > wall/10:
		return "", fmt.Errorf("%s: the sleeper's CPU time advanced", detail)
	case byTid <= 0 || byTid > spun:
		return "", fmt.Errorf("%s: the per-tid clock did not read the spinner's time", detail)
	case self < spun+slept:
		return "", fmt.Errorf("%s: getrusage does not sum the threads", detail)
	}
	return detail, nil
}

// threadCPUClock is the clock id of thread tid's CPU time (include/linux/posix-timers_types.h
// MAKE_THREAD_CPUCLOCK(tid, CPUCLOCK_SCHED)).
func threadCPUClock(tid int) int { return (^tid)<<3 | 4 | 2 }

func threadClock(id int) time.Duration {
	var ts syscall.Timespec
	if _, _, e := syscall.Syscall(syscall.SYS_CLOCK_GETTIME, uintptr(id), uintptr(unsafe.Pointer(&ts)), 0); e != 0 {
		return -1
	}
	return time.Duration(ts.Nano())
}
