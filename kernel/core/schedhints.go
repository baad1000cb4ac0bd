package core

import (
	"sync/atomic"

	"github.com/unitrace/unitrace/kernel/machine"
)

// SchedHints mirror, for readers without the kernel lock, whether the scheduler has anything to
// do: a CPU's tick takes the lock only when it has (tickNeedsLock). Stale values are harmless:
// they are republished at the end of every locked entry, and a tick that skips the lock one
// period too early takes it at the next one.
var SchedHints struct {
	Runnable    atomic.Int32  // runnable threads (the timer_tick tracepoint's argument)
	RunnableOn  atomic.Uint64 // CPUs some queued thread may run on: the union of their masks
	NextSleeper atomic.Int64  // earliest sleeper deadline or wall-clock timer expiry (ns), max int64 for none
}

// RunnableHere reports, without the lock, whether a queued thread may run on this CPU.
func RunnableHere() bool { return SchedHints.RunnableOn.Load()&(1<<uint(machine.CPUIndex())) != 0 }

// KickCPU makes CPU c enter the kernel under the lock soon (an IPI), to take a runnable thread,
// deliver a signal, or move a thread its affinity excludes. It reports false if a kick is on
// its way there already (or c is this CPU).
func KickCPU(c int) bool {
	if c < 0 || c >= NumCPUs || c == machine.CPUIndex() || CPULocals[c].kicked.Swap(true) {
		return false
	}
	sendIPI(c)
	return true
}

// OnlineCPUs counts the CPUs running the kernel.
func OnlineCPUs() int {
	n := 0
	for c := 0; c < NumCPUs; c++ {
		if CPULocals[c].Online.Load() {
			n++
		}
	}
	return n
}
