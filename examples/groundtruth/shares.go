package main

import "time"

// shareUnits is share10's work per round and unit of scale; share30 does three times and share60
// six times as much. With a scale of 1 to 8 a round takes about 0.25 to 2 ms under QEMU TCG on an
// idle host (1.1 ms on average; natively 0.2 to 1.4 ms): a run has thousands of rounds, and the
// three calls and the loop are a negligible part of the time.
const shareUnits = 1 << 13

// shares runs the shares workload until d has passed: in every round it calls share60, share30
// and share10 with 6:3:1 units of the same work, so their true shares of the time are 60%, 30%
// and 10%.
//
// The rounds are short and interleaved, rather than each function running for a block of time,
// and each round's length is scaled by a pseudo-random 1 to 8: a periodic sampler whose period
// were a multiple of a fixed round length would always hit the same phase of the round, and so
// the same function. With random lengths the phase a sample hits is random, and each function's
// chance of being hit is its share of the time.
//
//go:noinline
func shares(d time.Duration) result {
	clock := startClock(d)
	var r result
	x := uint64(0xa0761d6478bd642f)
	rng := uint64(0xe7037ed1a0b428db)
	for clock.running() {
		rng ^= rng << 13
		rng ^= rng >> 7
		rng ^= rng << 17
		n := (1 + int(rng>>61)) * shareUnits
		x = share60(x, 6*n)
		x = share30(x, 3*n)
		x = share10(x, 1*n)
		r.calls += 3
		r.units += 10 * uint64(n)
	}
	r.checksum = x
	return r
}

// share60, share30 and share10 each run n steps of xorshift64 from x and return the result.
// They are the same loop in assembly (see shares_amd64.s for why not Go), so a unit of work
// costs the same in each, natively and under TCG alike; only the counts their caller passes
// differ.

func share60(x uint64, n int) uint64

func share30(x uint64, n int) uint64

func share10(x uint64, n int) uint64
