package kernel

import "sync/atomic"

// The kernel lock. Every kernel entry that touches shared state (system calls, page faults,
// the scheduler tick, device interrupts) runs under it, with interrupts masked, so the kernel's
// data structures change one CPU at a time, as they did on one CPU. What runs without it is
// per-CPU: taking a sample, serving a cross-CPU request (xcall.go), tracepoint emits into the
// CPU's own ring.
//
// It is a test-and-test-and-set lock, not a ticket lock: under TCG on a host with fewer cores
// than vCPUs, a vCPU thread is often off its host core, and a ticket lock hands the lock to the
// next ticket whether or not that vCPU runs, so every waiter stalls for a host time slice (an
// arm64 guest with 3 CPUs on 2 host cores took ~500 locks a second that way). Here whichever
// waiter runs takes it. A CPU waiting for it keeps serving cross-CPU requests (another CPU may
// hold the lock and wait for this one's answer) and the stop request.

var klock struct {
	held  atomic.Uint32 // 1 while some CPU holds the lock
	owner atomic.Int32  // CPU holding it plus one, 0 for none (diagnostics)
	_     [56]byte
}

// lockKernel takes the kernel lock for the entry whose Frame is f (nil outside a trap).
//
//go:nosplit
func lockKernel(f *Frame) {
	for klock.held.Load() != 0 || !klock.held.CompareAndSwap(0, 1) {
		waitingForLock(f)
	}
	klock.owner.Store(int32(cpuIndex()) + 1)
}

// unlockKernel releases the kernel lock.
//
//go:nosplit
func unlockKernel() {
	klock.owner.Store(0)
	klock.held.Store(0)
}

// lockHeld reports whether the calling CPU holds the kernel lock.
func lockHeld() bool { return klock.owner.Load() == int32(cpuIndex())+1 }

// waitingForLock is one turn of the wait for the kernel lock: it serves what other CPUs ask of
// this one meanwhile.
func waitingForLock(f *Frame) {
	if otherCPUStopping() {
		parkForGood()
	}
	serveCrossCall(f)
	cpuRelax()
}
