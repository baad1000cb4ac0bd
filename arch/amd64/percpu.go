package amd64

import "github.com/unitrace/unitrace/arch/goabi"

// CPU is the per-CPU area. GS base points at it for the whole life of the CPU: the Go runtime on
// linux/amd64 never uses GS, and everything runs at ring 0, so no SWAPGS is needed. The entry
// stubs reach its fields through go_asm.h offsets (CPU_CurrentFrame, ...).
type CPU struct {
	Self uint64 // address of this CPU struct, so Go code can find it from GS:0

	// CurrentFrame is the address of the Frame of the trap being handled on this CPU: set by the
	// entry stub for the duration of the handler and restored on exit (Frame.Prev), so it is zero
	// whenever the CPU runs a thread and non-zero in every handler. The sampler reads the
	// interrupted thread's registers from it.
	CurrentFrame uint64

	SyscallStack uint64 // top of the kernel stack the SYSCALL stub switches to
	Scratch      uint64 // the SYSCALL stub parks the caller's RSP here while it switches stacks
	ID           uint64 // CPU number, 0 for the boot CPU

	// The CPU's kernel clock (KernelTime), kept by the entry stubs: KernelSince is the TSC at the
	// entry the CPU is in (0 while it runs a thread), KernelTicks the TSC ticks of every entry it
	// has left. Only this CPU writes them: KernelTicks first, then KernelSince.
	KernelSince uint64
	KernelTicks uint64

	// TimerLVT is what this CPU last wrote to its local APIC's LVT timer entry (0 before the
	// first write: the kernel never writes 0, vector 0 unmasked), so that arming the timer again
	// with the same vector skips the write.
	TimerLVT uint32
	_        uint32

	// TSS is this CPU's task-state segment (only its IST pointers are used).
	TSS [104]byte
	_   [8]byte
	// GDT is this CPU's descriptor table: null, kernel code, kernel data, TSS (two slots).
	GDT [5]uint64
	// GDTR is the LGDT operand for GDT.
	GDTR [16]byte

	// Fields for an application processor's start (StartAP, apStart64): the top of its boot
	// stack (less the 16 bytes of the entry call's argument area), the FS base that makes Go code
	// safe on that stack (its stand-in g's TLS slot), its local APIC ID, and Online, which the
	// AP sets once its descriptor tables are loaded.
	StackTop uint64
	FSBase   uint64
	APICID   uint64
	Online   uint32
	_        uint32

	// The deadline (TSC) and vector the local APIC timer was last armed for, and the TSC when it
	// was: ArmTimer skips arming it again for the same ones while the interrupt is surely still
	// to come (armedFor).
	TimerDeadline uint64
	TimerArmedAt  uint64
	TimerVector   uint8
	_             [7]byte
	// TimerWrites counts the initial-count writes ArmTimer made (the sampler's cost report).
	TimerWrites uint64
}

// MaxCPUs bounds the CPUs the hardware layer can run: the boot CPU and MaxCPUs-1 application
// processors, each with a fixed per-CPU area and numStackSlots kernel stacks.
const MaxCPUs = 16

// kstackSize is the size of every kernel stack (boot, SYSCALL, the IST stacks). Kernel stacks are
// aligned to their size so the entry stubs can find the stack's header from RSP alone.
const kstackSize = 32 << 10

// A kernel stack starts with a header that makes Go code safe to run on it: a stand-in g whose
// first words are the stack bounds the compiler's stack checks read (runtime.g.stack.lo, .hi,
// stackguard0, stackguard1: a layout known to the linker and stable across releases), and a TLS
// slot holding the address of that g. With FS base = kstackTLS+8 the ABI0 wrappers' load of g
// from FS:-8 finds it, every stack check passes while the stack has room, and an overflow calls
// morestack with g.m == nil, which faults at once instead of corrupting memory.
const (
	kstackGWords   = 16                    // the stand-in g (128 bytes), zero beyond the bounds
	kstackTLS      = kstackGWords * 8      // offset of the TLS slot (holds the g's address)
	kstackFSOffset = kstackTLS + 8         // FS base offset from the stack's base
	kstackLo       = kstackFSOffset + 8    // lowest usable stack byte (16-byte aligned)
	stackGuard     = goabi.StackGuard      // the runtime's, so that nosplit chains fit
	kstackGuard    = kstackLo + stackGuard // stackguard0 offset
)

// The stand-in g's fields that the stubs write (arch/goabi names their source), for the
// assembly's go_asm.h.
const (
	gStackLo     = goabi.GStackLo
	gStackHi     = goabi.GStackHi
	gStackGuard0 = goabi.GStackGuard0
	gStackGuard1 = goabi.GStackGuard1
)
