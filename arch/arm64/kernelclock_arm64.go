package arm64

import "sync/atomic"

// KernelClock reads CPU index's kernel clock as its entry stubs keep it (CPU.KernelSince,
// CPU.KernelTicks): CNTVCT at the entry it is in (0 while it runs a thread) and the ticks of the
// entries it has left. From another CPU the pair can change under the read, so it is read until
// KernelTicks holds still around KernelSince (the stubs write KernelTicks first, with release
// order).
func KernelClock(index int) (since, ticks uint64) {
	c := &cpus[index&(MaxCPUs-1)]
	for {
		ticks = atomic.LoadUint64(&c.KernelTicks)
		since = atomic.LoadUint64(&c.KernelSince)
		if atomic.LoadUint64(&c.KernelTicks) == ticks {
			return since, ticks
		}
	}
}

// StartKernelClock starts this CPU's kernel clock for the system call it is serving, whose entry
// left it stopped (trap_arm64.s): a call served without the kernel lock runs without it (two
// counter reads are a tenth of its round trip under TCG), and its time counts as the thread's.
func StartKernelClock()
