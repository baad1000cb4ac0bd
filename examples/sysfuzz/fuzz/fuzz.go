// Package fuzz is the pure logic of the system-call fuzzer examples/sysfuzz: its random numbers
// (a generator that a seed and a call index determine alone, so that the host's Linux and the
// guest can be handed the same argument list), the choice of interesting integers, lengths and
// flags, the path names it may use (never one outside its scratch directory: Safe checks each
// before a call), and the report (per call: count, successes and each errno with its count) with
// its text form, its parser and the comparison of two reports. It builds and is tested on the
// host; the program supplies the memory and the descriptors.
package fuzz

import "math/bits"

// Rand is a splitmix64 generator: small, fast, and the same sequence on every machine.
type Rand struct{ s uint64 }

// New returns the generator of stream within seed: in the deterministic mode, stream is the
// call's index, so each call's arguments depend on the seed and the index only.
func New(seed, stream uint64) *Rand {
	r := &Rand{s: seed*0x9e3779b97f4a7c15 + stream*0xd1b54a32d192ed03 + 0x2545f4914f6cdd1d}
	r.Uint64()
	return r
}

// Uint64 returns the next 64 random bits.
func (r *Rand) Uint64() uint64 {
	r.s += 0x9e3779b97f4a7c15
	z := r.s
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9
	z = (z ^ (z >> 27)) * 0x94d049bb133111eb
	return z ^ (z >> 31)
}

// Intn returns a number in [0, n); n must be positive.
func (r *Rand) Intn(n int) int {
	hi, _ := bits.Mul64(r.Uint64(), uint64(n))
	return int(hi)
}

// Chance is true with probability num/den.
func (r *Rand) Chance(num, den int) bool { return r.Intn(den) < num }

// Pick returns one of vs.
func Pick[T any](r *Rand, vs ...T) T { return vs[r.Intn(len(vs))] }

// Int returns an interesting integer: 0, 1, -1, the limits of 32 and 64 bits, a small number or
// random bits.
func Int(r *Rand) uint64 {
	switch r.Intn(10) {
	case 0:
		return 0
	case 1:
		return 1
	case 2:
		return ^uint64(0)
	case 3:
		return Pick(r, uint64(0x7fffffff), 0x80000000, 0xffffffff, 0x7fffffffffffffff, 1<<63, 1<<32)
	case 4, 5, 6:
		return uint64(r.Intn(64))
	case 7:
		return uint64(r.Intn(4096))
	case 8:
		return r.Uint64() & 0xffffffff
	}
	return r.Uint64()
}

// Len returns a length for a buffer of size good bytes: mostly within it, sometimes 0, one past
// it, or huge (the kernel must stop at the first byte it cannot reach).
func Len(r *Rand, good int) uint64 {
	switch r.Intn(12) {
	case 0:
		return 0
	case 1:
		return uint64(good) + 1 + uint64(r.Intn(8192))
	case 2:
		return Pick(r, uint64(1)<<31, 1<<32+8, 0x7ffff000, 1<<62, ^uint64(0), ^uint64(0)>>1)
	}
	if good <= 0 {
		return uint64(r.Intn(16))
	}
	if r.Chance(1, 3) {
		return uint64(good)
	}
	return uint64(r.Intn(good + 1))
}

// Flags returns a combination of known: usually a few of them, sometimes 0, sometimes random
// bits on top.
func Flags(r *Rand, known ...uint64) uint64 {
	switch r.Intn(8) {
	case 0:
		return 0
	case 1:
		return r.Uint64() & 0xffffffff
	case 2:
		return 1 << uint(r.Intn(32))
	}
	var f uint64
	if len(known) == 0 {
		return f
	}
	for range r.Intn(3) + 1 {
		f |= known[r.Intn(len(known))]
	}
	return f
}

// Off returns a file offset: small, page-sized, large, negative or at the limits.
func Off(r *Rand) uint64 {
	switch r.Intn(8) {
	case 0:
		return 0
	case 1:
		return ^uint64(0) // -1
	case 2:
		return Pick(r, uint64(1)<<62, 1<<63, 0x7fffffffffffffff, 1<<40, 1<<31)
	case 3:
		return uint64(r.Intn(1 << 20))
	}
	return uint64(r.Intn(16384))
}
