package kernel

import (
	"github.com/unitrace/unitrace/arch/arm64"
	"github.com/unitrace/unitrace/kernel/sysnames"
	"github.com/unitrace/unitrace/kernel/virtio"
	"github.com/unitrace/unitrace/trace/wire"
)

// The kernel's view of the hardware layer on arm64 (the same names as arch_amd64.go).
type Frame = arm64.Frame

// Linux/arm64 system-call convention: number in x8, arguments in x0-x5, result in x0.
func sysNum(f *Frame) uint64 { return f.X[8] }

func sysArgs(f *Frame, a *syscallArgs) {
	a[0], a[1], a[2], a[3], a[4], a[5] = f.X[0], f.X[1], f.X[2], f.X[3], f.X[4], f.X[5]
}

func setSysRet(f *Frame, v uint64) { f.X[0] = v }

// sysRet is the result setSysRet stored.
func sysRet(f *Frame) uint64 { return f.X[0] }

// struct epoll_event is naturally aligned (16 bytes) on arm64.
const (
	epollPacked    = false
	epollEventSize = 16
)

// archPlatform is AT_PLATFORM; AT_HWCAP tells the Go runtime which instructions it may use
// (atomics, AES, CRC32, ...), from the ID registers.
const archPlatform = "aarch64"

func archHWCap() uint64 { return arm64.HWCap() }

// ticks reads the counter that stamps trace records and drives the timers (CNTVCT_EL0).
func ticks() uint64 { return arm64.Ticks() }

// ticksHz is the counter's rate (CNTFRQ_EL0).
func ticksHz() uint64 { return arm64.TicksHz() }

// archNanotime is the kernel's clock: ns since the kernel's entry.
func archNanotime() int64 { return arm64.Nanotime() }

// hwRandom returns a hardware random number (RNDR) if the CPU has one.
func hwRandom() (uint64, bool) { return arm64.Random() }

// exitMachine stops the machine with status code (semihosting SYS_EXIT).
func exitMachine(code uint32) { arm64.Exit(code) }

// faultExitValue is the exit code a kernel fault stops the machine with: 0x7f, as on amd64
// (semihosting passes it through exactly; internal/vmconfig expects it).
const faultExitValue = 0x7f

// textRange, pclntab and imageRange locate the image's code, its pclntab and the whole image.
func textRange() (lo, hi uintptr)   { return arm64.TextRange() }
func pclntab() (start, end uintptr) { return arm64.Pclntab() }
func imageRange() (start, end uintptr) {
	return arm64.ImageStart, arm64.ImageEnd()
}

// kernelStackBounds returns the kernel stack sp lies on.
func kernelStackBounds(sp uintptr) (lo, hi uintptr, ok bool) { return arm64.KernelStackBounds(sp) }

// consoleWrite writes to the console (PL011).
func consoleWrite(b []byte) { arm64.ConsoleWrite(b) }

// archConsoleReceive moves the bytes the PL011 holds into dst and returns how many.
//
//go:nosplit
func archConsoleReceive(dst []byte) int { return arm64.ConsoleReceive(dst) }

// archConsoleReceiveInterrupt unmasks or masks the PL011's receive interrupts.
//
//go:nosplit
func archConsoleReceiveInterrupt(on bool) { arm64.ConsoleReceiveInterrupt(on) }

// The trace format's names for this machine.
const (
	traceArch       = wire.ArchARM64
	traceTickSource = wire.TickCNTVCT
)

// initLocalTimer starts this CPU's timer interrupts: the virtual timer (the scheduler tick) and
// the physical timer (the sampler) through the GIC.
func initLocalTimer() {
	arm64.EnableIRQ(arm64.TimerVirtual.INTID(), arm64.PriorityNormal)
	arm64.EnableIRQ(arm64.TimerPhysical.INTID(), arm64.PrioritySampler)
}

// armTimers arms the virtual timer for the scheduler tick and, when the sampler is on, the
// physical timer for the sampler: each client has its own timer and interrupt on arm64.
//
//go:nosplit
func armTimers(tick, sample uint64, samplerOn, _ bool) {
	arm64.ArmTimer(tick, arm64.TimerVirtual)
	if samplerOn {
		arm64.ArmTimer(sample, arm64.TimerPhysical)
	} else {
		arm64.StopTimer(arm64.TimerPhysical)
	}
}

// ackTimer does nothing on arm64: the trap dispatcher acknowledges the GIC around the handler,
// and re-arming the timers (armNext) drops their level-triggered lines.
//
//go:nosplit
func ackTimer() {}

// sharedTimer: the tick has a timer of its own on arm64, never handed on by the sampler.
const sharedTimer = false

// handOnTick is never called on arm64 (sharedTimer).
//
//go:nosplit
func handOnTick() {}

// raisePriority and lowerPriority switch the GIC's priority mask between the kernel's, which
// only the sampler's timer passes, and the thread's (holdback.go).
//
//go:nosplit
func raisePriority() { arm64.SetPriorityMask(arm64.PriorityMaskKernel) }

//go:nosplit
func lowerPriority() { arm64.SetPriorityMask(arm64.PriorityMaskThread) }

// maskInterrupts masks interrupts and returns what restoreInterrupts needs to undo it.
//
//go:nosplit
func maskInterrupts() uint64 { return arm64.IRQSave() }

// restoreInterrupts undoes maskInterrupts.
//
//go:nosplit
func restoreInterrupts(flags uint64) { arm64.IRQRestore(flags) }

// virtioWindow is where the machine's virtio-mmio slots are: from the device tree, else QEMU
// virt's fixed window.
func virtioWindow() (base uintptr, slots int) {
	if machine.NumVirtio > 0 {
		return uintptr(machine.Virtio[0].Reg.Addr), machine.NumVirtio
	}
	return virtio.VirtBase, virtio.VirtSlots
}

// framePC and frameSP are a trapped context's pc and stack pointer.
func framePC(f *Frame) uintptr { return f.PC() }
func frameSP(f *Frame) uintptr { return f.SP() }

// archIdleFrame, archThreadFrame, archRuntimeEntry and archEnter build thread contexts and
// enter one (startProgram).
func archIdleFrame(f *Frame)                   { arm64.IdleFrame(f) }
func archThreadFrame(f *Frame, pc, sp uintptr) { arm64.ThreadFrame(f, pc, sp) }
func archRuntimeEntry() uintptr                { return arm64.AddrOfRuntimeEntry() }
func archEnter(f *Frame)                       { arm64.Enter(f) }

// parkCPU waits for an interrupt with interrupts masked: as good as stopped.
func parkCPU() { arm64.WaitForInterrupt() }

// cpuIndex is the number of the CPU the kernel runs on.
func cpuIndex() int { return int(arm64.CPUIndex()) }

// syscallName names a Linux/arm64 system call for messages.
func syscallName(nr uint64) string {
	if n := sysnames.ARM64(nr); n != "" {
		return n
	}
	return "unknown"
}

// rewindSyscall puts f's pc back on the SVC instruction (4 bytes) that entered the kernel, so
// the call runs again: X8 still holds its number, X0-X5 its arguments (the result was not
// stored). unrewindSyscall undoes it.
func rewindSyscall(f *Frame)   { f.ELR -= 4 }
func unrewindSyscall(f *Frame) { f.ELR += 4 }

// archVDSOCodeLinked reports whether the vDSO's functions are in the image (vdso.go): the
// reference keeps the linker from dropping them, since only the image builder copies them.
func archVDSOCodeLinked() bool { return arm64.VDSOCodeLinked() }

func archClockParams() (base, mult uint64) { return arm64.ClockParams() }

// archKernelClock is CPU c's kernel clock as the entry stubs keep it: the counter at the entry
// it is in (0 while it runs a thread) and the ticks of the entries it has left.
func archKernelClock(c int) (since, ticks uint64) { return arm64.KernelClock(c) }

func archSyncInstructions(addr, n uintptr) { arm64.SyncInstructions(addr, n) }

// archSaveFPU and archLoadFPU have nothing to do on arm64: the trap stubs save and restore the
// whole FP/SIMD state in the Frame.
func archSaveFPU(f *Frame) {}
func archLoadFPU(f *Frame) {}
