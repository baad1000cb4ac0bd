#include "textflag.h"
#include "go_asm.h"
#include "entry_amd64.h"

#define MSR_FS_BASE 0xc0000100

// syscallEntry is the SYSCALL target (IA32_LSTAR).
//
// Entry state (Intel SDM vol. 2B SYSCALL, at CPL 0): RCX = return RIP, R11 = RFLAGS, RFLAGS
// masked by IA32_FMASK (IF, DF, TF, AC off), CS/SS from IA32_STAR (0x08/0x10), RSP unchanged:
// still the calling thread's stack, which must not be written (Go keeps no red zone, but the
// room below a goroutine's SP belongs to the runtime's nosplit budget).
//
// It parks RSP in the per-CPU area, switches to the per-CPU SYSCALL stack, pushes an IRETQ
// frame as the CPU would for an interrupt (SS, RSP, RFLAGS, CS, RIP), error code 0 and
// VectorSyscall, and joins trapCommon. It returns through trapCommon's IRETQ, never SYSRET
// (SYSRET always drops to CPL 3). Linux preserves every register but RAX, RCX and R11 across a
// system call, and so does this path: RCX and R11 come back as the return RIP and RFLAGS.
TEXT ·syscallEntry(SB),NOSPLIT|NOFRAME,$0
	MOVQ	SP, CPU_Scratch(GS)
	MOVQ	CPU_SyscallStack(GS), SP
	PUSHQ	$const_KernelSS
	PUSHQ	CPU_Scratch(GS)
	PUSHQ	R11
	PUSHQ	$const_KernelCS
	PUSHQ	CX
	PUSHQ	$0
	PUSHQ	$const_VectorSyscall
	JMP	·trapCommon(SB)

// trapCommon completes the Frame that the CPU and a vector stub (or syscallEntry) began, calls
// the kernel's trap entry point with its address, and returns from the trap with whatever
// context the Frame then holds: the kernel switches threads by rewriting the Frame.
//
// Entry: interrupts masked, on a kernel stack (an IST stack, or the SYSCALL stack), and
//	SP+0 Vector, SP+8 ErrorCode, SP+16 RIP, CS, RFLAGS, RSP, SS   (higher addresses)
// Every general register still holds the interrupted context's value.
//
// Before calling Go it saves all registers and, but for a system call, the TSC (Frame.Entered,
// which starts the CPU's kernel clock; a system call's Go code starts it only when the call
// needs the kernel lock or the sampler runs: StartKernelClock). It saves the SSE
// registers and MXCSR into the Frame's FXSAVE image, at FXSAVE's offsets (not FXSAVE itself,
// whose x87 half costs an emulator microseconds per trap; kernel code never touches the x87
// state, so the CPU keeps the thread's, and the kernel saves it only where a thread's context
// leaves the CPU: SyncFP, LoadX87), except for a system call: the Go ABI keeps no vector value
// live across one (Frame.SSEUnsaved). With AVX on (avx_amd64.go) it saves the YMM registers'
// upper halves too (Frame.YMMHi), but for a system call, for the same reason. It records FS base and, for a page fault, CR2,
// switches FS base to the stack's stand-in g (percpu.go), links the Frame into
// CPU.CurrentFrame (the previous value goes to Frame.Prev), clears RBP so frame-pointer walks
// of the handler end here, and clears DF (the Go ABI requires it).
// It returns with IRETQ; it clobbers nothing that the Frame does not restore.
TEXT ·trapCommon(SB),NOSPLIT|NOFRAME,$0
	// LEAQ, not SUBQ: the linker's nosplit analysis budgets goroutine stacks and would count
	// this Frame against them, but this code always runs on a kernel stack (kstackSize bytes).
	LEAQ	-Frame_Vector(SP), SP
	MOVQ	AX, Frame_RAX(SP)
	MOVQ	BX, Frame_RBX(SP)
	MOVQ	CX, Frame_RCX(SP)
	MOVQ	DX, Frame_RDX(SP)
	MOVQ	SI, Frame_RSI(SP)
	MOVQ	DI, Frame_RDI(SP)
	MOVQ	BP, Frame_RBP(SP)
	MOVQ	R8, Frame_R8(SP)
	MOVQ	R9, Frame_R9(SP)
	MOVQ	R10, Frame_R10(SP)
	MOVQ	R11, Frame_R11(SP)
	MOVQ	R12, Frame_R12(SP)
	MOVQ	R13, Frame_R13(SP)
	MOVQ	R14, Frame_R14(SP)
	MOVQ	R15, Frame_R15(SP)
	MOVQ	$0, Frame_CR2(SP)
	CMPQ	Frame_Vector(SP), $const_VectorSyscall
	JNE	notSyscall
	// A system call: the kernel clock stays stopped (Frame.Entered 0) unless its Go code starts
	// it (StartKernelClock), and no vector register is live across it.
	MOVQ	$0, Frame_Entered(SP)
	MOVQ	$1, Frame_SSEUnsaved(SP)
	JMP	sseDone
notSyscall:
	RDTSC
	SHLQ	$32, DX
	ORQ	DX, AX
	MOVQ	AX, Frame_Entered(SP)
	CMPQ	Frame_Vector(SP), $const_VectorPageFault
	JNE	noCR2
	MOVQ	CR2, AX
	MOVQ	AX, Frame_CR2(SP)
noCR2:
	MOVQ	$0, Frame_SSEUnsaved(SP)
	STMXCSR	(Frame_FX+24)(SP)
	MOVUPS	X0, (Frame_FX+160)(SP)
	MOVUPS	X1, (Frame_FX+176)(SP)
	MOVUPS	X2, (Frame_FX+192)(SP)
	MOVUPS	X3, (Frame_FX+208)(SP)
	MOVUPS	X4, (Frame_FX+224)(SP)
	MOVUPS	X5, (Frame_FX+240)(SP)
	MOVUPS	X6, (Frame_FX+256)(SP)
	MOVUPS	X7, (Frame_FX+272)(SP)
	MOVUPS	X8, (Frame_FX+288)(SP)
	MOVUPS	X9, (Frame_FX+304)(SP)
	MOVUPS	X10, (Frame_FX+320)(SP)
	MOVUPS	X11, (Frame_FX+336)(SP)
	MOVUPS	X12, (Frame_FX+352)(SP)
	MOVUPS	X13, (Frame_FX+368)(SP)
	MOVUPS	X14, (Frame_FX+384)(SP)
	MOVUPS	X15, (Frame_FX+400)(SP)
	CMPB	·avxOn(SB), $0
	JEQ	sseDone
	VEXTRACTF128	$1, Y0, (Frame_YMMHi+0)(SP)
	VEXTRACTF128	$1, Y1, (Frame_YMMHi+16)(SP)
	VEXTRACTF128	$1, Y2, (Frame_YMMHi+32)(SP)
	VEXTRACTF128	$1, Y3, (Frame_YMMHi+48)(SP)
	VEXTRACTF128	$1, Y4, (Frame_YMMHi+64)(SP)
	VEXTRACTF128	$1, Y5, (Frame_YMMHi+80)(SP)
	VEXTRACTF128	$1, Y6, (Frame_YMMHi+96)(SP)
	VEXTRACTF128	$1, Y7, (Frame_YMMHi+112)(SP)
	VEXTRACTF128	$1, Y8, (Frame_YMMHi+128)(SP)
	VEXTRACTF128	$1, Y9, (Frame_YMMHi+144)(SP)
	VEXTRACTF128	$1, Y10, (Frame_YMMHi+160)(SP)
	VEXTRACTF128	$1, Y11, (Frame_YMMHi+176)(SP)
	VEXTRACTF128	$1, Y12, (Frame_YMMHi+192)(SP)
	VEXTRACTF128	$1, Y13, (Frame_YMMHi+208)(SP)
	VEXTRACTF128	$1, Y14, (Frame_YMMHi+224)(SP)
	VEXTRACTF128	$1, Y15, (Frame_YMMHi+240)(SP)
sseDone:

	MOVQ	SP, BX                  // FS base = this kernel stack's TLS slot + 8
	ANDQ	$~(const_kstackSize-1), BX
	ADDQ	$const_kstackFSOffset, BX
	CMPB	·fsgsbase(SB), $0
	JEQ	fsMSR
	RDFSBASEQ	AX
	MOVQ	AX, Frame_FSBase(SP)
	WRFSBASEQ	BX
	JMP	fsDone
fsMSR:
	MOVL	$MSR_FS_BASE, CX
	RDMSR
	SHLQ	$32, DX
	ORQ	DX, AX
	MOVQ	AX, Frame_FSBase(SP)
	MOVQ	BX, AX
	MOVQ	BX, DX
	SHRQ	$32, DX
	WRMSR
fsDone:

	MOVQ	CPU_CurrentFrame(GS), AX
	MOVQ	AX, Frame_Prev(SP)
	MOVQ	SP, CPU_CurrentFrame(GS)
	TESTQ	AX, AX
	JNE	nested
	MOVQ	Frame_Entered(SP), AX   // from a thread: the CPU's kernel clock runs from here
	MOVQ	AX, CPU_KernelSince(GS)
nested:
	CLD
	XORL	BP, BP
	MOVQ	SP, BX
	SUBQ	$16, SP
	MOVQ	BX, 0(SP)
	MOVQ	·trapInternal(SB), CX
	TESTQ	CX, CX
	JEQ	abi0
	// The kernel's trap by its register ABI, as its ABI0 wrapper would call it (tests/layout
	// checks that wrapper): the Frame in RAX, g in R14 (the stand-in g at FS base - 8), X15
	// zero; 0(SP) is the argument's spill slot.
	MOVQ	BX, AX
	XORPS	X15, X15
	MOVQ	(TLS), R14
	CALL	CX
	ADDQ	$16, SP                 // back to the Frame (no register survives the call)
	JMP	trapReturn<>(SB)
abi0:
	MOVQ	KERNEL_ENTRY_TRAP, AX
	CALL	AX
	ADDQ	$16, SP                 // back to the Frame (no register survives an ABI0 call)
	JMP	trapReturn<>(SB)

// trapReturn restores the context held by the Frame at SP and returns into it.
// Entry: interrupts masked, SP = address of a Frame (on a kernel stack, 16-byte aligned).
//
// It returns with IRETQ, except from a system call whose thread gets back exactly what SYSCALL
// left: RCX = the return RIP and R11 = RFLAGS, with IF set and no flag but the arithmetic ones.
// Then the return is a jump: the arithmetic flags through SAHF and an 8-bit add (OF), RSP,
// then STI, whose one-instruction shadow covers the JMP, so an interrupt already pending is
// taken at the thread's first instruction, as after IRETQ. Under TCG, IRETQ is a helper that
// reads the five-word frame and two GDT descriptors through the slow memory path, and POPFQ
// ends the translation block; the jump is plain translated code but for STI. NMIs (their own
// vector) always return with IRETQ, which ends the NMI's blocking.
//
// Back to a thread (Frame.Prev = 0), it first stops the CPU's kernel clock: KernelTicks gets
// the TSC ticks since KernelSince, and KernelSince goes back to 0.
TEXT trapReturn<>(SB),NOSPLIT|NOFRAME,$0
	MOVQ	BP, AX                  // no-op read: RBP is the trapped context's (tells vet's framepointer check)
	MOVQ	Frame_Prev(SP), AX
	TESTQ	AX, AX
	JNE	unlink
	CMPQ	CPU_KernelSince(GS), $0
	JEQ	unlink                  // resume: no entry to leave
	RDTSC                           // back to a thread: the kernel clock stops
	SHLQ	$32, DX
	ORQ	DX, AX
	SUBQ	CPU_KernelSince(GS), AX
	ADDQ	AX, CPU_KernelTicks(GS)
	MOVQ	$0, CPU_KernelSince(GS)
	XORL	AX, AX
unlink:
	MOVQ	AX, CPU_CurrentFrame(GS) // after the clock: an NMI before this is nested
	MOVQ	Frame_FSBase(SP), AX
	CMPB	·fsgsbase(SB), $0
	JEQ	fsMSR
	WRFSBASEQ	AX
	JMP	fsDone
fsMSR:
	MOVL	$MSR_FS_BASE, CX
	MOVQ	AX, DX
	SHRQ	$32, DX
	WRMSR
fsDone:
	CMPQ	Frame_SSEUnsaved(SP), $0
	JEQ	loadSSE
	XORPS	X15, X15                // the Go ABI's zero register; X0-X14 and the upper halves are scratch across a call
	JMP	sseLoaded
loadSSE:
	MOVUPS	(Frame_FX+160)(SP), X0
	MOVUPS	(Frame_FX+176)(SP), X1
	MOVUPS	(Frame_FX+192)(SP), X2
	MOVUPS	(Frame_FX+208)(SP), X3
	MOVUPS	(Frame_FX+224)(SP), X4
	MOVUPS	(Frame_FX+240)(SP), X5
	MOVUPS	(Frame_FX+256)(SP), X6
	MOVUPS	(Frame_FX+272)(SP), X7
	MOVUPS	(Frame_FX+288)(SP), X8
	MOVUPS	(Frame_FX+304)(SP), X9
	MOVUPS	(Frame_FX+320)(SP), X10
	MOVUPS	(Frame_FX+336)(SP), X11
	MOVUPS	(Frame_FX+352)(SP), X12
	MOVUPS	(Frame_FX+368)(SP), X13
	MOVUPS	(Frame_FX+384)(SP), X14
	MOVUPS	(Frame_FX+400)(SP), X15
	LDMXCSR	(Frame_FX+24)(SP)
	CMPB	·avxOn(SB), $0
	JEQ	sseLoaded
	// The legacy-encoded MOVUPS above left bits 128-255 alone; these put them back.
	VINSERTF128	$1, (Frame_YMMHi+0)(SP), Y0, Y0
	VINSERTF128	$1, (Frame_YMMHi+16)(SP), Y1, Y1
	VINSERTF128	$1, (Frame_YMMHi+32)(SP), Y2, Y2
	VINSERTF128	$1, (Frame_YMMHi+48)(SP), Y3, Y3
	VINSERTF128	$1, (Frame_YMMHi+64)(SP), Y4, Y4
	VINSERTF128	$1, (Frame_YMMHi+80)(SP), Y5, Y5
	VINSERTF128	$1, (Frame_YMMHi+96)(SP), Y6, Y6
	VINSERTF128	$1, (Frame_YMMHi+112)(SP), Y7, Y7
	VINSERTF128	$1, (Frame_YMMHi+128)(SP), Y8, Y8
	VINSERTF128	$1, (Frame_YMMHi+144)(SP), Y9, Y9
	VINSERTF128	$1, (Frame_YMMHi+160)(SP), Y10, Y10
	VINSERTF128	$1, (Frame_YMMHi+176)(SP), Y11, Y11
	VINSERTF128	$1, (Frame_YMMHi+192)(SP), Y12, Y12
	VINSERTF128	$1, (Frame_YMMHi+208)(SP), Y13, Y13
	VINSERTF128	$1, (Frame_YMMHi+224)(SP), Y14, Y14
	VINSERTF128	$1, (Frame_YMMHi+240)(SP), Y15, Y15
sseLoaded:
	MOVQ	Frame_RBX(SP), BX
	MOVQ	Frame_RDX(SP), DX
	MOVQ	Frame_RSI(SP), SI
	MOVQ	Frame_RDI(SP), DI
	MOVQ	Frame_RBP(SP), BP
	MOVQ	Frame_R8(SP), R8
	MOVQ	Frame_R9(SP), R9
	MOVQ	Frame_R10(SP), R10
	MOVQ	Frame_R12(SP), R12
	MOVQ	Frame_R13(SP), R13
	MOVQ	Frame_R14(SP), R14
	MOVQ	Frame_R15(SP), R15
	MOVQ	Frame_RCX(SP), CX
	MOVQ	Frame_R11(SP), R11
	CMPB	·fastReturn(SB), $0
	JEQ	iret
	CMPQ	Frame_Vector(SP), $const_VectorSyscall
	JNE	iret
	CMPQ	CX, Frame_RIP(SP)
	JNE	iret
	CMPQ	R11, Frame_RFLAGS(SP)
	JNE	iret
	MOVQ	R11, AX
	ANDQ	$~const_jumpFlags, AX
	JNE	iret                    // TF, DF, AC, ...: only IRETQ restores those
	BTQ	$9, R11
	JCC	iret                    // IF clear
	// The arithmetic flags, without POPFQ (which ends the emulator's block as STI does): SAHF
	// sets SF, ZF, AF, PF and CF from AH; OF comes from an 8-bit add that overflows or not.
	MOVL	R11, AX
	SHLL	$8, AX                  // AH = the low byte of RFLAGS
	BTQ	$11, R11
	JCC	noOF
	MOVB	$0x7f, AL
	ADDB	$1, AL                  // OF = 1
	JMP	ofDone
noOF:
	ANDB	$0, AL                  // OF = 0
ofDone:
	SAHF
	MOVQ	Frame_RAX(SP), AX
	MOVQ	Frame_RSP(SP), SP
	STI
	JMP	CX
iret:
	MOVQ	Frame_RAX(SP), AX
	ADDQ	$Frame_RIP, SP
	IRETQ

// func StartKernelClock(f *Frame)
//
// StartKernelClock starts this CPU's kernel clock for the system call in the Frame at f, whose
// entry left it stopped: Frame.Entered and CPU.KernelSince get the TSC, and the return to the
// thread stops it again (trapReturn).
// Entry: interrupts masked, in the Go code of a thread's system call (f.Prev = 0), by the
// ABI0 convention. Clobbers AX, BX and DX. Returns with RET.
TEXT ·StartKernelClock(SB),NOSPLIT,$0-8
	MOVQ	f+0(FP), BX
	RDTSC
	SHLQ	$32, DX
	ORQ	DX, AX
	MOVQ	AX, Frame_Entered(BX)
	MOVQ	AX, CPU_KernelSince(GS)
	RET

// func resume(f uintptr)
//
// resume enters the context in the Frame at f, as the return from a trap would. f must be a
// 16-byte aligned Frame on a kernel stack whose CurrentFrame link (Frame.Prev) is 0. Used once
// per CPU to start its first thread. It never returns.
TEXT ·resume(SB),NOSPLIT|NOFRAME,$0-8
	CLI
	MOVQ	f+0(FP), SP
	FXRSTOR64	Frame_FX(SP)    // the thread's x87 state too: the return path loads only SSE
	JMP	trapReturn<>(SB)

// func idleLoop()
//
// idleLoop is the body of each CPU's idle thread: enable interrupts and halt until the next
// one, forever. It runs as a thread (entered through resume or a context switch, with IF set
// in its Frame), so an interrupt taken while halted saves its context like any other thread's.
TEXT ·idleLoop(SB),NOSPLIT|NOFRAME,$0
again:
	STI
	HLT
	JMP	again

// func addrOfIdleLoop() uintptr
TEXT ·addrOfIdleLoop(SB),NOSPLIT,$0-8
	LEAQ	·idleLoop(SB), AX
	MOVQ	AX, ret+0(FP)
	RET

// func addrOfSyscallEntry() uintptr
TEXT ·addrOfSyscallEntry(SB),NOSPLIT,$0-8
	LEAQ	·syscallEntry(SB), AX
	MOVQ	AX, ret+0(FP)
	RET

// func addrOfVectors() uintptr
TEXT ·addrOfVectors(SB),NOSPLIT,$0-8
	LEAQ	·vectors(SB), AX
	MOVQ	AX, ret+0(FP)
	RET

// func syncX87(fx *[512]byte)
//
// syncX87 stores the CPU's x87 state (FCW, FSW, FTW, FOP, FIP, FDP and ST0-ST7: the FXSAVE
// image's bytes 0-23 and 32-159) into the image at fx, leaving its MXCSR and SSE registers (the
// entry stub's) alone. FXSAVE needs a 16-byte aligned area, so it saves into its own frame and
// copies. Clobbers AX, SI, DI, X0.
TEXT ·syncX87(SB),NOSPLIT,$528-8
	MOVQ	fx+0(FP), DI
	LEAQ	15(SP), SI
	ANDQ	$~15, SI
	FXSAVE64	(SI)
	MOVQ	0(SI), AX
	MOVQ	AX, 0(DI)
	MOVQ	8(SI), AX
	MOVQ	AX, 8(DI)
	MOVQ	16(SI), AX
	MOVQ	AX, 16(DI)
	MOVUPS	32(SI), X0
	MOVUPS	X0, 32(DI)
	MOVUPS	48(SI), X0
	MOVUPS	X0, 48(DI)
	MOVUPS	64(SI), X0
	MOVUPS	X0, 64(DI)
	MOVUPS	80(SI), X0
	MOVUPS	X0, 80(DI)
	MOVUPS	96(SI), X0
	MOVUPS	X0, 96(DI)
	MOVUPS	112(SI), X0
	MOVUPS	X0, 112(DI)
	MOVUPS	128(SI), X0
	MOVUPS	X0, 128(DI)
	MOVUPS	144(SI), X0
	MOVUPS	X0, 144(DI)
	RET

// func loadX87(fx *[512]byte)
//
// loadX87 loads the whole FXSAVE image at fx into the CPU (FXRSTOR, from an aligned copy in its
// own frame): the x87 state of the thread about to run here. Its SSE registers and MXCSR are
// loaded too, and the trap's return loads them again from the Frame. Clobbers AX, CX, SI, DI, X0.
TEXT ·loadX87(SB),NOSPLIT,$528-8
	MOVQ	fx+0(FP), DI
	LEAQ	15(SP), SI
	ANDQ	$~15, SI
	XORL	CX, CX
copy:
	MOVUPS	(DI)(CX*1), X0
	MOVUPS	X0, (SI)(CX*1)
	ADDQ	$16, CX
	CMPQ	CX, $512
	JLT	copy
	FXRSTOR64	(SI)
	RET
