package kernel

import (
	"github.com/unitrace/unitrace/sampler"
)

// One local timer per CPU serves two clients: the scheduler tick (tickHz, on VectorTimer) and
// the sampler (its own rate, on VectorSampler). Both keep absolute deadlines in TSC ticks; the
// timer is armed one-shot for whichever comes first, with that client's vector, so a sample
// interrupt is told apart from a tick by its vector and neither rate drifts: each deadline moves
// on by whole periods from the last one, however late the interrupt came.

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

// armNext arms the local timer for the earliest deadline.
func armNext() {
	d, sampler := timers.tickNext, false
	if s := &samplers[0]; s.On() && s.Next() < d {
		d, sampler = s.Next(), true
	}
	armTimer(d, sampler)
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
