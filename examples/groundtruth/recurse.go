package main

import "time"

// recursionDepth is how many recurse frames are on the stack while it spins: far more than the
// 64 frames a walk records (trace.MaxDepth), so every sample's walk is truncated, and every
// recorded frame is a return address into recurse.
const recursionDepth = 200

// bottomUnits is how many xorshift steps the bottom frame runs between two calls of
// clock.running: about 0.4 ms under QEMU TCG, chosen like hashRounds.
const bottomUnits = 1 << 17

// recurse calls itself until depth frames of it are on the stack, then the innermost one spins
// until d has passed. Each frame has a frame record (it makes a call), and the recursive call is
// not in tail position, so the frames stay distinct.
//
//go:noinline
func recurse(depth int, d time.Duration) result {
	if depth > 1 {
		r := recurse(depth-1, d)
		r.checksum ^= uint64(depth)
		return r
	}
	clock := startClock(d)
	var r result
	x := uint64(0xd1b54a32d192ed03)
	for clock.running() {
		for range bottomUnits {
			x ^= x << 13
			x ^= x >> 7
			x ^= x << 17
		}
		r.calls++
		r.units += bottomUnits
	}
	r.checksum = x
	return r
}
