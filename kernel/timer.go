package kernel

import (
	"math/bits"

	"github.com/unitrace/unitrace/kernel/machine"
	"github.com/unitrace/unitrace/sampler"
)

// Two clients share each CPU's timer hardware: the scheduler tick (tickHz) and the sampler (its
// own rate). Both keep absolute deadlines in ticks (the TSC, CNTVCT) and neither rate drifts:
// each deadline moves on by whole periods from the last one, however late the interrupt came.
// The sampler's interrupt is the one that kernel code can take (amd64: the one vector above
// the kernel's task priority; arm64: the one interrupt above the kernel's priority mask), the
// tick's waits for the kernel to return. machine.ArmTimers (per arch) programs the hardware: on amd64
// the one LAPIC timer, on the sampler's vector for the earlier deadline while the sampler runs
// (its handler hands the tick on with a self-IPI on the tick's vector), on the tick's vector
// otherwise; on arm64 the virtual timer for the tick and the physical timer for the sampler.
// Every CPU has its own deadlines and its own sampler, and only that CPU touches them.
//
// A third deadline makes wake-ups precise: the earliest sleeper's or wall-clock timer's
// (wakeNext). Each locked entry ends by arming its CPU for it (publishSchedHints, armWake), so
// the CPU that put a thread to sleep, or armed a timer, takes an interrupt at the deadline
// itself, not at the first tick after it; that interrupt runs the tick's path, which wakes the
// expired sleepers and fires the timers. A sleeper woken early leaves a wake-up that finds
// nothing to do.

// tickHz is the scheduler tick's rate: Linux's HZ in Debian's kernels. The tick preempts
// time-sliced threads and checks the CPU-time timers; sleepers and wall-clock timers do not wait
// for it. Under TCG a tick costs tens of microseconds at times (the local APIC's EOI and re-arm
// take QEMU's global lock, which its main loop holds while it runs), so at 1 kHz it took about
// 5% of a compute loop; see docs/measurements.md.
const tickHz = 250

// tickPeriod is the scheduler tick's period in ticks (the same on every CPU).
var tickPeriod uint64

// samplers holds each CPU's sampler.
var samplers [maxCPUs]sampler.CPU

// initTimers sets up the boot CPU's timer hardware and starts its scheduler tick.
func initTimers() {
	machine.InitLocalTimer()
	tickPeriod = max(machine.TicksHz()/tickHz, 1)
	startTick()
}

// startTick starts the scheduler tick on the calling CPU (a secondary's timer needs no
// calibration: the boot CPU's holds for all).
func startTick() {
	here().tickNext = machine.Ticks() + tickPeriod
	armNext()
}

// armNext arms this CPU's timer hardware for the tick's and the sampler's next deadlines. It
// masks interrupts meanwhile: kernel code runs interruptible by the sampler, whose handler arms
// the timer too.
//
//go:nosplit
func armNext() {
	flags := machine.MaskInterrupts()
	l := here()
	s := &samplers[machine.CPUIndex()&(maxCPUs-1)]
	machine.ArmTimers(l.timerDeadline(), s.Next(), s.On(), l.tickHandedOn)
	machine.RestoreInterrupts(flags)
}

// timerDeadline is when this CPU's tick interrupt is next due: the tick, or an earlier wake-up.
//
//go:nosplit
func (l *cpuLocal) timerDeadline() uint64 {
	d := l.tickNext
	if l.wakeNext != 0 && l.wakeNext < d {
		d = l.wakeNext
	}
	if s := sweepDeadline(); s != 0 && s < d && l == &cpuLocals[0] {
		d = s
	}
	return d
}

// sleepSlack is how late a nanosleep may wake after its deadline (ns): Linux's default timer
// slack for a thread (prctl PR_GET_TIMERSLACK, 50 µs). The Go runtime's sysmon sleeps 20 µs at a
// time in nanosleep while threads sit in system calls, and is tuned against that slack: without
// it sysmon woke more often than under Linux and took their Ps away for nothing.
//
// Every other wait wakes at its deadline: epoll and futex timeouts (where the runtime's own
// timers wait) and wall-clock timers. Linux gives epoll and futex timeouts the same slack so
// that the wake-ups of many processes coalesce; one program alone in a machine has nothing to
// coalesce with, and its timers fire when they were asked to.
const sleepSlack = 50_000

// armWake arms this CPU's timer for a wake-up at deadline (ns on the kernel's clock), if that is
// earlier than the one it has: the earliest sleeper's or wall-clock timer's.
func armWake(deadline int64) {
	l := here()
	if l.wakeNext != 0 && l.wakeFor <= deadline {
		return // armed for this one or an earlier one already: no conversion on every entry
	}
	l.wakeNext, l.wakeFor = nsToTicks(deadline), deadline
	armNext()
}

// nsToTicks is the first counter value at which the kernel's clock (nanotime) reads at least ns:
// the inverse of ns = (ticks - base) * mult >> 32, rounded up, so that a wake-up never comes
// before its deadline by the clock that checks it.
func nsToTicks(ns int64) uint64 {
	base, mult := machine.ClockParams()
	if ns <= 0 {
		return base
	}
	hi, lo := uint64(ns)>>32, uint64(ns)<<32
	if mult == 0 || hi >= mult {
		return ^uint64(0) // beyond the counter: never
	}
	q, r := bits.Div64(hi, lo, mult)
	if r != 0 {
		q++
	}
	return base + q
}
