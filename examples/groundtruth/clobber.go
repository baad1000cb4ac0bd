package main

import "time"

// clobberUnits is the work of one call of each clobbering function, the same as leafUnits.
const clobberUnits = 1 << 18

// clobberFP is what the clobbering functions keep in the frame-pointer register while they
// spin: SHA-256's first round constant, as the standard library's AVX2 block function keeps
// its round constants there. It is no stack address, so a frame-pointer walk stops at it.
const clobberFP = 0x6a09e667f3bcc908

// clobberedFramePointer runs the clobber workload until d has passed: clobberCaller, in turn,
// spins in a leaf that keeps data in its frame-pointer register behind a 512-byte frame
// (spinClobbered), and in a function with a frame record of its own called by one that does
// (spinInner under spinUnderClobbered), so that the walk meets the clobbered register at the
// leaf and, in the other half, as the saved frame pointer of a sound frame record.
//
//go:noinline
func clobberedFramePointer(d time.Duration) result {
	clock := startClock(d)
	var r result
	x := uint64(0x9e3779b97f4a7c15)
	for clock.running() {
		x = clobberCaller(x)
		r.calls += 2
		r.units += 2 * clobberUnits
	}
	r.checksum = x
	return r
}

// clobberCaller is the known caller of both clobbering functions.
//
//go:noinline
func clobberCaller(x uint64) uint64 {
	x = spinClobbered(x, clobberUnits, clobberFP)
	return spinUnderClobbered(x, clobberUnits, clobberFP)
}

// spinClobbered runs n xorshift64 steps from x, like spinLeaf, with fp in the frame-pointer
// register (BP, R29) and a 512-byte frame: its return address lies 520 bytes above its SP,
// beyond the two words a sample saves. It restores its frame pointer before it returns, and it
// is safe for the runtime for spinWithFramePointer's reasons (badfp.go).
func spinClobbered(x, n uint64, fp uintptr) uint64

// spinUnderClobbered has a 512-byte frame, puts fp in the frame-pointer register and calls
// spinInner(x, n) with it there, so spinInner's prologue saves fp in its frame record as its
// caller's frame pointer; it restores its own before it returns.
func spinUnderClobbered(x, n uint64, fp uintptr) uint64

// spinInner runs n xorshift64 steps from x in an assembly function with a frame record of its
// own (a small frame). Only spinUnderClobbered calls it.
func spinInner(x, n uint64) uint64
