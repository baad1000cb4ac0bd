//go:build amd64 && !unitrace_host

package machine

import (
	"github.com/unitrace/unitrace/arch/amd64"
	"github.com/unitrace/unitrace/kernel/virtio"
	"github.com/unitrace/unitrace/trace/wire"
)

// HWCap is AT_HWCAP: nothing to the Go runtime on amd64, which reads CPUID itself.
func HWCap() uint64 { return 0 }

// Ticks reads the counter that stamps trace records and drives the timers (the TSC).
func Ticks() uint64 { return amd64.Rdtsc() }

// TicksHz is the counter's rate.
func TicksHz() uint64 { return amd64.TSCHz() }

// Nanotime is the kernel's clock: ns since the kernel's entry.
func Nanotime() int64 { return amd64.Nanotime() }

// HWRandom returns a hardware random number (RDRAND) if the CPU has one.
func HWRandom() (uint64, bool) { return amd64.Random() }

// Exit stops the machine with status code (isa-debug-exit).
func Exit(code uint32) { amd64.Exit(code) }

// FaultExitValue is the exit code a kernel fault stops the machine with.
const FaultExitValue = amd64.FaultExitValue

// TextRange, pclntab and ImageRange locate the image's code, its pclntab and the whole image.
func TextRange() (lo, hi uintptr)   { return amd64.TextRange() }
func Pclntab() (start, end uintptr) { return amd64.Pclntab() }
func ImageRange() (start, end uintptr) {
	return amd64.ImageStart, amd64.ImageEnd()
}

// KernelStackBounds returns the kernel stack sp lies on.
func KernelStackBounds(sp uintptr) (lo, hi uintptr, ok bool) { return amd64.KernelStackBounds(sp) }

// ConsoleWrite writes to the console (COM1).
func ConsoleWrite(b []byte) { amd64.ConsoleWrite(b) }

// ConsoleInputInit routes COM1's interrupt (ISA IRQ 4, GSI 4 on q35 and microvm) through
// the I/O APIC and turns the UART's receive interrupt on; false if no I/O APIC has the line.
func ConsoleInputInit() bool {
	if !amd64.RouteLegacyGSI(amd64.ConsoleGSI) {
		return false
	}
	amd64.EnableConsoleReceive()
	return true
}

// ConsoleReceive moves the bytes COM1 holds into dst and returns how many.
//
//go:nosplit
func ConsoleReceive(dst []byte) int { return amd64.ConsoleReceive(dst) }

// ConsoleReceiveInterrupt turns COM1's receive interrupt on or off.
//
//go:nosplit
func ConsoleReceiveInterrupt(on bool) { amd64.ConsoleReceiveInterrupt(on) }

// The trace format's names for this machine.
const (
	TraceArch       = wire.ArchAMD64
	TraceTickSource = wire.TickTSC
)

// NanosAt is the kernel's clock (Nanotime) at counter reading ticks (Ticks).
func NanosAt(ticks uint64) int64 { return amd64.NanosAt(ticks) }

// TimerHz is the rate the timer hardware counts at: the local APIC timer's, calibrated.
func TimerHz() uint64 { return amd64.TimerHz() }

// InitLocalTimer starts this CPU's timer hardware (the local APIC's), unarmed.
func InitLocalTimer() { amd64.InitLocalTimer() }

// ArmTimers arms this CPU's timer for the scheduler tick's deadline and, when the sampler is on,
// the sampler's (in ticks). On amd64 one LAPIC timer serves both. While the sampler runs it is
// armed for the earlier deadline on the sampler's vector, the one kernel code can take: armed
// on the tick's vector, it would wait out kernel code with the sampler's deadline unarmed. The
// sampler's handler hands a due tick on (HandOnTick); until that has run (tickHandedOn), only the
// sampler's deadline counts. With the sampler off the timer serves the tick on its own vector.
//
//go:nosplit
func ArmTimers(tick, sample uint64, samplerOn, tickHandedOn bool) {
	if !samplerOn {
		amd64.ArmTimer(tick, amd64.VectorTimer)
		return
	}
	if !tickHandedOn {
		sample = min(sample, tick)
	}
	amd64.ArmTimer(sample, amd64.VectorSampler)
}

// SharedTimer: the sampler's handler may find the tick due (one timer serves both).
const SharedTimer = true

// HandOnTick raises the scheduler tick's interrupt on this CPU, to be taken when the code the
// sampler interrupted lets it (a self-IPI below the kernel's task priority).
//
//go:nosplit
func HandOnTick() { amd64.SendSelfIPI(amd64.VectorTimer) }

// AckTimer acknowledges the timer interrupt being handled.
//
//go:nosplit
func AckTimer() { amd64.EOI() }

// TimerWrites returns how many times cpu's timer was armed: the writes ArmTimers made, not the
// calls it skipped.
func TimerWrites(cpu int) uint64 { return amd64.TimerWrites(cpu) }

// RaisePriority and LowerPriority switch the task priority between the kernel's, which only the
// sampler's vector passes, and the thread's (the kernel's holdback.go).
//
//go:nosplit
func RaisePriority() { amd64.SetPriority(amd64.KernelPriority) }

//go:nosplit
func LowerPriority() { amd64.SetPriority(0) }

// MaskInterrupts masks interrupts and returns what RestoreInterrupts needs to undo it.
//
//go:nosplit
func MaskInterrupts() uint64 { return amd64.IRQSave() }

// RestoreInterrupts undoes MaskInterrupts.
//
//go:nosplit
func RestoreInterrupts(flags uint64) { amd64.IRQRestore(flags) }

// VirtioWindow is where the machine's virtio-mmio slots are (QEMU microvm's).
func VirtioWindow() (base uintptr, slots int) { return virtio.MicrovmBase, virtio.MicrovmSlots }

// IdleFrame, ThreadFrame, RuntimeEntry and Enter build thread contexts and
// enter one (the kernel's startProgram).
func IdleFrame(f *Frame)                   { amd64.IdleFrame(f) }
func ThreadFrame(f *Frame, pc, sp uintptr) { amd64.ThreadFrame(f, pc, sp) }
func RuntimeEntry() uintptr                { return amd64.AddrOfRuntimeEntry() }
func Enter(f *Frame)                       { amd64.Enter(f) }

// ParkCPU waits for an interrupt with interrupts masked: as good as stopped.
func ParkCPU() { amd64.Halt() }

// CPUIndex is the number of the CPU the kernel runs on.
func CPUIndex() int { return int(amd64.CPUIndex()) }

// VDSOCodeLinked reports whether the vDSO's functions are in the image (the kernel's vdso.go): the
// reference keeps the linker from dropping them, since only the image builder copies them.
func VDSOCodeLinked() bool { return amd64.VDSOCodeLinked() }

// ClockParams are the clock's parameters as Nanotime and the vDSO use them: ns = (Ticks() -
// base) * mult >> 32.
func ClockParams() (base, mult uint64) { return amd64.ClockParams() }

// KernelClock is CPU c's kernel clock as the entry stubs keep it: the counter at the entry
// it is in (0 while it runs a thread) and the ticks of the entries it has left.
func KernelClock(c int) (since, ticks uint64) { return amd64.KernelClock(c) }

// SyncInstructions: x86 keeps instruction fetch coherent with stores (SDM vol. 3A §11.6);
// the jump into the new code serialises enough.
func SyncInstructions(addr, n uintptr) {}

// SaveFPU completes the FP state in f, the running thread's context, before it leaves the
// CPU or is shown to the program: the trap stubs keep at most the SSE registers and MXCSR in the
// Frame (none for a system call), and the CPU holds the thread's x87 state (amd64.SyncFP). LoadFPU puts the FP state
// of f, the context about to run here, into the CPU.
func SaveFPU(f *Frame) { amd64.SyncFP(f) }
func LoadFPU(f *Frame) { amd64.LoadX87(f) }

// CPURelax is the body of a spin-wait loop.
//
//go:nosplit
func CPURelax() { amd64.Pause() }

// FlushLocalTLB drops this CPU's cached translations.
func FlushLocalTLB() { amd64.FlushTLB() }

// FlushLocalPage drops this CPU's TLB entry for the page holding va.
func FlushLocalPage(va uintptr) { amd64.Invlpg(va) }

// Readable reports whether the word at va may be loaded without a fault (the page tables say
// it is mapped).
func Readable(va uintptr) bool { return amd64.Readable(va) }
