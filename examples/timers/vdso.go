package main

import (
	"fmt"
	"runtime"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
	"unsafe"
)

// checkVDSO checks the clock reads that the runtime makes through the vDSO (time.Now's wall
// and monotonic readings) against the clock_gettime system call and across threads:
//   - each time.Now().UnixNano() lies between the CLOCK_REALTIME system calls made just before
//     and just after it;
//   - two threads (on different CPUs when there are two) take turns through a shared counter:
//     every reading is at least the one the other thread published before it (the clock never
//     goes back from one CPU to another), and the monotonic readings never go back on one thread.
//
// It prints what one time.Now costs next to one system call (not checked: speed is measured
// by benchmarks).
func checkVDSO() (string, error) {
	const rounds = 20000
	ehdr := auxvalue(atSysinfoEHDR)
	if ehdr == 0 {
		return "", fmt.Errorf("no vDSO: the auxiliary vector has no AT_SYSINFO_EHDR")
	}
	var bad int
	var worst time.Duration
	for i := 0; i < rounds; i++ {
		before := realtimeSyscall()
		v := time.Now().UnixNano()
		after := realtimeSyscall()
		if v < before || v > after {
			bad++
			worst = max(worst, time.Duration(max(before-v, v-after)))
		}
	}
	if bad > 0 {
		return "", fmt.Errorf("%d of %d wall-clock readings outside the system calls around them (worst by %v)", bad, rounds, worst)
	}

	var last atomic.Int64 // the latest reading either thread published, as Unix ns
	var backwards atomic.Int64
	var wg sync.WaitGroup
	for w := 0; w < 2; w++ {
		wg.Go(func() {
			runtime.LockOSThread()
			defer runtime.UnlockOSThread()
			prev := time.Now()
			for i := 0; i < rounds; i++ {
				seen := last.Load()
				now := time.Now()
				if now.UnixNano() < seen || now.Sub(prev) < 0 {
					backwards.Add(1)
				}
				last.Store(now.UnixNano())
				prev = now
			}
		})
	}
	wg.Wait()
	if n := backwards.Load(); n > 0 {
		return "", fmt.Errorf("%d readings went back against another thread's or the same thread's earlier one", n)
	}

	start := time.Now()
	for i := 0; i < rounds; i++ {
		time.Now()
	}
	perNow := time.Since(start) / rounds
	start = time.Now()
	for i := 0; i < rounds; i++ {
		realtimeSyscall()
	}
	perCall := time.Since(start) / rounds
	return fmt.Sprintf("vDSO at %#x: %d readings agree with the system call and across threads; time.Now %v, clock_gettime system call %v", ehdr, 3*rounds, perNow, perCall), nil
}

func realtimeSyscall() int64 {
	var ts syscall.Timespec
	syscall.Syscall(syscall.SYS_CLOCK_GETTIME, 0, uintptr(unsafe.Pointer(&ts)), 0)
	return ts.Nano()
}

// atSysinfoEHDR is the auxiliary vector's entry for the vDSO's address (include/uapi/linux/auxvec.h).
const atSysinfoEHDR = 33

// auxvalue is the auxiliary vector's value for key, 0 without one.
func auxvalue(key uintptr) uintptr {
	v := getAuxv()
	for i := 0; i+1 < len(v); i += 2 {
		if v[i] == key {
			return v[i+1]
		}
	}
	return 0
}

// getAuxv is the runtime's copy of the auxiliary vector, key and value pairs (the runtime
// provides it to golang.org/x/sys/unix by this name).
//
//go:linkname getAuxv runtime.getAuxv
func getAuxv() []uintptr
