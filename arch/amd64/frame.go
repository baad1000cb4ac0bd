package amd64

// Frame is the complete exception frame that every entry stub (the 256 interrupt vectors and the
// SYSCALL stub) builds on the kernel stack before it calls the kernel, and restores on the way out.
// It is also the saved context of a thread that is not running: a context switch copies frames.
//
// The layout is shared with assembly through go_asm.h (Frame_RAX, Frame__size, ...). The last
// seven words are in the order the CPU pushes them (Intel SDM vol. 3A §6.14.1, with the error code
// pushed by the stub for vectors that have none), which TestFrameHardwareTail pins.
type Frame struct {
	// FX is the FXSAVE64 image of the x87/SSE state. FXSAVE needs 16-byte alignment: the frame
	// starts 16-byte aligned because its size is a multiple of 16 and the CPU aligns the stack to
	// 16 bytes before pushing the hardware part.
	FX [512]byte
	// YMMHi holds the upper halves (bits 128-255) of YMM0-YMM15 when AVX is on
	// (avx_amd64.go), in the order of the XSAVE area's YMM_Hi128 component; all zero otherwise.
	// With FX it is the whole FP state.
	YMMHi [256]byte

	FSBase uint64 // IA32_FS_BASE of the interrupted context (the Go runtime's TLS)
	CR2    uint64 // fault address, for page faults (vector 14); 0 otherwise
	Prev   uint64 // the CPU's current-frame pointer before this entry (non-zero: nested in the kernel)
	// Entered is the TSC when the stub took the trap, or for a system call when its Go code
	// started the kernel clock (StartKernelClock; 0 until then). For a trap from a thread it
	// equals CPU.KernelSince; it is kept here too so that the trap's Go code reads it without a
	// call to find its CPU.
	Entered uint64

	// SSEUnsaved is 1 when a system call's entry left XMM0-XMM15 and MXCSR out of FX: the Go ABI
	// keeps no vector value live across a call (X15 is zero, the rest are scratch), so the
	// stub does not save them and the return path only zeroes X15. SyncFP fills them in (zero
	// registers, the CPU's MXCSR) before the context leaves the CPU or is shown to the program.
	SSEUnsaved uint64
	_          uint64 // keeps the size a multiple of 16, so FX stays 16-byte aligned (TestFrameLayout)

	R15, R14, R13, R12, R11, R10, R9, R8 uint64
	RBP, RDI, RSI, RDX, RCX, RBX, RAX    uint64

	Vector    uint64 // 0-255 for interrupts and exceptions, VectorSyscall for SYSCALL
	ErrorCode uint64 // pushed by the CPU for some exceptions, 0 otherwise

	RIP, CS, RFLAGS, RSP, SS uint64 // pushed by the CPU (built by the SYSCALL stub)
}

// VectorSyscall marks a frame built by the SYSCALL stub.
const VectorSyscall = 256

// Exception vectors (Intel SDM vol. 3A §6.3.1).
const (
	VectorDivideError    = 0
	VectorDebug          = 1
	VectorNMI            = 2
	VectorBreakpoint     = 3
	VectorInvalidOpcode  = 6
	VectorDeviceNA       = 7
	VectorDoubleFault    = 8
	VectorGeneralProtect = 13
	VectorPageFault      = 14
	VectorX87Error       = 16
	VectorAlignmentCheck = 17
	VectorMachineCheck   = 18
	VectorSIMDError      = 19
	VectorTimer          = 32   // the scheduler tick: the local APIC timer, or a self-IPI from the sampler's handler
	VectorSampler        = 0xfe // the local APIC timer while the sampler runs: the one vector above KernelPriority
	VectorSpurious       = 255
	FirstExternalVector  = 32
	NumVectors           = 256
)

// hasErrorCode reports whether the CPU pushes an error code for vector v.
func hasErrorCode(v int) bool {
	switch v {
	case 8, 10, 11, 12, 13, 14, 17, 21, 29, 30:
		return true
	}
	return false
}

// KernelPriority is the task-priority class (CR8, Intel SDM vol. 3A §11.8.3.1) that holds
// interrupts back from kernel code: the local APIC holds back every vector of this class and
// below, so only vectors 0xf0-0xfe (the sampler's) get through. Threads run at priority 0, and
// so does kernel code until an interrupt arrives in it that must wait for the trap's return
// (the kernel raises the priority then, lazily). So kernel code is sampled where it runs, while
// the tick, IPIs and device interrupts wait for the trap's return, as they did when the kernel
// ran with IF clear.
const KernelPriority = 14

// Segment selectors of the kernel's GDT (gdt.go).
const (
	KernelCS = 0x08
	KernelSS = 0x10
)

// RFLAGS bits.
const (
	FlagIF = 1 << 9  // interrupts enabled
	FlagDF = 1 << 10 // direction
	FlagTF = 1 << 8  // single step
	FlagAC = 1 << 18 // alignment check
	FlagNT = 1 << 14 // nested task

	// The arithmetic flags (Intel SDM vol. 1 §3.4.3.1).
	FlagCF = 1 << 0
	FlagPF = 1 << 2
	FlagAF = 1 << 4
	FlagZF = 1 << 6
	FlagSF = 1 << 7
	FlagOF = 1 << 11
)

// InitialFlags is RFLAGS for a new thread: interrupts on, reserved bit 1 set.
const InitialFlags = FlagIF | 2

// jumpFlags are the RFLAGS bits that trapReturn's jump back to a system call's caller sets as
// IRETQ would: the arithmetic flags, IF and the always-one bit 1.
const jumpFlags = FlagCF | 2 | FlagPF | FlagAF | FlagZF | FlagSF | FlagIF | FlagOF

// InitFX puts the default x87/SSE state into f.FX (what FNINIT and a reset MXCSR give): control
// word 0x037F, all x87 tags empty, MXCSR 0x1F80 (all SIMD exceptions masked, round to nearest).
func (f *Frame) InitFX() {
	f.FX = [512]byte{}
	f.FX[0] = 0x7f // FCW low byte
	f.FX[1] = 0x03 // FCW high byte
	// MXCSR at offset 24 (SDM vol. 1 Table 10-2).
	f.FX[24] = 0x80
	f.FX[25] = 0x1f
	// MXCSR_MASK at offset 28: 0 means the default mask 0xFFBF.
}

// PC returns the interrupted instruction pointer.
func (f *Frame) PC() uintptr { return uintptr(f.RIP) }

// SP returns the interrupted stack pointer.
func (f *Frame) SP() uintptr { return uintptr(f.RSP) }

// FP returns the interrupted frame pointer.
func (f *Frame) FP() uintptr { return uintptr(f.RBP) }
