package core

import (
	"sync/atomic"

	"github.com/unitrace/unitrace/kernel/klog"
	"github.com/unitrace/unitrace/kernel/machine"
)

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

//
// A waiter that has spun for a while sleeps instead (lockSleep: HLT with interrupts masked on
// amd64, WFI on arm64) and the CPU releasing the lock wakes one sleeper (wakeLockSleeper: an NMI,
// an SGI). Under TCG a spinning vCPU takes a host core from the vCPU that holds the lock, and on
// a machine with fewer cores than vCPUs that made the average wait several milliseconds.

var klock struct {
	held     atomic.Uint32 // 1 while some CPU holds the lock
	sleepers atomic.Uint64 // CPUs asleep waiting for it
	_        [52]byte
}

// lockSpins is how many turns a waiter spins before it sleeps.
const lockSpins = 64

// LockKernel takes the kernel lock for the entry whose Frame is f (nil outside a trap).
//
//go:nosplit
func LockKernel(f *machine.Frame) {
	if klock.held.Load() != 0 || !klock.held.CompareAndSwap(0, 1) {
		start := machine.Ticks()
		for spins := 0; klock.held.Load() != 0 || !klock.held.CompareAndSwap(0, 1); spins++ {
			waitingForLock(f)
			if spins >= lockSpins {
				sleepForLock()
			}
		}
		l := Here()
		l.lockWaits.Add(1)
		l.lockWaitTicks.Add(machine.Ticks() - start)
	}
	Here().lockTaken.Add(1)
}

// UnlockKernel releases the kernel lock.
//
//go:nosplit
func UnlockKernel() {
	klock.held.Store(0)
	if m := klock.sleepers.Load(); m != 0 {
		wakeLockSleeper(lowestCPU(m))
	}
}

// sleepForLock sleeps until the lock holder (or a cross-CPU request, or a stop) wakes this CPU.
// The sleeper's bit is set before the last look at the lock, and the releaser clears held before
// it looks at the bits, so one of the two always sees the other: no wake-up is lost.
//
// The wake-up itself can come between that last look and the halt; the waker sets this CPU's
// lockWake first, and lockSleep does not halt once it is set (on amd64, where the wake-up is an
// NMI that is handled at once, this is what keeps it from being lost; arm64's SGI stays pending
// and ends the WFI anyway).
func sleepForLock() {
	l := Here()
	bit := uint64(1) << uint(machine.CPUIndex())
	atomic.StoreUint32(&l.lockWake, 0)
	klock.sleepers.Or(bit)
	if klock.held.Load() != 0 && !OtherCPUStopping() && l.XcallAck.Load() >= Xcall.Seq.Load() {
		lockSleep(&l.lockWake)
	}
	klock.sleepers.And(^bit)
}

// wakeLockSleeper wakes CPU c from sleepForLock, once per sleep: the flag says a wake-up is on
// its way, and a second NMI would only interrupt a CPU that is waking up anyway. Without this,
// a CPU that unlocks thousands of times a second (a thread spinning in sched_yield) sent an NMI
// to the lowest sleeper each time; under TCG, where a pending NMI is taken before the next
// instruction, a sleeper whose vCPU ran slower than that stream executed nothing but NMI
// handlers, never cleared its sleeper bit, and so every later wake-up went to it while the
// other sleepers slept for good.
func wakeLockSleeper(c int) {
	if atomic.SwapUint32(&CPULocals[c&(MaxCPUs-1)].lockWake, 1) == 0 {
		interruptLockSleeper(c)
	}
}

// wakeLockSleepers wakes every CPU asleep waiting for the lock, so it serves a cross-CPU request
// or a stop.
func wakeLockSleepers() {
	m := klock.sleepers.Load()
	for c := 0; m != 0 && c < NumCPUs; c++ {
		if m&(1<<uint(c)) != 0 {
			wakeLockSleeper(c)
		}
	}
}

// lowestCPU is the lowest CPU number in mask (non-zero).
func lowestCPU(mask uint64) int {
	c := 0
	for mask&1 == 0 {
		mask >>= 1
		c++
	}
	return c
}

// waitingForLock is one turn of the wait for the kernel lock: it serves what other CPUs ask of
// this one meanwhile.
func waitingForLock(f *machine.Frame) {
	if OtherCPUStopping() {
		ParkForGood()
	}
	serveCrossCall(f)
	machine.CPURelax()
}

// ReportLock prints how often the kernel lock was taken and how long CPUs waited for it: the
// measure of what one lock costs (docs/smp.md).
func ReportLock() {
	var taken, waits, waitTicks uint64
	for c := 0; c < NumCPUs; c++ {
		l := &CPULocals[c]
		taken += l.lockTaken.Load()
		waits += l.lockWaits.Load()
		waitTicks += l.lockWaitTicks.Load()
	}
	hz := max(machine.TicksHz(), 1)
	l := klog.Log().S("kernel lock: taken ").U(taken).S(" times, ").U(waits).S(" after a wait; waited ").
		U(waitTicks/hz*1000 + waitTicks%hz*1000/hz).S(" ms in all")
	if waits > 0 {
		l.S(", ").U(waitTicks / waits * 1_000_000 / hz).S(" us per wait")
	}
	l.S("; ").U(shootdowns).S(" TLB shootdowns").NL()
}
