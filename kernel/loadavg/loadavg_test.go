package loadavg

import (
	"math"
	"testing"
)

func TestConverges(t *testing.T) {
	var a Avg
	if !a.Due(1) {
		t.Errorf("a fresh Avg is not due")
	}
	a.Update(1, 3) // starts the clock
	if a.Due(2) || !a.Due(1+Period) {
		t.Errorf("Due: wrong period")
	}
	if a.Load != [3]uint64{} {
		t.Fatalf("first update sampled: %v", a.Load)
	}
	// One minute of 2 active threads: the 1-minute average is 2*(1-1/e) ~ 1.26.
	now := int64(1)
	for i := 0; i < 12; i++ {
		now += Period
		a.Update(now, 2)
	}
	got := float64(a.Load[0]) / Fixed1
	if want := 2 * (1 - 1/math.E); math.Abs(got-want) > 0.02 {
		t.Errorf("1-minute average after a minute: %.3f, want %.3f", got, want)
	}
	if !(a.Load[0] > a.Load[1] && a.Load[1] > a.Load[2] && a.Load[2] > 0) {
		t.Errorf("the averages do not rise in order: %v", a.Load)
	}
	// A long idle stretch caught up in one call decays them all to 0.
	a.Update(now+3600*1e9*10, 0)
	if a.Load != [3]uint64{} {
		t.Errorf("after ten idle hours: %v", a.Load)
	}
	if a.next <= now+3600*1e9*10 {
		t.Errorf("next sample not in the future: %d", a.next)
	}
}

func TestLinuxSteps(t *testing.T) {
	// Linux's calc_load with one active thread from 0: 1*(2048-1884)+2047 >> 11 = 1 ... as
	// the kernel computes it, the first sample of the 1-minute average is (164*2048+2047)/2048.
	if got := calc(0, exp1, Fixed1); got != (164*Fixed1+Fixed1-1)/Fixed1 {
		t.Errorf("calc: %d", got)
	}
	if got := calc(Fixed1, exp1, 0); got != 1884 {
		t.Errorf("decay: %d", got)
	}
}

func TestScaled(t *testing.T) {
	a := Avg{Load: [3]uint64{Fixed1, Fixed1 / 2, 3 * Fixed1}}
	if got := a.Scaled(16); got != [3]uint64{1 << 16, 1 << 15, 3 << 16} {
		t.Errorf("Scaled(16) = %v", got)
	}
	if got := a.Scaled(8); got != [3]uint64{1 << 8, 1 << 7, 3 << 8} {
		t.Errorf("Scaled(8) = %v", got)
	}
	a.Update(-5, -3) // nonsense input changes nothing dangerous
}
