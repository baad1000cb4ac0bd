package kernel

import (
	"github.com/unitrace/unitrace/sampler"
)

// Two clients share each CPU's timer hardware: the scheduler tick (tickHz) and the sampler (its
// own rate). Both keep absolute deadlines in ticks (the TSC, CNTVCT) and neither rate drifts:
// each deadline moves on by whole periods from the last one, however late the interrupt came.
// armTimers (per arch) programs the hardware: on amd64 the one LAPIC timer, one-shot for the
// earlier deadline on that client's vector; on arm64 the virtual timer for the tick and the
// physical timer for the sampler. Either way the handler takes whatever is due.

const tickHz = 1000

var timers struct {
	tickNext, tickPeriod uint64 // the scheduler tick's next deadline and period (TSC ticks)
}

// samplers holds each CPU's sampler (one CPU for now).
var samplers [1]sampler.CPU

// initTimers starts the scheduler tick on this CPU.
func initTimers() {
	initLocalTimer()
	timers.tickPeriod = max(ticksHz()/tickHz, 1)
	timers.tickNext = ticks() + timers.tickPeriod
	armNext()
}

// armNext arms this CPU's timer hardware for the tick's and the sampler's next deadlines.
func armNext() {
	s := &samplers[0]
	armTimers(timers.tickNext, s.Next(), s.On())
}

// timerInterrupt handles the local timer, whichever vector it came on: first the sample, while
// f still holds the interrupted thread (the tick may switch threads), then the tick. An
// interrupt that comes a little early (the one-shot count is rounded) finds nothing due and
// just arms the timer again.
func timerInterrupt(f *Frame) {
	ackTimer()
	now := ticks()
	if s := &samplers[0]; s.Due(now) {
		takeSample(s, now)
	}
	if now >= timers.tickNext {
		timers.tickNext += ((now-timers.tickNext)/timers.tickPeriod + 1) * timers.tickPeriod
		tick(f)
	}
	armNext()
}
