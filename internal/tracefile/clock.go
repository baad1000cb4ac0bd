package tracefile

import (
	"math/bits"
	"sort"
)

// Clock converts raw ticks to nanoseconds since boot from reference pairs:
// HELLO's (ref_ticks, ref_ns), and every CLOCK record and frame. A tick
// count converts from the latest pair at or before it (the earliest pair if
// it precedes them all) at HELLO's tick rate, so drift is corrected each
// time a new pair arrives. Without a rate (tick_hz 0) ticks count as ns.
type Clock struct {
	hz    uint64
	pairs []clockPair // sorted by ticks
}

type clockPair struct{ ticks, ns uint64 }

// SetRate sets the tick rate (HELLO's tick_hz).
func (c *Clock) SetRate(hz uint64) { c.hz = hz }

// Rate returns the tick rate.
func (c *Clock) Rate() uint64 { return c.hz }

// Add records a (ticks, ns since boot) pair. A pair with the same ticks as a
// known one replaces it.
func (c *Clock) Add(ticks, ns uint64) {
	i := sort.Search(len(c.pairs), func(i int) bool { return c.pairs[i].ticks >= ticks })
	if i < len(c.pairs) && c.pairs[i].ticks == ticks {
		c.pairs[i].ns = ns
		return
	}
	c.pairs = append(c.pairs, clockPair{})
	copy(c.pairs[i+1:], c.pairs[i:])
	c.pairs[i] = clockPair{ticks, ns}
}

// Known reports whether the clock has a reference pair.
func (c *Clock) Known() bool { return len(c.pairs) > 0 }

// Ns converts ticks to ns since boot. With no reference pair it returns the
// ticks scaled by the rate from 0.
func (c *Clock) Ns(ticks uint64) int64 {
	var p clockPair
	if len(c.pairs) > 0 {
		i := sort.Search(len(c.pairs), func(i int) bool { return c.pairs[i].ticks > ticks })
		if i > 0 {
			i--
		}
		p = c.pairs[i]
	}
	base := int64(min(p.ns, 1<<63-1))
	if ticks >= p.ticks {
		d := c.scale(ticks - p.ticks)
		if base > 1<<63-1-d {
			return 1<<63 - 1
		}
		return base + d
	}
	return base - c.scale(p.ticks-ticks) // both non-negative: cannot overflow
}

// scale converts a tick delta to ns, saturating instead of overflowing.
func (c *Clock) scale(d uint64) int64 {
	const maxNs = 1<<63 - 1
	if c.hz == 0 {
		return int64(min(d, maxNs))
	}
	hi, lo := bits.Mul64(d, 1e9)
	if hi >= c.hz {
		return maxNs
	}
	q, _ := bits.Div64(hi, lo, c.hz)
	return int64(min(q, maxNs))
}
