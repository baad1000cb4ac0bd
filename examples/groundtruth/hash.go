package main

import "time"

// hashLanes is innerHash's state: an array of more than four words is not kept in registers, so
// it lives in innerHash's stack frame and innerHash gets a frame-pointer prologue (PUSHQ BP;
// MOVQ SP, BP on amd64, the FP/LR pair on arm64) although it calls nothing.
const hashLanes = 16

// hashRounds is innerHash's work per call: about 0.6 ms under QEMU TCG on an idle host (0.12 ms
// natively). The call and return, and the few instructions of outerWorkload's loop, are then a
// negligible part of the time, and a call stays well below the 10 ms after which the runtime
// would preempt it (see checkEvery), even when a busy host slows TCG down several times or the
// build happens to put innerHash's loop across a page boundary (see shares_amd64.s).
const hashRounds = 1 << 16

// outerWorkload calls innerHash until d has passed. It is the middle frame of the hash workload's
// known stack, innerHash ← outerWorkload ← main.main.
//
//go:noinline
func outerWorkload(d time.Duration) result {
	clock := startClock(d)
	var r result
	h := uint64(0x9e3779b97f4a7c15)
	for clock.running() {
		h = innerHash(h, hashRounds)
		r.calls++
		r.units += hashRounds
	}
	r.checksum = h
	return r
}

// innerHash mixes seed through rounds steps of a multiply-xorshift over a lane array in its own
// frame. It is the hash workload's hot leaf: a separate Go function with a frame, where nearly
// all samples land.
//
//go:noinline
func innerHash(seed uint64, rounds int) uint64 {
	var lanes [hashLanes]uint64
	for i := range lanes {
		lanes[i] = seed + uint64(i)*0x9e3779b97f4a7c15
	}
	h := seed
	for r := 0; r < rounds; r++ {
		i := r & (hashLanes - 1)
		h = (h ^ lanes[i]) * 0xbf58476d1ce4e5b9
		lanes[i] = h ^ h>>31
	}
	return h
}
