//go:build arm64 && !unitrace_host

package machine

import (
	"github.com/unitrace/unitrace/arch/arm64"
	"github.com/unitrace/unitrace/boot/fdt"
	"github.com/unitrace/unitrace/kernel/virtio"
	"github.com/unitrace/unitrace/trace/wire"
)

// HWCap is AT_HWCAP: which instructions the Go runtime may use (atomics, AES, CRC32, ...), from
// the ID registers.
func HWCap() uint64 { return arm64.HWCap() }

// Ticks reads the counter that stamps trace records and drives the timers (CNTVCT_EL0).
func Ticks() uint64 { return arm64.Ticks() }

// TicksHz is the counter's rate (CNTFRQ_EL0).
func TicksHz() uint64 { return arm64.TicksHz() }

// Nanotime is the kernel's clock: ns since the kernel's entry.
func Nanotime() int64 { return arm64.Nanotime() }

// HWRandom returns a hardware random number (RNDR) if the CPU has one.
func HWRandom() (uint64, bool) { return arm64.Random() }

// Exit stops the machine with status code (semihosting SYS_EXIT).
func Exit(code uint32) { arm64.Exit(code) }

// FaultExitValue is the exit code a kernel fault stops the machine with: 0x7f, as on amd64
// (semihosting passes it through exactly; internal/vmconfig expects it).
const FaultExitValue = 0x7f

// TextRange, pclntab and ImageRange locate the image's code, its pclntab and the whole image.
func TextRange() (lo, hi uintptr)   { return arm64.TextRange() }
func Pclntab() (start, end uintptr) { return arm64.Pclntab() }
func ImageRange() (start, end uintptr) {
	return arm64.ImageStart, arm64.ImageEnd()
}

// KernelStackBounds returns the kernel stack sp lies on.
func KernelStackBounds(sp uintptr) (lo, hi uintptr, ok bool) { return arm64.KernelStackBounds(sp) }

// ConsoleWrite writes to the console (PL011).
func ConsoleWrite(b []byte) { arm64.ConsoleWrite(b) }

// ConsoleReceive moves the bytes the PL011 holds into dst and returns how many.
//
//go:nosplit
func ConsoleReceive(dst []byte) int { return arm64.ConsoleReceive(dst) }

// ConsoleReceiveInterrupt unmasks or masks the PL011's receive interrupts.
//
//go:nosplit
func ConsoleReceiveInterrupt(on bool) { arm64.ConsoleReceiveInterrupt(on) }

// The trace format's names for this machine.
const (
	TraceArch       = wire.ArchARM64
	TraceTickSource = wire.TickCNTVCT
)

// NanosAt is the kernel's clock (Nanotime) at counter reading ticks (Ticks).
func NanosAt(ticks uint64) int64 { return arm64.NanosAt(ticks) }

// TimerHz is the rate the timer hardware counts at: the generic timer's, the counter's.
func TimerHz() uint64 { return TicksHz() }

// InitLocalTimer starts this CPU's timer interrupts: the virtual timer (the scheduler tick) and
// the physical timer (the sampler) through the GIC.
func InitLocalTimer() {
	arm64.EnableIRQ(arm64.TimerVirtual.INTID(), arm64.PriorityNormal)
	arm64.EnableIRQ(arm64.TimerPhysical.INTID(), arm64.PrioritySampler)
}

// ArmTimers arms the virtual timer for the scheduler tick and, when the sampler is on, the
// physical timer for the sampler: each client has its own timer and interrupt on arm64.
//
//go:nosplit
func ArmTimers(tick, sample uint64, samplerOn, _ bool) {
	arm64.ArmTimer(tick, arm64.TimerVirtual)
	if samplerOn {
		arm64.ArmTimer(sample, arm64.TimerPhysical)
	} else {
		arm64.StopTimer(arm64.TimerPhysical)
	}
}

// AckTimer does nothing on arm64: the trap dispatcher acknowledges the GIC around the handler,
// and re-arming the timers (armNext) drops their level-triggered lines.
//
//go:nosplit
func AckTimer() {}

// TimerWrites returns how many times cpu's timers were armed: the compare-value writes
// ArmTimers made, not the calls it skipped.
func TimerWrites(cpu int) uint64 { return arm64.TimerWrites(cpu) }

// SharedTimer: the tick has a timer of its own on arm64, never handed on by the sampler.
const SharedTimer = false

// HandOnTick is never called on arm64 (SharedTimer).
//
//go:nosplit
func HandOnTick() {}

// RaisePriority and LowerPriority switch the GIC's priority mask between the kernel's, which
// only the sampler's timer passes, and the thread's (the kernel's holdback.go).
//
//go:nosplit
func RaisePriority() { arm64.SetPriorityMask(arm64.PriorityMaskKernel) }

//go:nosplit
func LowerPriority() { arm64.SetPriorityMask(arm64.PriorityMaskThread) }

// MaskInterrupts masks interrupts and returns what RestoreInterrupts needs to undo it.
//
//go:nosplit
func MaskInterrupts() uint64 { return arm64.IRQSave() }

// RestoreInterrupts undoes MaskInterrupts.
//
//go:nosplit
func RestoreInterrupts(flags uint64) { arm64.IRQRestore(flags) }

// VirtioWindow is where the machine's virtio-mmio slots are: from the device tree, else QEMU
// virt's fixed window.
func VirtioWindow() (base uintptr, slots int) {
	if Board.NumVirtio > 0 {
		return uintptr(Board.Virtio[0].Reg.Addr), Board.NumVirtio
	}
	return virtio.VirtBase, virtio.VirtSlots
}

// IdleFrame, ThreadFrame, RuntimeEntry and Enter build thread contexts and
// enter one (the kernel's startProgram).
func IdleFrame(f *Frame)                   { arm64.IdleFrame(f) }
func ThreadFrame(f *Frame, pc, sp uintptr) { arm64.ThreadFrame(f, pc, sp) }
func RuntimeEntry() uintptr                { return arm64.AddrOfRuntimeEntry() }
func Enter(f *Frame)                       { arm64.Enter(f) }

// ParkCPU waits for an interrupt with interrupts masked: as good as stopped.
func ParkCPU() { arm64.WaitForInterrupt() }

// CPUIndex is the number of the CPU the kernel runs on.
func CPUIndex() int { return int(arm64.CPUIndex()) }

// VDSOCodeLinked reports whether the vDSO's functions are in the image (the kernel's vdso.go): the
// reference keeps the linker from dropping them, since only the image builder copies them.
func VDSOCodeLinked() bool { return arm64.VDSOCodeLinked() }

// ClockParams are the clock's parameters as Nanotime and the vDSO use them: ns = (Ticks() -
// base) * mult >> 32.
func ClockParams() (base, mult uint64) { return arm64.ClockParams() }

// KernelClock is CPU c's kernel clock as the entry stubs keep it: the counter at the entry
// it is in (0 while it runs a thread) and the ticks of the entries it has left.
func KernelClock(c int) (since, ticks uint64) { return arm64.KernelClock(c) }

func SyncInstructions(addr, n uintptr) { arm64.SyncInstructions(addr, n) }

// SaveFPU and LoadFPU have nothing to do on arm64: the trap stubs save and restore the
// whole FP/SIMD state in the Frame.
func SaveFPU(f *Frame) {}
func LoadFPU(f *Frame) {}

// CPURelax is the body of a spin-wait loop.
//
//go:nosplit
func CPURelax() {}

// FlushLocalTLB: arm64's TLB maintenance is broadcast to every CPU (TLBI ...IS), so there is
// nothing a CPU has to do on another's behalf.
func FlushLocalTLB() {}

// Board is what the device tree says about the board (QEMU virt).
var Board fdt.Machine

// ConsoleINTID is the PL011's interrupt, once ConsoleInputInit enabled it (0 before).
var ConsoleINTID uint32

// ConsoleInputInit enables the PL011's interrupt in the GIC (the device tree's, or QEMU
// virt's SPI 1 when the device tree names no UART) and unmasks its receive interrupts; false
// for a UART whose interrupt the device tree does not give.
func ConsoleInputInit() bool {
	intid := uint32(arm64.IntidUART)
	if Board.UART.Present() {
		intid = Board.UART.INTID
	}
	if intid == 0 {
		return false
	}
	ConsoleINTID = intid
	arm64.EnableConsoleReceive(intid)
	return true
}

// FlushLocalPage drops the TLB entries for the page holding va (every CPU's: arm64's
// invalidation is broadcast, and the page was this CPU's alone).
func FlushLocalPage(va uintptr) { arm64.FlushPage(va) }

// Readable reports whether the word at va may be loaded without a fault (the page tables say
// it is mapped).
func Readable(va uintptr) bool { return arm64.Readable(va) }
