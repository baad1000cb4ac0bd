package amd64

import "sync/atomic"

// KernelClock reads CPU index's kernel clock as its entry stubs keep it (CPU.KernelSince,
// CPU.KernelTicks): the TSC at the entry it is in (0 while it runs a thread) and the ticks of
// the entries it has left. From another CPU the pair can change under the read, so it is read
// until KernelTicks holds still around KernelSince (the stubs write KernelTicks first).
func KernelClock(index int) (since, ticks uint64) {
	c := cpuArea(index & (MaxCPUs - 1))
	for {
		ticks = atomic.LoadUint64(&c.KernelTicks)
		since = atomic.LoadUint64(&c.KernelSince)
		if atomic.LoadUint64(&c.KernelTicks) == ticks {
			return since, ticks
		}
	}
}
