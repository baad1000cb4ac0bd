package arm64

import "github.com/unitrace/unitrace/arch/goabi"

// CPU is the per-CPU area. TPIDR_EL1 points at it for the whole life of the CPU: Go on
// linux/arm64 keeps g in R28 and never touches TPIDR_EL1 (TPIDR_EL0 only with cgo), so the
// register is ours. The entry stubs reach its fields through go_asm.h offsets (CPU_CurrentFrame,
// ...).
type CPU struct {
	Self uint64 // address of this CPU struct, so Go code can check TPIDR_EL1

	// CurrentFrame is the address of the Frame of the trap being handled on this CPU: set by the
	// entry stub for the duration of the handler and restored on exit (Frame.Prev), so it is zero
	// whenever the CPU runs a thread and non-zero in every handler. The sampler reads the
	// interrupted thread's registers from it.
	CurrentFrame uint64

	ID uint64 // CPU number, 0 for the boot CPU

	// TrapStack is the top of the kernel stack SP_EL1 holds while a thread runs: every
	// exception from EL1t builds its Frame just below it.
	TrapStack uint64

	// FaultStack is the top of the stack an exception from EL1h moves to when the kernel stack
	// it interrupted is short of room (a kernel stack overflow), so the fault can be reported.
	FaultStack uint64

	Scratch uint64 // free for the stubs' use

	// The CPU's kernel clock (KernelClock), kept by the entry stubs: KernelSince is CNTVCT at the
	// entry the CPU is in (0 while it runs a thread), KernelTicks the counter ticks of every
	// entry it has left. Only this CPU writes them: KernelTicks first, then KernelSince.
	KernelSince uint64
	KernelTicks uint64

	// The fields below are written by StartCPU before PSCI CPU_ON and read by secondaryEntry
	// with its MMU still off, so StartCPU cleans them to the point of coherency.

	MPIDR     uint64 // the CPU's MPIDR_EL1 affinity (its GICv3 and PSCI address)
	BootStack uint64 // top of the CPU's boot stack (slotBoot), its first SP_EL1
	TTBR0     uint64 // page tables the CPU turns its MMU on with: the boot CPU's, shared

	// TimerArmed holds the deadline (virtual counter) each timer (Timer) was last armed for, 0
	// while it is stopped, so that arming it again for the same one writes nothing (ArmTimer);
	// TimerWrites counts the compare-value writes (the sampler's cost report).
	TimerArmed  [2]uint64
	TimerWrites uint64
}

// MaxCPUs is how many CPUs the hardware layer can run: the size of the per-CPU area array and
// of the kernel stack region after the image (MaxCPUs*numStackSlots stacks).
const MaxCPUs = 8

// kstackSize is the size of every kernel stack (boot, trap, fault, idle). Kernel stacks are
// aligned to their size so the entry stubs can find the stack's header from SP alone.
const kstackSize = 32 << 10

// A kernel stack starts with a header that makes Go code safe to run on it: a stand-in g whose
// first words are the stack bounds the compiler's stack checks read (runtime.g.stack.lo, .hi,
// stackguard0, stackguard1: a layout known to the linker and stable across releases). The stubs
// point R28 (g; the ABI0 wrappers do not reload it on arm64) at that g. Every stack check then
// passes while the stack has room, and an overflow calls morestack with g.m == nil, which faults
// at once (a load near address 0, which is unmapped) instead of corrupting memory.
const (
	kstackGWords = 16                    // the stand-in g (128 bytes), zero beyond the bounds
	kstackLo     = kstackGWords * 8      // lowest usable stack byte (16-byte aligned)
	stackGuard   = goabi.StackGuard      // the runtime's, so that nosplit chains fit
	kstackGuard  = kstackLo + stackGuard // stackguard0 offset
)

// The stand-in g's fields that the stubs write (arch/goabi names their source), for the
// assembly's go_asm.h.
const (
	gStackLo     = goabi.GStackLo
	gStackHi     = goabi.GStackHi
	gStackGuard0 = goabi.GStackGuard0
	gStackGuard1 = goabi.GStackGuard1
)

// kstackTrapRoom is how much room an exception from EL1h needs on the stack it interrupted: its
// Frame, the handler's Go frames and a fault report. With less (SP within this many bytes of
// its stack's base) the stub moves to the CPU's fault stack. A multiple of 4096, so CMP encodes
// it as a shifted 12-bit immediate.
const kstackTrapRoom = 8 << 10

// frameGap is left free above every Frame the stubs build: the kernel code an EL1h exception
// interrupts may have live data just below its SP (Go's arm64 prologue saves the caller's frame
// pointer at SP-8), so a Frame must start at least 16 bytes lower. Frames taken from EL1t keep
// the same gap, so every Frame sits at the same distance from the SP it was built from.
const frameGap = 16

// trapReserve is how far a stub lowers SP_EL1 to build a Frame.
const trapReserve = frameSize + frameGap
