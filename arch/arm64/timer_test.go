package arm64

import (
	"math/big"
	"math/rand"
	"testing"
)

func TestTimerINTID(t *testing.T) {
	if TimerVirtual.INTID() != 27 || TimerPhysical.INTID() != 30 {
		t.Error("timer INTIDs: want 27 (virtual) and 30 (non-secure physical)")
	}
}

// TestTicksToNanos compares the fixed-point conversion with exact arithmetic at QEMU's 62.5 MHz
// and other common counter frequencies, over a century of ticks.
func TestTicksToNanos(t *testing.T) {
	rng := rand.New(rand.NewSource(1))
	for _, hz := range []uint64{62_500_000, 24_000_000, 19_200_000, 1_000_000_000, 1_000_000} {
		mult := nanosMult(hz)
		for i := 0; i < 2000; i++ {
			ticks := uint64(rng.Int63n(int64(hz) * 86400 * 365 * 100))
			if i == 0 {
				ticks = 0
			}
			got := ticksToNanos(ticks, mult)
			exact := new(big.Int).Mul(new(big.Int).SetUint64(ticks), big.NewInt(1_000_000_000))
			exact.Div(exact, new(big.Int).SetUint64(hz))
			// The 32.32 multiplier is truncated: an error of up to ticks/2^32 ns (plus one).
			slack := int64(ticks>>32) + 1
			if d := exact.Int64() - got; d < 0 || d > slack {
				t.Fatalf("%d Hz, %d ticks: %d ns, exact %d", hz, ticks, got, exact.Int64())
			}
		}
	}
	if got := ticksToNanos(62_500_000, nanosMult(62_500_000)); got != 1_000_000_000 {
		t.Errorf("one second at 62.5 MHz = %d ns", got)
	}
}
