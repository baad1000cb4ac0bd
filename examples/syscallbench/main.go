// Command syscallbench measures the cost of a system call round trip and of a thread switch
// (futex ping-pong between two threads). It runs both as a unitrace image and as an ordinary
// Linux program, so the two can be compared in one run (tests/vm's BenchmarkSyscalls does).
//
// Output, one line each: "getpid_ns N", "futex_pingpong_ns N" (a full round trip: two wake-ups
// and two switches), "boot_ns N" (CLOCK_MONOTONIC at main.main: under unitrace, the time since
// the kernel's entry).
package main

import (
	"flag"
	"fmt"
	"os"
	"runtime"
	"sync/atomic"
	"syscall"
	"time"
	"unsafe"

	_ "github.com/unitrace/unitrace/kernel"
)

func main() {
	var ts syscall.Timespec
	syscall.RawSyscall(syscall.SYS_CLOCK_GETTIME, 1, uintptr(unsafe.Pointer(&ts)), 0)
	boot := ts.Nano()
	n := flag.Int("n", 20000, "iterations")
	flag.Parse()
	if err := run(*n, boot); err != nil {
		fmt.Fprintln(os.Stderr, "syscallbench:", err)
		os.Exit(1)
	}
}

func run(n int, boot int64) error {
	fmt.Printf("boot_ns %d\n", boot)
	start := time.Now()
	for i := 0; i < n; i++ {
		syscall.RawSyscall(syscall.SYS_GETPID, 0, 0, 0)
	}
	fmt.Printf("getpid_ns %d\n", time.Since(start).Nanoseconds()/int64(n))

	ns, err := pingPong(n / 4)
	if err != nil {
		return err
	}
	fmt.Printf("futex_pingpong_ns %d\n", ns)
	return nil
}

const (
	futexWait = 0 | 128
	futexWake = 1 | 128
)

// pingPong bounces a turn between two OS threads through a futex word and returns the time of
// one round trip.
func pingPong(rounds int) (int64, error) {
	var turn uint32 // 0: main's turn, 1: the partner's
	done := make(chan error)
	wait := func(want uint32) {
		for atomic.LoadUint32(&turn) != want {
			syscall.Syscall6(syscall.SYS_FUTEX, uintptr(unsafe.Pointer(&turn)), futexWait, uintptr(1-want), 0, 0, 0)
		}
	}
	pass := func(to uint32) {
		atomic.StoreUint32(&turn, to)
		syscall.Syscall6(syscall.SYS_FUTEX, uintptr(unsafe.Pointer(&turn)), futexWake, 1, 0, 0, 0)
	}
	go func() {
		runtime.LockOSThread()
		for i := 0; i < rounds; i++ {
			wait(1)
			pass(0)
		}
		done <- nil
	}()
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	start := time.Now()
	for i := 0; i < rounds; i++ {
		pass(1)
		wait(0)
	}
	elapsed := time.Since(start)
	if err := <-done; err != nil {
		return 0, err
	}
	return elapsed.Nanoseconds() / int64(rounds), nil
}
