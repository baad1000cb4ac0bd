package kernel

import (
	"sync/atomic"

	"github.com/unitrace/unitrace/kernel/machine"
)

// schedHints mirror, for readers without the kernel lock, whether the scheduler has anything to
// do: a CPU's tick takes the lock only when it has (tickNeedsLock). Stale values are harmless:
// they are republished at the end of every locked entry, and a tick that skips the lock one
// period too early takes it at the next one.
var schedHints struct {
	runnable    atomic.Int32  // runnable threads (the timer_tick tracepoint's argument)
	runnableOn  atomic.Uint64 // CPUs some queued thread may run on: the union of their masks
	nextSleeper atomic.Int64  // earliest sleeper deadline or wall-clock timer expiry (ns), max int64 for none
}

// runnableHere reports, without the lock, whether a queued thread may run on this CPU.
func runnableHere() bool { return schedHints.runnableOn.Load()&(1<<uint(machine.CPUIndex())) != 0 }

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
