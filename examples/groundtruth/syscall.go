package main

import (
	"fmt"
	"syscall"
	"time"
	"unsafe"
)

// randomBuf is what each getrandom(2) call fills: large enough that nearly all of a call's time
// is the kernel's work on the buffer, not the way in and out.
var randomBuf [256 << 10]byte

// userUnits is one call of the compute phase's leaf: about 0.1 ms under QEMU TCG, so the phase
// ends within a tenth of a millisecond of its budget.
const userUnits = 1 << 15

// syscallWorkload splits the wall time about evenly between user compute and a system call
// that does kernel work, until d has passed: each round calls sysPhase once (getrandom on
// randomBuf), then userPhase for as long as that took. Each phase's time is measured by the
// clock around it, so the truth is what the run measured, printed as a second line
//
//	groundtruth: syscall user_ns=N sys_ns=N
//
// whatever the two phases cost on the machine at hand.
//
//	sysPhase → fill → syscall.Syscall → ... → getrandom in the kernel   (about half)
//	userPhase → spinLeaf (a frameless assembly leaf)                     (about half)
//
//go:noinline
func syscallWorkload(d time.Duration) result {
	start := time.Now()
	var r result
	var userNs, sysNs int64
	x := uint64(0x9e3779b97f4a7c15)
	for time.Since(start) < d {
		t0 := time.Now()
		r.checksum ^= sysPhase()
		t1 := time.Now()
		sys := t1.Sub(t0)
		x = userPhase(x, sys)
		user := time.Since(t1)
		sysNs += int64(sys)
		userNs += int64(user)
		r.calls++
		r.units += uint64(len(randomBuf))
	}
	r.checksum ^= x
	fmt.Printf("groundtruth: syscall user_ns=%d sys_ns=%d\n", userNs, sysNs)
	return r
}

// sysPhase fills randomBuf with one getrandom call and folds a word of it into the result.
//
//go:noinline
func sysPhase() uint64 {
	fill(randomBuf[:])
	return *(*uint64)(unsafe.Pointer(&randomBuf[0]))
}

// fill is the function that makes the system call: a sample inside the kernel's getrandom must
// reach it through the trap frame.
//
//go:noinline
func fill(b []byte) {
	n, _, errno := syscall.Syscall(sysGetrandom, uintptr(unsafe.Pointer(&b[0])), uintptr(len(b)), 0)
	if errno != 0 || int(n) != len(b) {
		fail(fmt.Sprintf("groundtruth: getrandom(%d bytes) = %d, %v", len(b), n, errno))
	}
}

// userPhase runs the frameless leaf spinLeaf until budget has passed and returns its result.
//
//go:noinline
func userPhase(x uint64, budget time.Duration) uint64 {
	start := time.Now()
	for {
		x = spinLeaf(x, userUnits)
		if time.Since(start) >= budget {
			return x
		}
	}
}
