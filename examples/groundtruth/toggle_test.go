package main

import (
	"math"
	"strings"
	"testing"
	"time"
)

// TestPairOverheads: each on phase is set against the mean of the off phases around it, so a
// host that slows down steadily over the run charges the profiler nothing.
func TestPairOverheads(t *testing.T) {
	// Off phases fall from 100 to 80 in steps of 10; the on phases lose 5% against their
	// neighbours' mean.
	rates := []float64{100, 0.95 * 95, 90, 0.95 * 85, 80}
	got := pairOverheads(rates)
	if len(got) != 2 {
		t.Fatalf("pairOverheads = %v, want two pairs", got)
	}
	for _, v := range got {
		if math.Abs(v-0.05) > 1e-9 {
			t.Errorf("pair overhead %v, want 0.05", v)
		}
	}
	if got := pairOverheads([]float64{100, 90}); len(got) != 0 {
		t.Errorf("an on phase without an off phase after it gave %v", got)
	}
}

// TestToggleLine: the report gives the median and every pair.
func TestToggleLine(t *testing.T) {
	line := toggleLine(250*time.Millisecond, []float64{0.04, 0.10, 0.02})
	for _, want := range []string{"phase=250ms", "pairs=3", "overhead=4.00%", "each: 4.00 10.00 2.00"} {
		if !strings.Contains(line, want) {
			t.Errorf("%q lacks %q", line, want)
		}
	}
	if line := toggleLine(time.Second, nil); !strings.Contains(line, "pairs=0") {
		t.Errorf("no pairs: %q", line)
	}
}
