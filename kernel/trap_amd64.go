package kernel

import (
	"sync/atomic"

	"github.com/unitrace/unitrace/arch/amd64"
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

// trap is the kernel's entry from every interrupt, exception and system call: the entry stubs
// call it with the Frame they built on this CPU's kernel stack, interrupts masked. Whatever
// context f holds when trap returns is the one the CPU resumes.
//
// A thread's system call, the kernel's busiest path, is handled here with as few calls as it
// can be: under TCG a call and its return cost as much as 25 plain instructions. A call that
// needs no lock is served with interrupts masked (syscall): it is short and never waits. While
// the sampler runs it is served interruptible, as every other call is (lockedSystemCall), so
// that a sample lands where the CPU is and not at the call's return point; a sampler deadline
// that passes in the masked exit is taken on the way out as the kernel's (observe.SampleAtExit).
func trap(f *machine.Frame) {
	if f.Vector != amd64.VectorSyscall || f.Prev != 0 {
		interruptOrException(f)
		return
	}
	// The entry left the kernel clock stopped: a call served without the lock runs without it
	// (two TSC reads are a sixth of its round trip under TCG), and its time counts as the
	// thread's user time. One that takes the lock, or runs under the sampler, starts it.
	sampling := atomic.LoadUint64(&observe.SamplerHz) != 0
	if sampling {
		amd64.StartKernelClock(f)
		amd64.EnableInterrupts() // the sampler lands where the CPU is, in the lock-free calls too
	}
	entered := f.Entered // f may hold another thread when the call returns
	if syscalls.Unlocked(f) {
		if !sampling {
			amd64.StartKernelClock(f)
		}
		lockedSystemCall(f)
	} else if sampling {
		amd64.DisableInterrupts()
		core.ReleaseHeldInterrupts()
	}
	if sampling {
		observe.SampleAtExit(entered)
	}
}

// lockedSystemCall runs the system call in f that needs the kernel lock: interruptible, under
// the lock, ending in finishEntry.
func lockedSystemCall(f *machine.Frame) {
	core.NoteTrap(amd64.VectorSyscall, uintptr(f.RIP))
	amd64.EnableInterrupts()
	if core.OtherCPUStopping() {
		core.ParkForGood() // another CPU is stopping the machine
	}
	core.LockKernel(f)
	syscalls.Locked(f)
	finishEntry(f)
	amd64.DisableInterrupts()
	core.ReleaseHeldInterrupts()
}

// interruptOrException is trap for everything but a thread's system call.
//
// The NMI and the sampler's interrupt run with interrupts masked and touch only this CPU's
// state; they may land in kernel code. Every other entry comes from a thread and runs with
// interrupts enabled: the sampler's vector interrupts it where it runs (its own IST stack, so
// it nests without clobbering this handler's), and any other interrupt that arrives is held
// back until the trap returns (holdback.go).
func interruptOrException(f *machine.Frame) {
	core.NoteTrap(f.Vector, uintptr(f.RIP))
	switch {
	case f.Vector == amd64.VectorNMI:
		// The kernel's NMIs wake a CPU asleep for the kernel lock (lockSleep), and ask a CPU
		// that takes no interrupts where it is (probe.go).
		observe.AnswerProbe(f)
		amd64.SkipHaltAfterNMI(f)
	case f.Vector == amd64.VectorSampler:
		if observe.TimePhases {
			t := observe.PhaseDone(sampler.PhaseEntry, f.Entered)
			amd64.EOI()
			observe.PhaseDone(sampler.PhaseEOI, t)
		} else {
			amd64.EOI()
		}
		samplerInterrupt()
	case f.Vector == amd64.VectorBreakpoint && dprobe.Hit(f):
		// A dynamic probe's breakpoint, from a thread or kernel code (its own IST stack): recorded
		// and its instruction emulated, masked, without the lock.
	case f.Prev != 0 && isInterrupt(f.Vector):
		holdBack(f.Vector)
	case f.Prev != 0:
		kernelFault(f, "fault inside the kernel")
	default:
		entered := f.Entered
		if isInterrupt(f.Vector) {
			// An interrupt's handler runs on the IRQ gate's IST stack, where a nested
			// interrupt would land too and overwrite it: hold them back from the start. A
			// system call (its own stack) or an exception (the exception gate's) leaves that
			// stack free for one.
			core.HoldBackInterrupts()
		}
		amd64.EnableInterrupts()
		threadTrap(f)
		amd64.DisableInterrupts()
		core.ReleaseHeldInterrupts()
		observe.TakeExitSample(entered)
	}
}

// isInterrupt reports whether v is an interrupt's vector (the tick, the IPI, a device's, the
// spurious vector), not an exception's or the system call's.
func isInterrupt(v uint64) bool {
	return v >= amd64.FirstExternalVector && v < amd64.NumVectors
}

// holdBack handles an interrupt on vector v that arrived in kernel code: it raises the
// priority so that nothing but the sampler's vector gets through until the trap returns, ends
// the interrupt and has it raised again, where the priority now holds it. A device's line is
// level-triggered and raises itself again once ended; the tick and the IPI are edges and are
// sent again as self-IPIs (their handlers look at per-CPU state, not at how they came). The
// spurious vector needs nothing.
func holdBack(v uint64) {
	if v == amd64.VectorSpurious {
		return
	}
	core.HoldBackInterrupts()
	amd64.EOI()
	if _, device := amd64.DeviceGSI(v); !device {
		amd64.SendSelfIPI(uint8(v))
	}
}

// threadTrap handles a trap a thread took. The IPI and the tick's lock-free part are per-CPU
// work and run without the kernel lock; everything else runs under it (lock.go) and ends in
// finishEntry.
func threadTrap(f *machine.Frame) {
	if core.OtherCPUStopping() {
		core.ParkForGood() // another CPU is stopping the machine
	}
	v := f.Vector
	switch {
	case v == core.VectorIPI:
		amd64.EOI()
		if !core.IPIInterrupt(f) {
			return
		}
	case v == amd64.VectorTimer:
		tp.IRQEntry.Emit1(v)
		tickDue := timerInterrupt() && tick(f)
		tp.IRQExit.Emit1(v)
		if !tickDue {
			return
		}
	case v == amd64.VectorSpurious:
		return // spurious LAPIC interrupt: no EOI
	}
	core.LockKernel(f)
	switch {
	case v == amd64.VectorTimer:
		tickLocked(f)
	case v == core.VectorIPI:
		// a kick: finishEntry does what it was for
	case v < amd64.FirstExternalVector:
		threadException(f)
	default:
		if gsi, ok := amd64.DeviceGSI(v); ok {
			tp.IRQEntry.Emit1(v)
			if gsi == amd64.ConsoleGSI {
				console.Interrupt() // the UART's own line, never shared
			} else if strayLine(gsi, deviceInterrupt()) {
				amd64.MaskGSI(gsi) // nobody's line: a level-triggered line would fire forever
				klog.Once(&warnedStrayIRQ, "stray interrupt line masked")
			}
			amd64.EOI()
			tp.IRQExit.Emit1(v)
			break
		}
		amd64.EOI()
		klog.Once(&warnedStrayIRQ, "stray interrupt ignored")
	}
	finishEntry(f)
}

var warnedStrayIRQ bool

// Page-fault error code bits (Intel SDM vol. 3A §4.7).
const (
	pfPresent = 1 << 0
	pfWrite   = 1 << 1
	pfFetch   = 1 << 4
)

// threadException handles an exception raised by a thread (the Go program, or the idle thread):
// demand paging for page faults in mapped memory, otherwise the Linux signal for the fault.
func threadException(f *machine.Frame) {
	if core.OnIdle() {
		kernelFault(f, "exception in the idle thread")
	}
	switch f.Vector {
	case amd64.VectorPageFault:
		addr := uintptr(f.CR2)
		tp.PageFault.Emit2(uint64(addr), f.ErrorCode)
		if core.FaultIn(addr, f.ErrorCode&pfWrite != 0, f.ErrorCode&pfFetch != 0) {
			return
		}
		code := int32(signal.SEGV_MAPERR)
		if _, ok := core.Space.Find(addr); ok {
			code = signal.SEGV_ACCERR
		}
		core.ForceFault(f, signal.SIGSEGV, code, uint64(addr))
	case amd64.VectorDivideError:
		core.ForceFault(f, signal.SIGFPE, signal.FPE_INTDIV, f.RIP)
	case amd64.VectorX87Error, amd64.VectorSIMDError:
		core.ForceFault(f, signal.SIGFPE, 0, f.RIP)
	case amd64.VectorInvalidOpcode:
		core.ForceFault(f, signal.SIGILL, signal.ILL_ILLOPN, f.RIP)
	case amd64.VectorBreakpoint, amd64.VectorDebug:
		core.ForceFault(f, signal.SIGTRAP, signal.TRAP_BRKPT, 0)
	case amd64.VectorAlignmentCheck:
		core.ForceFault(f, signal.SIGBUS, signal.BUS_ADRALN, 0)
	case amd64.VectorGeneralProtect, 10, 11, 12:
		// A non-canonical address or a bad segment: Linux says SIGSEGV, SI_KERNEL, address 0.
		core.ForceFault(f, signal.SIGSEGV, signal.SI_KERNEL, 0)
	default:
		kernelFault(f, "unexpected exception")
	}
}
