package kernel

import (
	"github.com/unitrace/unitrace/sampler"
)

// Two clients share each CPU's timer hardware: the scheduler tick (tickHz) and the sampler (its
// own rate). Both keep absolute deadlines in ticks (the TSC, CNTVCT) and neither rate drifts:
// each deadline moves on by whole periods from the last one, however late the interrupt came.
// armTimers (per arch) programs the hardware: on amd64 the one LAPIC timer, one-shot for the
// earlier deadline on that client's vector; on arm64 the virtual timer for the tick and the
// physical timer for the sampler. Either way the handler takes whatever is due. Every CPU has
// its own deadlines and its own sampler, and only that CPU touches them.

const tickHz = 1000

// tickPeriod is the scheduler tick's period in ticks (the same on every CPU).
var tickPeriod uint64

// samplers holds each CPU's sampler.
var samplers [maxCPUs]sampler.CPU

// initTimers sets up the boot CPU's timer hardware and starts its scheduler tick.
func initTimers() {
	initLocalTimer()
	tickPeriod = max(ticksHz()/tickHz, 1)
	startTick()
}

// startTick starts the scheduler tick on the calling CPU (a secondary's timer needs no
// calibration: the boot CPU's holds for all).
func startTick() {
	here().tickNext = ticks() + tickPeriod
	armNext()
}

// armNext arms this CPU's timer hardware for the tick's and the sampler's next deadlines.
//
//go:nosplit
func armNext() {
	s := &samplers[cpuIndex()&(maxCPUs-1)]
	armTimers(here().tickNext, s.Next(), s.On())
}

// timerInterrupt handles the local timer, whichever vector it came on, without the kernel lock:
// the sample first, while f still holds the interrupted thread, then it re-arms the timer. It
// reports whether the scheduler tick is due; the caller then runs tick. An
// interrupt that comes a little early (the one-shot count is rounded) finds nothing due and
// just arms the timer again.
func timerInterrupt(f *Frame) (tickDue bool) {
	ackTimer()
	now := ticks()
	cpu := cpuIndex() & (maxCPUs - 1)
	if s := &samplers[cpu]; s.Due(now) {
		takeSample(s, now)
	}
	l := &cpuLocals[cpu]
	if now >= l.tickNext {
		l.tickNext += ((now-l.tickNext)/tickPeriod + 1) * tickPeriod
		l.ticks.Add(1)
		tickDue = true
	}
	armNext()
	return tickDue
}
