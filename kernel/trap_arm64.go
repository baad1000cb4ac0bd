package kernel

import (
	"sync/atomic"

	"github.com/unitrace/unitrace/arch/arm64"
	"github.com/unitrace/unitrace/kernel/core"
	"github.com/unitrace/unitrace/kernel/dev/console"
	"github.com/unitrace/unitrace/kernel/dprobe"
	"github.com/unitrace/unitrace/kernel/klog"
	"github.com/unitrace/unitrace/kernel/machine"
	"github.com/unitrace/unitrace/kernel/observe"
	"github.com/unitrace/unitrace/kernel/signal"
	"github.com/unitrace/unitrace/kernel/syscalls"
	"github.com/unitrace/unitrace/kernel/tp"
	"github.com/unitrace/unitrace/sampler"
)

// trap is the kernel's entry from every exception, and from the system-call sites rewritten
// into branches (svcbranch_arm64.go): the stubs call it on SP_EL1 with the Frame they built,
// interrupts masked. Threads (the Go program and the idle threads) run at EL1t, so an exception
// of an EL1h kind is the kernel's own, and only an IRQ may cause one. Whatever context f holds
// when trap returns is the one the CPU resumes.
//
// The sampler's interrupt runs with interrupts masked and touches only this CPU's state, and so
// do the system calls that need no lock while the sampler is off (systemCall). Every other entry
// runs with IRQs unmasked: the sampler's timer interrupts it where it runs, and any other
// interrupt that arrives is held back until the trap returns (holdback.go).
func trap(f *machine.Frame) {
	if f.Kind == arm64.KindSyncEL1t && f.Prev == 0 && arm64.ESRClass(f.ESR) == arm64.ECSVC64 {
		systemCall(f)
		return
	}
	noteTrap(f)
	if machine.IsBreakpoint(f) && dprobe.Hit(f) {
		return // a dynamic probe's breakpoint, from a thread or kernel code: recorded and emulated, masked
	}
	if f.Prev != 0 || !f.FromThread() {
		if f.Kind == arm64.KindIRQEL1h && f.Prev != 0 {
			nestedIRQ(f)
			return
		}
		kernelFault(f, "exception in the kernel")
	}
	if f.IsIRQ() {
		ack := arm64.AcknowledgeIRQ()
		id := arm64.INTID(ack)
		switch id {
		case arm64.IntidSpurious:
			return
		case arm64.IntidPhysicalTimer:
			if observe.TimePhases {
				observe.PhaseDone(sampler.PhaseEntry, trapEntered()) // from a thread: its entry's stamp
			}
			samplerIRQ(ack)
			return
		}
		interruptible(f, ack, id)
		return
	}
	interruptible(f, 0, 0)
}

// systemCall handles a thread's system call, the kernel's busiest path, with as few calls as it
// can: under TCG a call and its return cost as much as a dozen plain instructions. A call that
// needs no lock is served with IRQs masked and the kernel clock stopped (its entry left it so):
// it is short and never waits. While the sampler runs it is served interruptible, as every other
// call is (lockedSystemCall), so that a sample lands where the CPU is and not at the call's return
// point; a sampler deadline that passes in the masked exit is taken on the way out as the
// kernel's (observe.SampleAtExit).
func systemCall(f *machine.Frame) {
	sampling := atomic.LoadUint64(&observe.SamplerHz) != 0
	entered := uint64(0)
	if sampling {
		arm64.StartKernelClock()
		entered = trapEntered() // f may hold another thread when the call returns
		arm64.EnableInterrupts()
	}
	site := svcBranchSite(f) // before the call, for the same reason
	needsLock := syscalls.Unlocked(f)
	switch {
	case needsLock || site != 0:
		if !sampling {
			arm64.StartKernelClock()
		}
		lockedSystemCall(f, site, needsLock)
	case sampling:
		arm64.DisableInterrupts()
		core.ReleaseHeldInterrupts()
	}
	if sampling {
		observe.SampleAtExit(entered)
	}
}

// lockedSystemCall finishes the system call in f under the kernel lock, interruptible: it
// rewrites the call's site into a branch if svcBranchSite gave one, runs the call if it needs
// the lock (call; else Unlocked served it), and ends in finishEntry.
func lockedSystemCall(f *machine.Frame, site uintptr, call bool) {
	noteTrap(f)
	arm64.EnableInterrupts()
	if core.OtherCPUStopping() {
		core.ParkForGood() // another CPU is stopping the machine
	}
	core.LockKernel(f)
	if site != 0 {
		branchSVC(site)
	}
	if call {
		syscalls.Locked(f)
	}
	finishEntry(f)
	arm64.DisableInterrupts()
	core.ReleaseHeldInterrupts()
}

// noteTrap records the entry for the watchdog's report (core.NoteTrap): its kind and class.
func noteTrap(f *machine.Frame) { core.NoteTrap(uint64(f.Kind)<<32|f.ESR>>26, f.PC()) }

// interruptible runs the handler of a thread's trap with IRQs unmasked: the sampler's timer may
// interrupt it, and nestedIRQ holds back the rest.
func interruptible(f *machine.Frame, ack, id uint32) {
	entered := trapEntered()
	if f.IsIRQ() {
		// An interrupt's trap holds the others back from the start, as on amd64: left at the
		// thread's mask, the tick's handler had 6-7% of a compute loop's samples pile up where
		// it re-arms the timers (kernel.armNext's unmask), against 0.4% this way.
		core.HoldBackInterrupts()
	}
	arm64.EnableInterrupts()
	threadTrap(f, ack, id)
	arm64.DisableInterrupts()
	core.ReleaseHeldInterrupts()
	observe.TakeExitSample(entered)
}

// trapEntered is when the thread's trap being handled was taken, for observe.SampleAtExit: the counter
// at which the entry stub started the CPU's kernel clock.
func trapEntered() uint64 {
	since, _ := machine.KernelClock(machine.CPUIndex())
	return since
}

// nestedIRQ handles an IRQ taken in kernel code. It looks at the highest-priority pending
// interrupt without acknowledging it: the sampler's timer is taken at once; anything else
// raises the priority mask, which stops it being signalled, and stays pending until the trap
// returns. A CPU that handles an acknowledged interrupt runs at its priority, so what arrives
// then is above it: the sampler's, or the IPI in the tick's or a device's handler.
func nestedIRQ(f *machine.Frame) {
	switch arm64.PendingIRQ() {
	case arm64.IntidSpurious:
	case arm64.IntidPhysicalTimer:
		ack := arm64.AcknowledgeIRQ()
		switch arm64.INTID(ack) {
		case arm64.IntidSpurious:
		case arm64.IntidPhysicalTimer:
			samplerIRQ(ack)
		default:
			arm64.EndOfIRQ(ack)
			kernelFault(f, "the GIC acknowledged another interrupt than the pending sampler's")
		}
	default:
		core.HoldBackInterrupts()
	}
}

// samplerIRQ handles the sampler's timer interrupt, acknowledged as ack, from a thread or in
// kernel code. It ends the interrupt after the handler, which drops the level-triggered line by
// re-arming the timer.
func samplerIRQ(ack uint32) {
	samplerInterrupt()
	if !observe.TimePhases {
		arm64.EndOfIRQ(ack)
		return
	}
	t := machine.Ticks()
	arm64.EndOfIRQ(ack)
	observe.PhaseDone(sampler.PhaseEOI, t)
}

// threadTrap handles a trap a thread took other than a system call (systemCall); ack and id are
// the acknowledged interrupt's, for an IRQ. The IPI and the tick's lock-free part are per-CPU work and run without the kernel lock;
// everything else runs under it (lock.go) and ends in finishEntry.
func threadTrap(f *machine.Frame, ack, id uint32) {
	if core.OtherCPUStopping() {
		core.ParkForGood() // another CPU is stopping the machine
	}
	tickDue := false
	switch {
	case f.IsIRQ():
		switch id {
		case core.SGIKernel:
			arm64.EndOfIRQ(ack)
			if !core.IPIInterrupt(f) {
				return
			}
		case arm64.IntidVirtualTimer:
			// End the interrupt after the handler, which drops the level-triggered line by
			// re-arming the timer.
			tp.IRQEntry.Emit1(uint64(id))
			tickDue = timerInterrupt() && tick(f)
			arm64.EndOfIRQ(ack)
			tp.IRQExit.Emit1(uint64(id))
			if !tickDue {
				return
			}
		}
	case f.Kind != arm64.KindSyncEL1t:
		kernelFault(f, "unexpected exception (FIQ or SError)")
	}
	core.LockKernel(f)
	switch {
	case tickDue:
		tickLocked(f)
	case f.IsIRQ() && id == core.SGIKernel:
		// a kick: finishEntry does what it was for
	case f.IsIRQ():
		deviceIRQ(ack, id)
	default:
		threadException(f)
	}
	finishEntry(f)
}

// deviceIRQ handles a device's interrupt (the UART's, the trace device's, a shared
// directory's), then signals the end of the interrupt: after the handler, which drops the
// level-triggered line by draining the UART's FIFO or reading the device's status.
func deviceIRQ(ack, id uint32) {
	tp.IRQEntry.Emit1(uint64(id))
	if id == machine.ConsoleINTID && id != 0 {
		console.Interrupt() // the UART's own line, never shared
	} else if strayLine(id, deviceInterrupt()) {
		arm64.DisableIRQ(id) // nobody's line: a level-triggered line would fire forever
		klog.Once(&warnedStrayIRQ, "stray interrupt disabled")
	}
	arm64.EndOfIRQ(ack)
	tp.IRQExit.Emit1(uint64(id))
}

var warnedStrayIRQ bool

// threadException handles a synchronous exception raised by a thread: demand paging for
// translation faults in mapped memory, otherwise the Linux signal for the fault.
func threadException(f *machine.Frame) {
	if core.OnIdle() {
		kernelFault(f, "exception in the idle thread")
	}
	pc := f.ELR
	switch arm64.ESRClass(f.ESR) {
	case arm64.ECDataAbort, arm64.ECInstrAbort:
		addr := uintptr(f.FAR)
		kind, _ := arm64.AbortFault(f.ESR)
		tp.PageFault.Emit2(uint64(addr), f.ESR)
		switch kind {
		case arm64.FaultTranslation, arm64.FaultPermission, arm64.FaultAccessFlag:
			if kind != arm64.FaultPermission && core.FaultIn(addr, arm64.AbortIsWrite(f.ESR), arm64.AbortIsFetch(f.ESR)) {
				return
			}
			code := int32(signal.SEGV_MAPERR)
			if _, ok := core.Space.Find(addr); ok {
				code = signal.SEGV_ACCERR
			}
			core.ForceFault(f, signal.SIGSEGV, code, uint64(addr))
		case arm64.FaultAlignment:
			core.ForceFault(f, signal.SIGBUS, signal.BUS_ADRALN, uint64(addr))
		default:
			core.ForceFault(f, signal.SIGBUS, 0, uint64(addr))
		}
	case arm64.ECPCAlign, arm64.ECSPAlign:
		core.ForceFault(f, signal.SIGBUS, signal.BUS_ADRALN, pc)
	case arm64.ECBRK64, arm64.ECBreakpoint, arm64.ECSoftStep, arm64.ECWatchpoint:
		core.ForceFault(f, signal.SIGTRAP, signal.TRAP_BRKPT, pc)
	case arm64.ECFPException64:
		core.ForceFault(f, signal.SIGFPE, 0, pc)
	case arm64.ECUnknown, arm64.ECIllegalState, arm64.ECSysReg:
		core.ForceFault(f, signal.SIGILL, signal.ILL_ILLOPN, pc)
	default:
		kernelFault(f, "unexpected exception")
	}
}
