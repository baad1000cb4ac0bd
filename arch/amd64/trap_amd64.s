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
// Before calling Go it saves all registers and the FXSAVE image, records FS base and CR2,
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
	FXSAVE64	Frame_FX(SP)
	MOVQ	CR2, AX
	MOVQ	AX, Frame_CR2(SP)

	MOVL	$MSR_FS_BASE, CX
	RDMSR
	SHLQ	$32, DX
	ORQ	DX, AX
	MOVQ	AX, Frame_FSBase(SP)
	MOVQ	SP, AX                  // FS base = this kernel stack's TLS slot + 8
	ANDQ	$~(const_kstackSize-1), AX
	ADDQ	$const_kstackFSOffset, AX
	MOVQ	AX, DX
	SHRQ	$32, DX
	WRMSR

	MOVQ	CPU_CurrentFrame(GS), AX
	MOVQ	AX, Frame_Prev(SP)
	MOVQ	SP, CPU_CurrentFrame(GS)
	CLD
	XORL	BP, BP
	MOVQ	SP, BX
	SUBQ	$16, SP
	MOVQ	BX, 0(SP)
	MOVQ	KERNEL_ENTRY_TRAP, AX
	CALL	AX
	ADDQ	$16, SP                 // back to the Frame (no register survives an ABI0 call)
	JMP	trapReturn<>(SB)

// trapReturn restores the context held by the Frame at SP and returns into it with IRETQ.
// Entry: interrupts masked, SP = address of a Frame (on a kernel stack, 16-byte aligned).
TEXT trapReturn<>(SB),NOSPLIT|NOFRAME,$0
	MOVQ	BP, AX                  // no-op read: RBP is the trapped context's (tells vet's framepointer check)
	MOVQ	Frame_Prev(SP), AX
	MOVQ	AX, CPU_CurrentFrame(GS)
	MOVL	$MSR_FS_BASE, CX
	MOVQ	Frame_FSBase(SP), AX
	MOVQ	AX, DX
	SHRQ	$32, DX
	WRMSR
	FXRSTOR64	Frame_FX(SP)
	MOVQ	Frame_RAX(SP), AX
	MOVQ	Frame_RBX(SP), BX
	MOVQ	Frame_RCX(SP), CX
	MOVQ	Frame_RDX(SP), DX
	MOVQ	Frame_RSI(SP), SI
	MOVQ	Frame_RDI(SP), DI
	MOVQ	Frame_RBP(SP), BP
	MOVQ	Frame_R8(SP), R8
	MOVQ	Frame_R9(SP), R9
	MOVQ	Frame_R10(SP), R10
	MOVQ	Frame_R11(SP), R11
	MOVQ	Frame_R12(SP), R12
	MOVQ	Frame_R13(SP), R13
	MOVQ	Frame_R14(SP), R14
	MOVQ	Frame_R15(SP), R15
	ADDQ	$Frame_RIP, SP
	IRETQ

// func resume(f uintptr)
//
// resume enters the context in the Frame at f, as the return from a trap would. f must be a
// 16-byte aligned Frame on a kernel stack whose CurrentFrame link (Frame.Prev) is 0. Used once
// per CPU to start its first thread. It never returns.
TEXT ·resume(SB),NOSPLIT|NOFRAME,$0-8
	CLI
	MOVQ	f+0(FP), SP
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
