package kernel

import (
	"github.com/unitrace/unitrace/arch/amd64"
	"github.com/unitrace/unitrace/kernel/sysnames"
	"github.com/unitrace/unitrace/kernel/virtio"
	"github.com/unitrace/unitrace/trace/wire"
)

// The kernel's view of the hardware layer on amd64. Each arch provides the same names.
type Frame = amd64.Frame

// Linux/amd64 system-call convention: number in RAX, arguments in RDI, RSI, RDX, R10, R8, R9,
// result in RAX.
func sysNum(f *Frame) uint64 { return f.RAX }

func sysArgs(f *Frame, a *syscallArgs) {
	a[0], a[1], a[2], a[3], a[4], a[5] = f.RDI, f.RSI, f.RDX, f.R10, f.R8, f.R9
}

func setSysRet(f *Frame, v uint64) { f.RAX = v }

// sysRet is the result setSysRet stored.
func sysRet(f *Frame) uint64 { return f.RAX }

// struct epoll_event is packed (12 bytes) on amd64.
const (
	epollPacked    = true
	epollEventSize = 12
)

// archPlatform is AT_PLATFORM. AT_HWCAP means nothing to the Go runtime on amd64 (it reads
// CPUID itself), so it is 0.
const archPlatform = "x86_64"

func archHWCap() uint64 { return 0 }

// Machine facts and controls the portable kernel uses, under one name on every arch.

// ticks reads the counter that stamps trace records and drives the timers (the TSC).
func ticks() uint64 { return amd64.Rdtsc() }

// ticksHz is the counter's rate.
func ticksHz() uint64 { return amd64.TSCHz() }

// archNanotime is the kernel's clock: ns since the kernel's entry.
func archNanotime() int64 { return amd64.Nanotime() }

// hwRandom returns a hardware random number (RDRAND) if the CPU has one.
func hwRandom() (uint64, bool) { return amd64.Random() }

// exitMachine stops the machine with status code (isa-debug-exit).
func exitMachine(code uint32) { amd64.Exit(code) }

// faultExitValue is the exit code a kernel fault stops the machine with.
const faultExitValue = amd64.FaultExitValue

// textRange, pclntab and imageRange locate the image's code, its pclntab and the whole image.
func textRange() (lo, hi uintptr)   { return amd64.TextRange() }
func pclntab() (start, end uintptr) { return amd64.Pclntab() }
func imageRange() (start, end uintptr) {
	return amd64.ImageStart, amd64.ImageEnd()
}

// kernelStackBounds returns the kernel stack sp lies on.
func kernelStackBounds(sp uintptr) (lo, hi uintptr, ok bool) { return amd64.KernelStackBounds(sp) }

// consoleWrite writes to the console (COM1).
func consoleWrite(b []byte) { amd64.ConsoleWrite(b) }

// archConsoleInputInit routes COM1's interrupt (ISA IRQ 4, GSI 4 on q35 and microvm) through
// the I/O APIC and turns the UART's receive interrupt on; false if no I/O APIC has the line.
func archConsoleInputInit() bool {
	if !amd64.RouteLegacyGSI(amd64.ConsoleGSI) {
		return false
	}
	amd64.EnableConsoleReceive()
	return true
}

// archConsoleReceive moves the bytes COM1 holds into dst and returns how many.
//
//go:nosplit
func archConsoleReceive(dst []byte) int { return amd64.ConsoleReceive(dst) }

// archConsoleReceiveInterrupt turns COM1's receive interrupt on or off.
//
//go:nosplit
func archConsoleReceiveInterrupt(on bool) { amd64.ConsoleReceiveInterrupt(on) }

// The trace format's names for this machine.
const (
	traceArch       = wire.ArchAMD64
	traceTickSource = wire.TickTSC
)

// initLocalTimer starts this CPU's timer hardware (the local APIC's), unarmed.
func initLocalTimer() { amd64.InitLocalTimer() }

// armTimers arms this CPU's timer for the scheduler tick's deadline and, when the sampler is on,
// the sampler's (in ticks). On amd64 one LAPIC timer serves both. While the sampler runs it is
// armed for the earlier deadline on the sampler's vector, the one kernel code can take: armed
// on the tick's vector, it would wait out kernel code with the sampler's deadline unarmed. The
// sampler's handler hands a due tick on (handOnTick); until that has run (tickHandedOn), only the
// sampler's deadline counts. With the sampler off the timer serves the tick on its own vector.
//
//go:nosplit
func armTimers(tick, sample uint64, samplerOn, tickHandedOn bool) {
	if !samplerOn {
		amd64.ArmTimer(tick, amd64.VectorTimer)
		return
	}
	if !tickHandedOn {
		sample = min(sample, tick)
	}
	amd64.ArmTimer(sample, amd64.VectorSampler)
}

// sharedTimer: the sampler's handler may find the tick due (one timer serves both).
const sharedTimer = true

// handOnTick raises the scheduler tick's interrupt on this CPU, to be taken when the code the
// sampler interrupted lets it (a self-IPI below the kernel's task priority).
//
//go:nosplit
func handOnTick() { amd64.SendSelfIPI(amd64.VectorTimer) }

// ackTimer acknowledges the timer interrupt being handled.
//
//go:nosplit
func ackTimer() { amd64.EOI() }

// raisePriority and lowerPriority switch the task priority between the kernel's, which only the
// sampler's vector passes, and the thread's (holdback.go).
//
//go:nosplit
func raisePriority() { amd64.SetPriority(amd64.KernelPriority) }

//go:nosplit
func lowerPriority() { amd64.SetPriority(0) }

// maskInterrupts masks interrupts and returns what restoreInterrupts needs to undo it.
//
//go:nosplit
func maskInterrupts() uint64 { return amd64.IRQSave() }

// restoreInterrupts undoes maskInterrupts.
//
//go:nosplit
func restoreInterrupts(flags uint64) { amd64.IRQRestore(flags) }

// virtioWindow is where the machine's virtio-mmio slots are (QEMU microvm's).
func virtioWindow() (base uintptr, slots int) { return virtio.MicrovmBase, virtio.MicrovmSlots }

// framePC and frameSP are a trapped context's pc and stack pointer.
func framePC(f *Frame) uintptr { return uintptr(f.RIP) }
func frameSP(f *Frame) uintptr { return uintptr(f.RSP) }

// archIdleFrame, archThreadFrame, archRuntimeEntry and archEnter build thread contexts and
// enter one (startProgram).
func archIdleFrame(f *Frame)                   { amd64.IdleFrame(f) }
func archThreadFrame(f *Frame, pc, sp uintptr) { amd64.ThreadFrame(f, pc, sp) }
func archRuntimeEntry() uintptr                { return amd64.AddrOfRuntimeEntry() }
func archEnter(f *Frame)                       { amd64.Enter(f) }

// parkCPU waits for an interrupt with interrupts masked: as good as stopped.
func parkCPU() { amd64.Halt() }

// cpuIndex is the number of the CPU the kernel runs on.
func cpuIndex() int { return int(amd64.CPUIndex()) }

// syscallName names a Linux/amd64 system call for messages.
func syscallName(nr uint64) string {
	if n := sysnames.AMD64(nr); n != "" {
		return n
	}
	return "unknown"
}

// rewindSyscall puts f's pc back on the SYSCALL instruction (2 bytes) that entered the kernel,
// so the call runs again: RAX still holds its number, the other argument registers its
// arguments. unrewindSyscall undoes it.
func rewindSyscall(f *Frame)   { f.RIP -= 2 }
func unrewindSyscall(f *Frame) { f.RIP += 2 }

// archVDSOCodeLinked reports whether the vDSO's functions are in the image (vdso.go): the
// reference keeps the linker from dropping them, since only the image builder copies them.
func archVDSOCodeLinked() bool { return amd64.VDSOCodeLinked() }

func archClockParams() (base, mult uint64) { return amd64.ClockParams() }

// archKernelClock is CPU c's kernel clock as the entry stubs keep it: the counter at the entry
// it is in (0 while it runs a thread) and the ticks of the entries it has left.
func archKernelClock(c int) (since, ticks uint64) { return amd64.KernelClock(c) }

// archSyncInstructions: x86 keeps instruction fetch coherent with stores (SDM vol. 3A §11.6);
// the jump into the new code serialises enough.
func archSyncInstructions(addr, n uintptr) {}

// archSaveFPU completes the FP state in f, the running thread's context, before it leaves the
// CPU or is shown to the program: the trap stubs keep at most the SSE registers and MXCSR in the
// Frame (none for a system call), and the CPU holds the thread's x87 state (amd64.SyncFP). archLoadFPU puts the FP state
// of f, the context about to run here, into the CPU.
func archSaveFPU(f *Frame) { amd64.SyncFP(f) }
func archLoadFPU(f *Frame) { amd64.LoadX87(f) }
