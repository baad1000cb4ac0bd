package kernel

import (
	"sync/atomic"

	"github.com/unitrace/unitrace/kernel/machine"
)

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

// schedHints mirror, for readers without the kernel lock, whether the scheduler has anything to
// do: a CPU's tick takes the lock only when it has (tickNeedsLock). Stale values are harmless:
// they are republished at the end of every locked entry, and a tick that skips the lock one
// period too early takes it at the next one.
var schedHints struct {
	runnable    atomic.Int32  // runnable threads (the timer_tick tracepoint's argument)
	runnableOn  atomic.Uint64 // CPUs some queued thread may run on: the union of their masks
	nextSleeper atomic.Int64  // earliest sleeper deadline or wall-clock timer expiry (ns), max int64 for none
}

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

// runnableHere reports, without the lock, whether a queued thread may run on this CPU.
func runnableHere() bool { return schedHints.runnableOn.Load()&(1<<uint(machine.CPUIndex())) != 0 }

// tickNeedsLock reports whether this tick has work under the kernel lock: a thread waiting that
// may run here (to preempt for, or to leave idle for), a sleeper or a wall-clock timer due, a
// CPU-time timer to check against the thread running here, or the watchdog's scan due. A thread
// pinned elsewhere is not this CPU's business: its own CPUs' ticks see it.
func tickNeedsLock() bool {
	now := nanotime()
	return runnableHere() || schedHints.nextSleeper.Load() <= now ||
		cpuTimerDue(now) ||
		(watchdogPeriod != 0 && now >= watchdog.nextScan)
}

// kickCPU makes CPU c enter the kernel under the lock soon (an IPI), to take a runnable thread,
// deliver a signal, or move a thread its affinity excludes. It reports false if a kick is on
// its way there already (or c is this CPU).
func kickCPU(c int) bool {
	if c < 0 || c >= numCPUs || c == machine.CPUIndex() || cpuLocals[c].kicked.Swap(true) {
		return false
	}
	sendIPI(c)
	return true
}

// onlineCPUs counts the CPUs running the kernel.
func onlineCPUs() int {
	n := 0
	for c := 0; c < numCPUs; c++ {
		if cpuLocals[c].online.Load() {
			n++
		}
	}
	return n
}
