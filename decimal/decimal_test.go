package decimal

import (
	"math"
	"math/rand/v2"
	"strconv"
	"testing"
)

// TestUint: the digits are strconv's, at the edges and for random values of every length.
func TestUint(t *testing.T) {
	values := []uint64{0, 1, 9, 10, 99, 100, math.MaxUint32, math.MaxUint64 / 10, math.MaxUint64 - 1, math.MaxUint64}
	r := rand.New(rand.NewPCG(1, 2))
	for range 10000 {
		values = append(values, r.Uint64()>>r.IntN(64))
	}
	for _, v := range values {
		var d Digits
		if got, want := string(d.Uint(v)), strconv.FormatUint(v, 10); got != want {
			t.Fatalf("Uint(%d) = %q, want %q", v, got, want)
		}
	}
}

// TestUintNoAllocation: formatting into a Digits on the stack allocates nothing.
func TestUintNoAllocation(t *testing.T) {
	var sink int
	allocs := testing.AllocsPerRun(100, func() {
		var d Digits
		sink += len(d.Uint(math.MaxUint64))
	})
	if allocs != 0 {
		t.Errorf("Uint allocates %v times per run", allocs)
	}
	if sink == 0 {
		t.Error("no digits")
	}
}
