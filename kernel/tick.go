package kernel

import (
	"github.com/unitrace/unitrace/kernel/core"
	"github.com/unitrace/unitrace/kernel/machine"
	"github.com/unitrace/unitrace/kernel/observe"
	"github.com/unitrace/unitrace/kernel/syscalls"
	"github.com/unitrace/unitrace/kernel/syscalls/files"
	"github.com/unitrace/unitrace/kernel/tp"
	"github.com/unitrace/unitrace/sampler"
	"github.com/unitrace/unitrace/trace/record"
)

// The timer interrupts and the end of a locked entry, in the order the trap runs them: the
// sampler's interrupt takes the sample; the tick's runs tick, then, if it has work under the
// lock, tickLocked (the watchdog's scan, the sleepers and timers due, the load average, the
// quantum); every locked entry ends with finishEntry.

// samplerInterrupt handles the sampler's timer interrupt, wherever it landed: in a thread or in
// kernel code (a system call, a fault, the kernel lock's wait, the tick, a context switch). It
// takes no lock and touches only this CPU's sampler and timer. It takes the sample while the
// current interrupt frame still holds what it interrupted, hands the scheduler tick on if it
// is due (on amd64 one timer serves both: machine.HandOnTick raises the tick's own interrupt, which
// waits for the kernel code to return), and re-arms the timer.
func samplerInterrupt() {
	now := machine.Ticks()
	cpu := machine.CPUIndex() & (core.MaxCPUs - 1)
	timing, t := observe.TimePhases, now
	if s := &core.Samplers[cpu]; s.Due(now) {
		observe.TakeSample(s, now)
		if timing {
			t = observe.PhaseDone(sampler.PhaseSample, t)
		}
	}
	if l := &core.CPULocals[cpu]; machine.SharedTimer && now >= l.TimerDeadline() && !l.TickHandedOn {
		l.TickHandedOn = true
		machine.HandOnTick()
		if timing {
			t = observe.PhaseDone(sampler.PhaseHandOn, t)
		}
	}
	core.ArmNext()
	if timing {
		observe.PhaseDone(sampler.PhaseRearm, t)
	}
}

// timerInterrupt handles the scheduler tick's interrupt without the kernel lock. It reports
// whether the tick is due; the caller then runs tick. An interrupt that comes a little early
// (the one-shot count is rounded) finds nothing due and just arms the timer again.
func timerInterrupt() (tickDue bool) {
	machine.AckTimer()
	now := machine.Ticks()
	l := core.Here()
	l.TickHandedOn = false
	l.Periodic = now >= l.TickNext && l.HeldTick != l.TickNext
	if now >= l.TickNext {
		core.NextTick(l, now)
		l.Ticks.Add(1)
		tickDue = true
	}
	if l.WakeNext != 0 && now >= l.WakeNext {
		l.WakeNext = 0 // a wake-up: the tick's path wakes the sleepers and fires the timers due
		tickDue = true
	}
	observe.SweepIfDue(now)
	core.UpdateTick() // the one place a tick stops
	core.ArmNext()
	return tickDue
}

// tick runs on every timer tick of every CPU, before the kernel lock: it reports whether the
// tick has work under the lock (tickLocked). Most ticks have none, and take no lock: the lock
// is the one thing CPUs contend for.
func tick(f *machine.Frame) (needsLock bool) {
	tp.TimerTick.Emit1(uint64(core.SchedHints.Runnable.Load()))
	return tickNeedsLock()
}

// tickLocked wakes expired sleepers, then switches this CPU to a runnable thread if the policy
// says a switch is due (the quantum is used up, or the CPU is idle).
func tickLocked(f *machine.Frame) {
	observe.WatchdogScan()
	now := machine.Nanotime()
	core.SetWaker(record.WakerTimer)
	n := core.Sleepers.Expired(now, core.Woken[:])
	for i := 0; i < n; i++ {
		core.Wake(core.Woken[i], true)
	}
	core.ExpireTimers(now, core.Here().Periodic)
	files.ExpireTimerfds(now)
	core.SetWaker(record.WakerThread)
	syscalls.SampleLoad(now)
	if core.Scheduler.TickDue(machine.CPUIndex(), now) {
		core.Yield(f)
	}
}

// tickNeedsLock reports whether this tick has work under the kernel lock: a thread waiting that
// may run here (to preempt for, or to leave idle for), a sleeper or a wall-clock timer due, a
// CPU-time timer to check against the thread running here, or the watchdog's scan due. A thread
// pinned elsewhere is not this CPU's business: its own CPUs' ticks see it.
func tickNeedsLock() bool {
	now := machine.Nanotime()
	return core.RunnableHere() || core.SchedHints.NextSleeper.Load() <= now ||
		core.CPUTimerDue(now) ||
		(observe.WatchdogPeriod != 0 && now >= observe.Watchdog.NextScan)
}

// The end of every kernel entry that took the kernel lock, on both arches: the CPU must not keep
// a thread its affinity now excludes, an idle CPU takes a thread that became runnable, and the
// thread about to resume gets its pending signals. Then the lock is released and the trap
// returns into whatever context f holds.
func finishEntry(f *machine.Frame) {
	if core.Scheduler.Excluded(machine.CPUIndex()) {
		core.Enqueue(core.CurSlot())
		core.Schedule(f)
	}
	core.LeaveIdle(f)
	core.CheckHeldOffTick(core.CurSlot())
	core.DeliverSignals(f)
	publishSchedHints()
	core.KickForRunnable()
	core.RestartTick()
	core.UnlockKernel()
}

// publishSchedHints republishes the scheduler's hints (core.SchedHints) for the lock-free readers, and
// arms this CPU for the earliest wake-up: a sleeper's deadline, a wall-clock timer's or a
// timerfd's.
func publishSchedHints() {
	core.SchedHints.Runnable.Store(int32(core.Scheduler.Queued()))
	core.SchedHints.RunnableOn.Store(core.Scheduler.QueuedOn())
	next, ok := core.Sleepers.Next()
	if !ok {
		next = 1<<63 - 1
	}
	if t, ok := core.Timers.NextWall(); ok {
		next = min(next, t)
	}
	if t, ok := files.Timerfds.Next(); ok {
		next = min(next, t)
	}
	core.SchedHints.NextSleeper.Store(next)
	if next != 1<<63-1 {
		core.ArmWake(next) // sleepers' deadlines include their slack (timer.go)
	}
}
