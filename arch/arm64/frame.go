package arm64

// Frame is the complete exception frame that every vector stub builds on SP_EL1 before it calls
// the kernel, and restores on the way out with ERET. It is also the saved context of a thread
// that is not running: a context switch copies frames.
//
// The layout is shared with assembly through go_asm.h (Frame_X, Frame_ELR, Frame__size, ...).
// Nothing in it is pushed by hardware (AArch64 exceptions save only ELR_EL1 and SPSR_EL1, in
// system registers), so the order is ours; TestFrameLayout pins what the stubs rely on: X first
// (STP offsets must stay below 504), Q 16-byte aligned and within FSTPQ's reach of SP, the
// size a multiple of 16 (SP alignment is checked, SCTLR_EL1.SA).
//
// TPIDR_EL0 is not saved: Go on linux/arm64 only uses it with cgo, and images are built with
// CGO_ENABLED=0. SVE state is not saved either: CPACR_EL1.ZEN stays off and HWCap never
// reports SVE, so no thread can have any.
type Frame struct {
	// X holds x0-x30: x29 is the frame pointer, x30 the link register, x28 Go's g. In a frame of
	// an EL1h kind, X[18] is not the interrupted value: the stub uses x18 (the platform
	// register, which Go never uses) as scratch.
	X [31]uint64

	// SavedSP is the interrupted stack pointer: SP_EL0 for the EL1t kinds (a thread), the SP_EL1
	// the kernel was using for the EL1h kinds. Returning to EL1t reloads SP_EL0 from it;
	// returning to EL1h resumes on it. (Not named SP: the portable kernel calls f.SP().)
	SavedSP uint64

	ELR  uint64 // ELR_EL1: where ERET resumes (the faulting instruction, or the one after SVC)
	SPSR uint64 // SPSR_EL1: the interrupted PSTATE (mode, DAIF, NZCV)
	ESR  uint64 // ESR_EL1: the syndrome, for synchronous exceptions and SErrors
	FAR  uint64 // FAR_EL1: the fault address, for aborts (stale otherwise)
	Kind uint64 // which vector: KindSyncEL1t, ..., KindSErrorEL1h (VBAR offset / 0x80)
	Prev uint64 // the CPU's current-frame pointer before this entry (non-zero: nested in the kernel)

	// Jump is 1 when the context may be resumed by a branch instead of ERET: it entered the
	// kernel through a system-call site rewritten into a branch (svc.go), so its x18 is dead
	// (the return carries the target in it; Go never uses x18) and its PSTATE is a thread's
	// plain one. It travels with the context; the kernel clears it where it rewrites a context
	// wholesale (a signal's delivery, rt_sigreturn).
	Jump uint64
	// FPUnsaved is 1 when a system call's entry left q0-q31 out of Q: the Go ABI keeps no vector
	// value live across a call, and the runtime's system calls are calls. The return to such a
	// context loads none (the thread finds what the kernel's code left there); signal delivery
	// puts zeros in their place. FPCR and FPSR are always saved.
	FPUnsaved uint64

	FPCR uint64
	FPSR uint64
	// Q holds q0-q31, each as two words (low, high): the whole FP/SIMD state with FPCR and FPSR.
	Q [64]uint64
}

// Kinds of exception, in VBAR_EL1 order (Arm ARM D1.10.2, table D1-7): the vector offset is
// Kind*0x80. Threads run in EL1t, so the first four mean "from a thread"; the next four mean
// "from the kernel itself". The last eight (from a lower EL) cannot happen, as nothing runs at
// EL0; their stubs still build a frame (on the EL1h path) so the kernel can report them.
const (
	KindSyncEL1t   = 0
	KindIRQEL1t    = 1
	KindFIQEL1t    = 2
	KindSErrorEL1t = 3
	KindSyncEL1h   = 4
	KindIRQEL1h    = 5
	KindFIQEL1h    = 6
	KindSErrorEL1h = 7
	KindSyncLower  = 8 // 8-11: lower EL, AArch64; 12-15: lower EL, AArch32
	NumKinds       = 16
)

// FromThread reports whether the exception interrupted a thread (EL1t), as opposed to the kernel.
func (f *Frame) FromThread() bool { return f.Kind < KindSyncEL1h }

// IsIRQ reports whether the frame is an interrupt (IRQ) rather than a synchronous exception, an
// FIQ or an SError.
func (f *Frame) IsIRQ() bool { return f.Kind == KindIRQEL1t || f.Kind == KindIRQEL1h }

// SPSR_EL1 bits (Arm ARM C5.2.18).
const (
	SPSRModeEL1t = 0x4 // M[3:0]: EL1 using SP_EL0
	SPSRModeEL1h = 0x5 // M[3:0]: EL1 using SP_EL1
	SPSRModeMask = 0xf
	SPSRF        = 1 << 6 // FIQ masked
	SPSRI        = 1 << 7 // IRQ masked
	SPSRA        = 1 << 8 // SError masked
	SPSRD        = 1 << 9 // debug exceptions masked
	SPSRSS       = 1 << 21
)

// InitialSPSR is SPSR for a new thread: EL1t, interrupts and SErrors unmasked.
const InitialSPSR = SPSRModeEL1t

// PC returns the interrupted instruction's address (for SVC, the one after it).
func (f *Frame) PC() uintptr { return uintptr(f.ELR) }

// SP returns the interrupted stack pointer.
func (f *Frame) SP() uintptr { return uintptr(f.SavedSP) }

// FP returns the interrupted frame pointer (x29).
func (f *Frame) FP() uintptr { return uintptr(f.X[29]) }

// LR returns the interrupted link register (x30).
func (f *Frame) LR() uintptr { return uintptr(f.X[30]) }
