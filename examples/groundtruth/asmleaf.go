package main

import "time"

// leafUnits is spinLeaf's work per call: about 0.75 ms under QEMU TCG on an idle host (0.55 ms
// natively), sized like hashRounds and for the same reasons.
const leafUnits = 1 << 18

// middle calls the frameless assembly leaf spinLeaf until d has passed. The leaf pushes no frame
// pointer, so a plain frame-pointer walk from a sample in the leaf starts at middle's frame
// record and skips middle itself; only the return address at the leaf's SP (amd64) or the link
// register (arm64) names middle as the caller.
//
//go:noinline
func middle(d time.Duration) result {
	clock := startClock(d)
	var r result
	x := uint64(0x2545f4914f6cdd1d)
	for clock.running() {
		x = spinLeaf(x, leafUnits)
		r.calls++
		r.units += leafUnits
	}
	r.checksum = x
	return r
}

// spinLeaf runs n steps of a xorshift generator from x and returns the result. It is written in
// assembly without a frame: no frame-pointer save, no stack adjustment, so the caller's return
// address stays at 0(SP) on amd64 and in the link register on arm64 for its whole run.
func spinLeaf(x, n uint64) uint64
