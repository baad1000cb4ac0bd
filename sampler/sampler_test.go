package sampler

import (
	"math/rand/v2"
	"testing"
)

func TestParseHz(t *testing.T) {
	for _, tt := range []struct {
		s     string
		force bool
		hz    uint32
		err   Err
	}{
		{"1000", false, 1000, OK},
		{"1", false, 1, OK},
		{"10000", false, 10000, OK},
		{"10001", false, 0, ErrTooFast},
		{"10001", true, 10001, OK},
		{"100000", true, 100000, OK},
		{"100001", true, 0, ErrTooFastForced},
		{"99999999999999999999", true, 0, ErrTooFastForced},
		{"0", false, 0, ErrZero},
		{"", false, 0, ErrNotNumber},
		{"-5", false, 0, ErrNotNumber},
		{"+5", false, 0, ErrNotNumber},
		{"1e3", false, 0, ErrNotNumber},
		{"10.5", false, 0, ErrNotNumber},
		{"1k", false, 0, ErrNotNumber},
		{"abc", false, 0, ErrNotNumber},
	} {
		hz, err := ParseHz(tt.s, tt.force)
		if hz != tt.hz || err != tt.err {
			t.Errorf("ParseHz(%q, %v) = %d, %v; want %d, %v", tt.s, tt.force, hz, err, tt.hz, tt.err)
		}
		if err != OK && err.String() == "" {
			t.Errorf("%v has no message", err)
		}
	}
}

// Ticks taken at random lateness never drift: the grid stays on the original one, every
// deadline lies in [grid point, grid point + period/2), and samples plus missed deadlines count
// the grid points passed.
func TestFixedRateNoDrift(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	var c CPU
	const tickHz = 2_000_000_000
	c.Start(1000, tickHz, 5_000, 123_456)
	first := c.grid
	if first < 5_000 || first >= 5_000+c.Period() {
		t.Fatalf("first grid point %d not within one period of start", first)
	}
	var phases [8]int
	var weights uint64
	for i := 0; i < 10000; i++ {
		j := c.Next() - c.grid
		if j >= c.Period()/2 {
			t.Fatalf("jitter %d of a period %d", j, c.Period())
		}
		phases[j*8/(c.Period()/2)]++
		now := c.Next() + uint64(rng.IntN(int(c.Period()/3)))
		if rng.IntN(100) == 0 {
			now += 3 * c.Period() // interrupts masked for a while
		}
		if !c.Due(now) || c.Due(c.Next()-1) {
			t.Fatal("Due does not match the deadline")
		}
		deadline := c.Next()
		gridBefore := c.grid
		late, weight := c.Fire(now)
		if late != now-deadline {
			t.Fatalf("late %d, want %d", late, now-deadline)
		}
		if weight != (c.grid-gridBefore)/c.Period() || weight == 0 {
			t.Fatalf("weight %d for %d grid points passed", weight, (c.grid-gridBefore)/c.Period())
		}
		weights += weight
		if (c.grid-first)%c.Period() != 0 || c.grid <= now {
			t.Fatalf("grid %d off the grid or not in the future (now %d)", c.grid, now)
		}
	}
	if got := c.Samples + c.Missed; got != (c.grid-first)/c.Period() {
		t.Errorf("samples %d + missed %d != periods elapsed %d", c.Samples, c.Missed, (c.grid-first)/c.Period())
	}
	if weights != c.Samples+c.Missed {
		t.Errorf("the samples' weights add up to %d, want samples + missed = %d", weights, c.Samples+c.Missed)
	}
	if c.Missed == 0 || c.Late == 0 {
		t.Errorf("missed %d, late %d: the test did not exercise them", c.Missed, c.Late)
	}
	for i, n := range phases { // the jitter spreads over its whole range
		if n < 10000/8/2 {
			t.Errorf("jitter bucket %d has %d of 10000 samples: %v", i, n, phases)
		}
	}
}

func TestThrottle(t *testing.T) {
	var c CPU
	c.Start(10000, 1_000_000_000, 0, 0) // period 100000 ticks
	// One slow sample (cold code) does not throttle; a sustained quarter does not either.
	if th, _, _ := c.Cost(90000); th {
		t.Fatal("throttled on the first sample")
	}
	for i := 0; i < 100; i++ {
		if th, _, _ := c.Cost(25000); th {
			t.Fatalf("throttled at a quarter of the period after %d samples", i)
		}
	}
	n := 0
	for {
		n++
		th, old, nw := c.Cost(40000)
		if th {
			if old != 10000 || nw != 5000 || c.Period() != 200000 || c.Hz() != 5000 || c.Throttles != 1 {
				t.Fatalf("throttle: %d->%d, period %d", old, nw, c.Period())
			}
			break
		}
		if n > 50 {
			t.Fatal("a sustained 40% cost never throttled")
		}
	}
	for c.Hz() > 1 {
		c.Cost(1 << 40)
	}
	if th, _, _ := c.Cost(1 << 40); th || c.Hz() != 1 {
		t.Fatalf("rate went below 1 Hz: %d", c.Hz())
	}
	c.Start(1000, 1_000_000_000, 0, 0)
	if c.Hz() != 1000 || c.costSamples != 0 {
		t.Fatal("Start did not reset the rate and the cost average")
	}
}

// TestThrottleIgnoresOutliers: a handler whose vCPU loses its host core now and then has rare
// costs of many periods; the rate must hold while most samples are cheap.
func TestThrottleIgnoresOutliers(t *testing.T) {
	var c CPU
	c.Start(1000, 1_000_000_000, 0, 0) // period 1_000_000 ticks
	for i := 0; i < 10000; i++ {
		cost := uint64(20_000)
		if i%4 == 0 {
			cost = 4_000_000 // four periods
		}
		if th, _, _ := c.Cost(cost); th {
			t.Fatalf("throttled after %d samples by outliers", i)
		}
	}
}

func TestStopped(t *testing.T) {
	var c CPU
	if c.Due(1<<60) || c.Hz() != 0 {
		t.Fatal("a sampler never started is due")
	}
	c.Start(100, 1000, 0, 0)
	c.Stop()
	if c.Due(1<<60) || c.Hz() != 0 {
		t.Fatal("a stopped sampler is due")
	}
	if th, _, _ := c.Cost(1 << 40); th {
		t.Fatal("a stopped sampler throttled")
	}
}

func TestStartClamps(t *testing.T) {
	var c CPU
	c.Start(0, 0, 0, 0) // no division by zero, no zero period
	if c.Hz() != 1 || c.Period() == 0 {
		t.Fatalf("hz %d period %d", c.Hz(), c.Period())
	}
	c.Start(1_000_000, 1000, 0, 0)
	if c.Hz() != MaxForcedHz || c.Period() != 1 {
		t.Fatalf("hz %d period %d", c.Hz(), c.Period())
	}
	if ns := c.NsFromTicks(1500); ns != 1_500_000_000 {
		t.Fatalf("NsFromTicks = %d", ns)
	}
}

func TestCostPercentiles(t *testing.T) {
	var c CPU
	c.Start(1000, 1_000_000_000, 0, 0)
	if _, _, n := c.CostPercentiles(); n != 0 {
		t.Fatal("percentiles without costs")
	}
	for i := 1; i <= 1000; i++ {
		c.Cost(uint64(1001 - i)) // 1000 down to 1
	}
	p50, p99, n := c.CostPercentiles()
	if n != 1000 || p50 != 501 || p99 != 991 {
		t.Fatalf("p50 %d p99 %d n %d", p50, p99, n)
	}
}
