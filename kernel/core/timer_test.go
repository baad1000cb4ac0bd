package core

import (
	"math/bits"
	"math/rand/v2"
	"testing"
)

// clockAt is the clock's reading at counter value c: the arithmetic of Nanotime and the vDSO,
// (c - base) * mult >> 32.
func clockAt(c, base, mult uint64) int64 {
	hi, lo := bits.Mul64(c-base, mult)
	return int64(hi<<32 | lo>>32)
}

// TestTicksAtInverts checks that ticksAt is the first counter value at which the clock reads the
// deadline: a timer armed for it never fires before the clock that checks it says so.
func TestTicksAtInverts(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for i := 0; i < 100000; i++ {
		base := r.Uint64N(1 << 40)
		mult := 1 + r.Uint64N(1<<34) // from a 250 MHz counter (4 ns a tick) to 4 GHz and slower
		ns := int64(r.Uint64N(1 << 50))
		c := ticksAt(ns, base, mult)
		if c == ^uint64(0) {
			continue
		}
		if got := clockAt(c, base, mult); got < ns {
			t.Fatalf("base %d mult %d: at counter %d the clock reads %d, before the deadline %d", base, mult, c, got, ns)
		}
		if c > base {
			if got := clockAt(c-1, base, mult); got >= ns {
				t.Fatalf("base %d mult %d: counter %d already reads %d >= %d", base, mult, c-1, got, ns)
			}
		}
	}
	if ticksAt(0, 5, 1<<32) != 5 || ticksAt(-1, 5, 1<<32) != 5 {
		t.Fatal("a deadline at or before the clock's zero is not the base")
	}
	if ticksAt(1<<62, 0, 1) != ^uint64(0) {
		t.Fatal("a deadline beyond the counter is not never")
	}
}
