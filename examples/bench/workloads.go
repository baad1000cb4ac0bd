package main

import (
	"runtime"
	"sync/atomic"
	"syscall"
	"time"
	"unsafe"
)

// clockRead: one time.Now (the runtime's wall and monotonic reads).
func clockRead() float64 {
	var sink int64
	ns := perOp(50_000, func() { sink += time.Now().UnixNano() })
	_ = sink
	return ns
}

// rawSyscall: one getppid round trip into the kernel and back, nothing else.
func rawSyscall() float64 {
	return perOp(50_000, func() { syscall.RawSyscall(syscall.SYS_GETPPID, 0, 0, 0) })
}

const (
	futexWait = 0 | 128 // FUTEX_WAIT | FUTEX_PRIVATE_FLAG
	futexWake = 1 | 128
)

// futexPingPong: a turn passed between two OS threads through a futex word and back (two
// wake-ups, two switches).
func futexPingPong() float64 {
	const rounds = 5000
	var turn uint32
	done := make(chan struct{})
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
		close(done)
	}()
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	start := time.Now()
	for i := 0; i < rounds; i++ {
		pass(1)
		wait(0)
	}
	elapsed := time.Since(start)
	<-done
	return float64(elapsed.Nanoseconds()) / rounds
}

// chanPingPong: a value sent on an unbuffered channel to another goroutine and back.
func chanPingPong() float64 {
	const rounds = 20_000
	ping, pong := make(chan int), make(chan int)
	go func() {
		for v := range ping {
			pong <- v
		}
	}()
	ns := perOp(rounds, func() { ping <- 1; <-pong })
	close(ping)
	return ns
}

// sleep50: time.Sleep(50 µs), in µs per sleep.
func sleep50() float64 {
	return perOp(200, func() { time.Sleep(50 * time.Microsecond) }) / 1e3
}

// timerLateness: how late a 1 ms timer fires, in µs.
func timerLateness() float64 {
	const n = 100
	var late time.Duration
	for i := 0; i < n; i++ {
		start := time.Now()
		t := time.NewTimer(time.Millisecond)
		<-t.C
		late += time.Since(start) - time.Millisecond
	}
	return float64(late.Nanoseconds()) / n / 1e3
}

// copyBench copies size bytes between two buffers until 64 MiB have moved and returns the time
// per MiB.
func copyBench(size int) float64 {
	src, dst := make([]byte, size), make([]byte, size)
	for i := range src {
		src[i] = byte(i)
	}
	const total = 64 << 20
	n := total / size
	ns := perOp(n, func() { copy(dst, src) })
	return ns * float64(1<<20) / float64(size)
}

// copyFresh copies 1 MiB into memory mapped just before, so that every page of it is touched
// for the first time (a page fault each: the kernel's cost of a program's fresh memory), and
// unmaps it; in ns per MiB.
func copyFresh() float64 {
	const size = 1 << 20
	src := make([]byte, size)
	for i := range src {
		src[i] = byte(i)
	}
	return perOp(32, func() {
		dst, err := syscall.Mmap(-1, 0, size, syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_PRIVATE|syscall.MAP_ANON)
		if err != nil {
			panic(err)
		}
		copy(dst, src)
		if err := syscall.Munmap(dst); err != nil {
			panic(err)
		}
	})
}

func copySmall() float64 { return copyBench(64 << 10) }
func copyLarge() float64 { return copyBench(1 << 20) }

// allocGC: allocations of 16-256 bytes, one in sixteen kept in a ring of 64 Ki live objects, so
// the collector runs throughout; in ns per allocation.
func allocGC() float64 {
	const n = 300_000
	keep := make([][]byte, 1<<16)
	i := 0
	ns := perOp(n, func() {
		b := make([]byte, 16+(i*37)%241)
		if i%16 == 0 {
			keep[(i/16)&(len(keep)-1)] = b
		}
		i++
	})
	runtime.KeepAlive(keep)
	return ns
}

// compute: a xorshift loop with no memory traffic and no system call, in ns per 1000 steps.
func compute() float64 {
	const steps = 20_000_000
	x := uint64(0x9e3779b97f4a7c15)
	start := time.Now()
	for i := 0; i < steps; i++ {
		x ^= x << 13
		x ^= x >> 7
		x ^= x << 17
	}
	elapsed := time.Since(start)
	if x == 0 {
		println("unreachable")
	}
	return float64(elapsed.Nanoseconds()) / (steps / 1000)
}
