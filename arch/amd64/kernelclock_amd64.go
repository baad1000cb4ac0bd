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

// StartKernelClock starts this CPU's kernel clock for the system call in f, which its entry left
// stopped (f.Entered = 0): the calls served without the kernel lock run without it, and their
// time counts as the thread's user time, as a clock read through the vDSO does. Interrupts must
// be masked, and f must be a thread's system call (f.Prev = 0).
func StartKernelClock(f *Frame)
