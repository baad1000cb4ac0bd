package trace

import (
	"sync/atomic"

	"github.com/unitrace/unitrace/trace/record"
	"github.com/unitrace/unitrace/trace/ring"
	"github.com/unitrace/unitrace/trace/wire"
)

// countWalk counts how a backtrace walk ended.
//
//go:nosplit
func (cs *cpuState) countWalk(f record.Flags) {
	if f&record.StackTrunc != 0 {
		cs.truncatedStacks.Add(1)
	}
	if f&record.WalkStop != 0 {
		cs.walkStops.Add(1)
	}
}

// CPUStats returns CPU cpu's counters as the STATS frame carries them: its ring's, and the
// walks'. Each counter is read atomically; the set is not a snapshot unless the producer is
// paused.
func CPUStats(cpu int) wire.CPUStats {
	if cpu < 0 || cpu >= MaxCPUs {
		return wire.CPUStats{}
	}
	cs := &cpus[cpu]
	r := cs.ring.Stats()
	return wire.CPUStats{
		CPU:             uint16(cpu),
		Written:         r.Written,
		Bytes:           r.Bytes,
		DroppedFull:     r.Dropped[ring.CauseFull],
		DroppedNested:   r.Dropped[ring.CauseNested],
		DroppedEarly:    r.Dropped[ring.CauseEarly],
		TruncatedStacks: cs.truncatedStacks.Load(),
		WalkStops:       cs.walkStops.Load(),
		SamplerTicks:    cs.samplerTicks.Load(),
		SamplerLate:     cs.samplerLate.Load(),
		Throttled:       cs.throttled.Load(),
		Overwritten:     r.Overwritten,
		DroppedOther:    r.Dropped[ring.CauseInvalid] + r.Dropped[ring.CauseAborted],
		Discarded:       r.Discarded,
		Pending:         r.Pending,
	}
}

// stopped is set by Stop: tracing is over for this boot.
var stopped atomic.Bool

// Stop ends tracing for good: it disables every tracepoint, and Enable refuses from now on. The
// rings keep what they hold for the last drain.
func Stop() {
	stopped.Store(true)
	for i := 0; i < NumPoints(); i++ {
		PointAt(i).state.Store(0)
	}
}

// Stopped reports whether Stop was called.
func Stopped() bool { return stopped.Load() }

// NoteSampler records CPU cpu's sampler counters for STATS (the kernel's sampler keeps them).
//
//go:nosplit
func NoteSampler(cpu int, samples, late, throttles uint64) {
	if cpu < 0 || cpu >= MaxCPUs {
		return
	}
	cs := &cpus[cpu]
	cs.samplerTicks.Store(samples)
	cs.samplerLate.Store(late)
	cs.throttled.Store(throttles)
}
