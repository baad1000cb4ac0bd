package core

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
// (wakeNext). Each locked entry ends by arming its CPU for it (publishSchedHints, ArmWake), so
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

// TickPeriod is the scheduler tick's period in ticks (the same on every CPU).
var TickPeriod uint64

// SweepAt is the boot CPU's third timer deadline, in ticks, 0 for none: the off-CPU sweep's
// next, which its owner (the kernel's observe package) keeps here, so that arming the timer
// reads a word rather than calling up.
var SweepAt uint64

// Samplers holds each CPU's sampler.
var Samplers [MaxCPUs]sampler.CPU

// InitTimers sets up the boot CPU's timer hardware and starts its scheduler tick. stretch is
// the longest a CPU may go without a tick (ns; see TickStretch).
func InitTimers(stretch int64) {
	machine.InitLocalTimer()
	TickPeriod = max(machine.TicksHz()/tickHz, 1)
	TickStretch = max(uint64(stretch)*machine.TicksHz()/1e9, TickPeriod)
	StartTick()
}

// The tick stops where it has nothing to do: on an idle CPU, and on a CPU that runs the one
// thread it may run, while that thread has no CPU-time timer to check. Sleepers and wall-clock
// timers never waited for it (their own deadline, WakeNext), and a thread that becomes runnable
// reaches a CPU without a tick by a kick, as it reaches an idle one (kickIdleCPU). A stopped
// tick is one whose deadline moved TickStretch ahead: the CPU still takes one then, so that the
// load average and the watchdog, which count on ticks, see it alive.

// TickStretch is how far ahead a stopped tick's deadline moves (ticks): a second, or a quarter
// of the watchdog's period if that is shorter.
var TickStretch uint64

// KeepTick keeps every CPU's tick running (unitrace.tickless=0).
var KeepTick bool

// tickNeeded reports whether this CPU needs its periodic tick: a thread waits that may run here
// (the quantum), or the thread it runs has CPU-time timers to check.
//
//go:nosplit
func tickNeeded() bool {
	return KeepTick || RunnableHere() || (cpuTimersArmed.Load() && !OnIdle())
}

// UpdateTick stops or restarts this CPU's tick as tickNeeded says, in the tick's own interrupt,
// whose handler arms the timer next (ArmNext). A tick stops only there, after a whole period with
// no need of it: stopping writes no timer (the interrupt re-arms for the moved deadline anyway),
// but restarting does, and a thread queued and run again within a period (a wake-up that the
// waker follows by blocking) would pay a timer write each time, which under TCG costs more than
// the tick saves.
//
// It stores TickStopped before it looks at the hints again, as a CPU that queues a thread or
// arms a CPU-time timer publishes that before it looks at TickStopped (KickForRunnable,
// KickTicklessCPUs): whatever happens meanwhile either keeps the tick here or kicks this CPU.
//
//go:nosplit
func UpdateTick() {
	l := Here()
	stopped := l.TickStopped.Load()
	switch needed := tickNeeded(); {
	case needed && stopped:
		restartTick(l)
	case !needed && !stopped:
		l.TickStopped.Store(true)
		if tickNeeded() {
			l.TickStopped.Store(false) // queued meanwhile: keep it
			return
		}
		l.TickNext = machine.Ticks() + TickStretch
	}
}

// RestartTick restarts this CPU's tick, and arms the timer for it, if it is stopped and needed
// again: at the end of every locked kernel entry, after the scheduler's hints are published.
//
//go:nosplit
func RestartTick() {
	if l := Here(); l.TickStopped.Load() && tickNeeded() {
		restartTick(l)
		ArmNext()
	}
}

// restartTick puts l's tick back to its period from now; the caller arms the timer.
//
//go:nosplit
func restartTick(l *CPULocal) {
	l.TickStopped.Store(false)
	l.TickNext = machine.Ticks() + TickPeriod
}

// NextTick moves this CPU's tick deadline on past now, after a tick at or after it: by whole
// periods while the tick runs, TickStretch ahead while it is stopped.
//
//go:nosplit
func NextTick(l *CPULocal, now uint64) {
	if l.TickStopped.Load() {
		l.TickNext = now + TickStretch
		return
	}
	l.TickNext += ((now-l.TickNext)/TickPeriod + 1) * TickPeriod
}

// StartTick starts the scheduler tick on the calling CPU (a secondary's timer needs no
// calibration: the boot CPU's holds for all).
func StartTick() {
	Here().TickNext = machine.Ticks() + TickPeriod
	ArmNext()
}

// ArmNext arms this CPU's timer hardware for the tick's and the sampler's next deadlines. It
// masks interrupts meanwhile: kernel code runs interruptible by the sampler, whose handler arms
// the timer too.
//
//go:nosplit
func ArmNext() {
	flags := machine.MaskInterrupts()
	l := Here()
	s := &Samplers[machine.CPUIndex()&(MaxCPUs-1)]
	machine.ArmTimers(l.TimerDeadline(), s.Next(), s.On(), l.TickHandedOn)
	machine.RestoreInterrupts(flags)
}

// TimerDeadline is when this CPU's tick interrupt is next due: the tick, or an earlier wake-up.
//
//go:nosplit
func (l *CPULocal) TimerDeadline() uint64 {
	d := l.TickNext
	if l.WakeNext != 0 && l.WakeNext < d {
		d = l.WakeNext
	}
	if s := SweepAt; s != 0 && s < d && l == &CPULocals[0] {
		d = s
	}
	return d
}

// SleepSlack is how late a nanosleep may wake after its deadline (ns): Linux's default timer
// slack for a thread (prctl PR_GET_TIMERSLACK, 50 µs). The Go runtime's sysmon sleeps 20 µs at a
// time in nanosleep while threads sit in system calls, and is tuned against that slack: without
// it sysmon woke more often than under Linux and took their Ps away for nothing.
//
// Every other wait wakes at its deadline: epoll and futex timeouts (where the runtime's own
// timers wait) and wall-clock timers. Linux gives epoll and futex timeouts the same slack so
// that the wake-ups of many processes coalesce; one program alone in a machine has nothing to
// coalesce with, and its timers fire when they were asked to.
const SleepSlack = 50_000

// ArmWake arms this CPU's timer for a wake-up at deadline (ns on the kernel's clock), if that is
// earlier than the one it has: the earliest sleeper's or wall-clock timer's.
func ArmWake(deadline int64) {
	l := Here()
	if l.WakeNext != 0 && l.wakeFor <= deadline {
		return // armed for this one or an earlier one already: no conversion on every entry
	}
	l.WakeNext, l.wakeFor = nsToTicks(deadline), deadline
	ArmNext()
}

// nsToTicks is the first counter value at which the kernel's clock (Nanotime) reads at least ns.
func nsToTicks(ns int64) uint64 {
	base, mult := machine.ClockParams()
	return ticksAt(ns, base, mult)
}

// ticksAt is the first counter value at which ns = (ticks - base) * mult >> 32 reaches ns: the
// clock's inverse, rounded up, so that a wake-up never comes before its deadline by the clock
// that checks it.
func ticksAt(ns int64, base, mult uint64) uint64 {
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
