package kernel

import (
	"github.com/unitrace/unitrace/kernel/machine"
	"github.com/unitrace/unitrace/kernel/tp"
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
	cpu := machine.CPUIndex() & (maxCPUs - 1)
	if s := &samplers[cpu]; s.Due(now) {
		takeSample(s, now)
	}
	if l := &cpuLocals[cpu]; machine.SharedTimer && now >= l.timerDeadline() && !l.tickHandedOn {
		l.tickHandedOn = true
		machine.HandOnTick()
	}
	armNext()
}

// timerInterrupt handles the scheduler tick's interrupt without the kernel lock. It reports
// whether the tick is due; the caller then runs tick. An interrupt that comes a little early
// (the one-shot count is rounded) finds nothing due and just arms the timer again.
func timerInterrupt() (tickDue bool) {
	machine.AckTimer()
	now := machine.Ticks()
	l := here()
	l.tickHandedOn = false
	l.periodic = now >= l.tickNext && l.heldTick != l.tickNext
	if now >= l.tickNext {
		l.tickNext += ((now-l.tickNext)/tickPeriod + 1) * tickPeriod
		l.ticks.Add(1)
		tickDue = true
	}
	if l.wakeNext != 0 && now >= l.wakeNext {
		l.wakeNext = 0 // a wake-up: the tick's path wakes the sleepers and fires the timers due
		tickDue = true
	}
	sweepIfDue(now)
	armNext()
	return tickDue
}

// tick runs on every timer tick of every CPU, before the kernel lock: it reports whether the
// tick has work under the lock (tickLocked). Most ticks have none, and take no lock: the lock
// is the one thing CPUs contend for.
func tick(f *machine.Frame) (needsLock bool) {
	tp.TimerTick.Emit1(uint64(schedHints.runnable.Load()))
	return tickNeedsLock()
}

// tickLocked wakes expired sleepers, then switches this CPU to a runnable thread if the policy
// says a switch is due (the quantum is used up, or the CPU is idle).
func tickLocked(f *machine.Frame) {
	watchdogScan()
	now := machine.Nanotime()
	setWaker(record.WakerTimer)
	n := sleepers.Expired(now, woken[:])
	for i := 0; i < n; i++ {
		wake(woken[i], true)
	}
	expireTimers(now, here().periodic)
	expireTimerfds(now)
	setWaker(record.WakerThread)
	sampleLoad(now)
	if scheduler.TickDue(machine.CPUIndex(), now) {
		yield(f)
	}
}

// tickNeedsLock reports whether this tick has work under the kernel lock: a thread waiting that
// may run here (to preempt for, or to leave idle for), a sleeper or a wall-clock timer due, a
// CPU-time timer to check against the thread running here, or the watchdog's scan due. A thread
// pinned elsewhere is not this CPU's business: its own CPUs' ticks see it.
func tickNeedsLock() bool {
	now := machine.Nanotime()
	return runnableHere() || schedHints.nextSleeper.Load() <= now ||
		cpuTimerDue(now) ||
		(watchdogPeriod != 0 && now >= watchdog.nextScan)
}

// The end of every kernel entry that took the kernel lock, on both arches: the CPU must not keep
// a thread its affinity now excludes, an idle CPU takes a thread that became runnable, and the
// thread about to resume gets its pending signals. Then the lock is released and the trap
// returns into whatever context f holds.
func finishEntry(f *machine.Frame) {
	if scheduler.Excluded(machine.CPUIndex()) {
		enqueue(curSlot())
		schedule(f)
	}
	leaveIdle(f)
	checkHeldOffTick(curSlot())
	deliverSignals(f)
	publishSchedHints()
	unlockKernel()
}

// publishSchedHints republishes the scheduler's hints (schedHints) for the lock-free readers, and
// arms this CPU for the earliest wake-up: a sleeper's deadline, a wall-clock timer's or a
// timerfd's.
func publishSchedHints() {
	schedHints.runnable.Store(int32(scheduler.Queued()))
	schedHints.runnableOn.Store(scheduler.QueuedOn())
	next, ok := sleepers.Next()
	if !ok {
		next = 1<<63 - 1
	}
	if t, ok := timers.NextWall(); ok {
		next = min(next, t)
	}
	if t, ok := timerfds.Next(); ok {
		next = min(next, t)
	}
	schedHints.nextSleeper.Store(next)
	if next != 1<<63-1 {
		armWake(next) // sleepers' deadlines include their slack (timer.go)
	}
}
