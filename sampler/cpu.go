package sampler

// CPU is one CPU's sampler. Only that CPU uses it, from its timer interrupt or with interrupts
// masked, so it needs no locks.
type CPU struct {
	on          bool
	hz          uint32           // the current rate (throttling lowers it)
	period      uint64           // ticks between samples at hz
	next        uint64           // tick count the next sample is due at: grid plus a random jitter
	grid        uint64           // the next deadline of the fixed-rate grid (no jitter)
	rng         uint64           // xorshift state for the jitter
	tickHz      uint64           // ticks per second
	costSamples uint64           // costs recorded since Start or the last throttle
	costs       [costKeep]uint32 // the last costKeep handler costs, for CostPercentiles
	ncosts      uint64

	// Counters, cumulative since boot.
	Samples   uint64 // ticks that took a sample
	Late      uint64 // ticks that came after their deadline by more than a tenth of a period
	Missed    uint64 // deadlines that passed without a tick of their own (carried as weight)
	Throttles uint64 // rate reductions
}

// Start turns the sampler on at hz, with ticks counting tickHz per second. The grid of
// deadlines starts at now plus offset modulo one period, and each sample is due at its grid
// point plus a random jitter of up to half a period (offset seeds it): a periodic sampler whose
// phase stayed fixed against other periodic work (the scheduler tick, at a divisor of 1 kHz, and
// the runtime's sysmon wakes on it) would see the same instants of that work in every period,
// not a fair share of the time. The jitter never accumulates: the grid keeps the exact rate.
// Rates CheckHz would refuse are the caller's to refuse; Start clamps them into range instead of
// misbehaving.
func (c *CPU) Start(hz uint32, tickHz, now, offset uint64) {
	hz = max(hz, 1)
	hz = min(hz, MaxForcedHz)
	c.on, c.hz, c.tickHz = true, hz, max(tickHz, 1)
	c.period = max(c.tickHz/uint64(hz), 1)
	c.grid = now + offset%c.period
	c.rng = offset | 1
	c.next = c.grid + c.jitter()
	c.costSamples = 0
}

// jitter returns a random offset in [0, period/2) (xorshift64).
func (c *CPU) jitter() uint64 {
	c.rng ^= c.rng << 13
	c.rng ^= c.rng >> 7
	c.rng ^= c.rng << 17
	span := c.period / 2
	if span == 0 {
		return 0
	}
	return c.rng % span
}

// Stop turns the sampler off. A tick that still arrives finds it off and takes no sample.
func (c *CPU) Stop() { c.on = false }

// On reports whether the sampler runs.
func (c *CPU) On() bool { return c.on }

// Hz returns the current rate (0 when off).
func (c *CPU) Hz() uint32 {
	if !c.on {
		return 0
	}
	return c.hz
}

// Next returns the tick count the next sample is due at; meaningful only while On.
func (c *CPU) Next() uint64 { return c.next }

// Period returns the ticks between samples at the current rate.
func (c *CPU) Period() uint64 { return c.period }

// Due reports whether a sample is due at now.
func (c *CPU) Due(now uint64) bool { return c.on && now >= c.next }

// Fire takes the due tick at now: it returns how many ticks late the tick is against its
// deadline, and how many grid points the sample stands for. It moves the grid on by whole
// periods past now, so the rate stays exact however late a tick comes (fixed-rate re-arm: no
// drift), and counts the grid points that passed unseen as missed rather than firing them in a
// burst: the sample carries them as its weight, so the time they stood for is not lost. Then
// it draws the next deadline's jitter.
func (c *CPU) Fire(now uint64) (late, weight uint64) {
	late = now - c.next
	c.Samples++
	if late > c.period/10 {
		c.Late++
	}
	k := uint64(1)
	if now >= c.grid {
		k = (now-c.grid)/c.period + 1
	}
	c.Missed += k - 1
	c.grid += k * c.period
	c.next = c.grid + c.jitter()
	return late, k
}

// The throttle decides on the median cost of the last costWindow samples. A median, not an
// average: under TCG with more vCPUs than host cores a vCPU loses its host core in the middle of
// a handler now and then, and that one "cost" of several milliseconds is the host's, not the
// handler's; an average let each such outlier halve the rate (4 vCPUs on 2 cores throttled 1 kHz
// to 125 Hz), while a handler that is really too slow is slow in most samples. costWarmup is how
// many samples after Start are left out: the first runs of the handler are slow under TCG, which
// translates its code then, and must not halve the rate.
const (
	costWindow = 9
	costWarmup = 8
	costKeep   = 4096 // handler costs kept for percentiles
)

// CostPercentiles returns the median and 99th percentile of the last handler costs (in ticks),
// and how many costs they are computed from. It sorts the kept costs in place, so call it once
// the sampler is done (at exit).
func (c *CPU) CostPercentiles() (p50, p99 uint64, n int) {
	n = int(min(c.ncosts, costKeep))
	if n == 0 {
		return 0, 0, 0
	}
	v := c.costs[:n]
	insertionSort(v)
	return uint64(v[n/2]), uint64(v[min(n*99/100, n-1)]), n
}

// insertionSort sorts v in place without allocating (n is at most costKeep, once, at exit).
func insertionSort(v []uint32) {
	for i := 1; i < len(v); i++ {
		x := v[i]
		j := i
		for j > 0 && v[j-1] > x {
			v[j] = v[j-1]
			j--
		}
		v[j] = x
	}
}

// Cost accounts the handler's cost for the tick just taken, in ticks. When the median cost of
// the last costWindow samples exceeds a quarter of the period the rate is halved (never below
// 1 Hz) and Cost returns the old and new rates for the THROTTLE record; the next decision waits
// for a full window at the new rate.
func (c *CPU) Cost(ticks uint64) (throttled bool, oldHz, newHz uint32) {
	if !c.on {
		return false, 0, 0
	}
	c.costs[c.ncosts%costKeep] = uint32(min(ticks, 1<<32-1))
	c.ncosts++
	c.costSamples++
	if c.costSamples < costWarmup+costWindow || c.hz <= 1 || !c.medianOver(c.period/4) {
		return false, 0, 0
	}
	oldHz = c.hz
	c.hz = max(c.hz/2, 1)
	c.period = max(c.tickHz/uint64(c.hz), 1)
	c.Throttles++
	c.costSamples = costWarmup // the window refills at the new rate
	return true, oldHz, c.hz
}

// medianOver reports whether the median of the last costWindow costs exceeds limit: whether
// more than half of them do. Counting, not sorting, keeps the sampler's interrupt cheap.
func (c *CPU) medianOver(limit uint64) bool {
	over := 0
	for i := uint64(0); i < costWindow; i++ {
		if uint64(c.costs[(c.ncosts-1-i)%costKeep]) > limit {
			over++
		}
	}
	return over > costWindow/2
}

// NsFromTicks converts a tick count at this CPU's tick rate to nanoseconds.
func (c *CPU) NsFromTicks(t uint64) uint64 {
	if c.tickHz == 0 {
		return 0
	}
	s := t / c.tickHz
	r := t % c.tickHz
	return s*1_000_000_000 + r*1_000_000_000/c.tickHz
}
