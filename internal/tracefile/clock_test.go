package tracefile

import "testing"

func TestClock(t *testing.T) {
	var c Clock
	c.SetRate(2_000_000_000) // 2 GHz: 2 ticks per ns
	if got := c.Ns(2000); got != 1000 {
		t.Errorf("no pairs: Ns(2000) = %d, want 1000", got)
	}
	c.Add(10_000, 100)    // HELLO reference
	c.Add(1_000_000, 600) // a CLOCK pair: the guest's clock ran slow
	tests := []struct {
		ticks uint64
		want  int64
	}{
		{10_000, 100},
		{12_000, 1100},
		{8_000, -900},      // before every pair: extrapolated back from the first
		{1_000_000, 600},   // exactly on the second pair
		{1_000_200, 700},   // after it, from it
		{999_998, 495_099}, // still from the first pair
	}
	for _, tt := range tests {
		if got := c.Ns(tt.ticks); got != tt.want {
			t.Errorf("Ns(%d) = %d, want %d", tt.ticks, got, tt.want)
		}
	}
	c.Add(10_000, 50) // same ticks: replaces
	if got := c.Ns(10_000); got != 50 {
		t.Errorf("replaced pair: %d", got)
	}
	var slow Clock // 1 Hz: a huge tick count saturates instead of wrapping
	slow.SetRate(1)
	slow.Add(0, 1<<62)
	if got := slow.Ns(1 << 40); got != 1<<63-1 {
		t.Errorf("saturation: %d", got)
	}
	var raw Clock // no rate: ticks are ns
	raw.Add(5, 5)
	if got := raw.Ns(25); got != 25 {
		t.Errorf("rate 0: %d", got)
	}
}
