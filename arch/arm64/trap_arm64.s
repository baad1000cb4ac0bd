#include "textflag.h"
#include "go_asm.h"
#include "entry_arm64.h"

// SUB_SP and ADD_SP move SP by n bytes (0 < n < 4096) with hand-encoded SUB/ADD (immediate)
// instructions. The stubs build a Frame of some 850 bytes on the kernel stack; written as
// SUB $n, RSP the assembler would record the SP adjustment and the linker's nosplit analysis,
// which budgets goroutine stacks (800 bytes), would refuse the vector table. These stacks are
// kernel stacks (kstackSize bytes), never goroutine stacks.
#define SUB_SP(n) WORD $(0xd10003ff | (n)<<10) // SUB $n, RSP, RSP
#define ADD_SP(n) WORD $(0x910003ff | (n)<<10) // ADD $n, RSP, RSP

// EL1T_VECTOR is the vector entry for an exception taken from EL1t: a Go thread, running on
// SP_EL0. The CPU has switched to SP_EL1, which holds the top of this CPU's trap stack
// (CPU.TrapStack: nothing lives on it while a thread runs), masked DAIF, and saved PC and
// PSTATE in ELR_EL1 and SPSR_EL1. Every general register still holds the thread's value.
// It starts the Frame trapReserve bytes below SP_EL1, saves x0 and x1 there and jumps to
// el1tEntry with the kind in R0.
#define EL1T_VECTOR(kind) \
	SUB_SP(const_trapReserve); \
	STP	(R0, R1), (Frame_X+0)(RSP); \
	MOVD	$kind, R0; \
	B	el1tEntry<>(SB)

// EL1H_VECTOR is the vector entry for an exception taken from EL1h (the kernel itself, on
// SP_EL1) and, defensively, from a lower EL. SP_EL1 is wherever the kernel was; Go code may
// keep its caller's frame pointer at SP-8, so the Frame starts frameGap bytes lower. If SP is
// within kstackTrapRoom bytes of its kernel stack's base (a stack overflow, most likely), the
// stub moves to the top of the CPU's fault stack first, so the report has room.
//
// It needs one scratch register before anything is saved and uses x18, the platform register
// that Go code never uses (its Frame.X[18] is therefore not the interrupted value). The move is
// branch-free: R18 = SP - FaultStack, kept only if short of room (else 0); SP -= R18.
// el1hEntry gets the kind in R0 and that distance in R1, from which it records the
// interrupted SP.
#define EL1H_VECTOR(kind) \
	MOVD	RSP, R18_PLATFORM; \
	AND	$(const_kstackSize-1), R18_PLATFORM; \
	CMP	$const_kstackTrapRoom, R18_PLATFORM; \
	MRS	TPIDR_EL1, R18_PLATFORM; \
	MOVD	CPU_FaultStack(R18_PLATFORM), R18_PLATFORM; \
	SUB	R18_PLATFORM, RSP, R18_PLATFORM; \
	CSEL	LO, R18_PLATFORM, ZR, R18_PLATFORM; \
	SUB	R18_PLATFORM, RSP, RSP; \
	SUB_SP(const_trapReserve); \
	STP	(R0, R1), (Frame_X+0)(RSP); \
	MOVD	R18_PLATFORM, R1; \
	MOVD	$kind, R0; \
	B	el1hEntry<>(SB)

// func vectors()
//
// vectors is the exception vector table (VBAR_EL1): 16 entries of 128 bytes, 2 KiB aligned
// (Arm ARM D1.10.2). Entry n is Frame.Kind n. It is never called from Go.
TEXT ·vectors(SB),NOSPLIT|NOFRAME,$0
	PCALIGN	$2048
	EL1T_VECTOR(const_KindSyncEL1t)
	PCALIGN	$128
	EL1T_VECTOR(const_KindIRQEL1t)
	PCALIGN	$128
	EL1T_VECTOR(const_KindFIQEL1t)
	PCALIGN	$128
	EL1T_VECTOR(const_KindSErrorEL1t)
	PCALIGN	$128
	EL1H_VECTOR(const_KindSyncEL1h)
	PCALIGN	$128
	EL1H_VECTOR(const_KindIRQEL1h)
	PCALIGN	$128
	EL1H_VECTOR(const_KindFIQEL1h)
	PCALIGN	$128
	EL1H_VECTOR(const_KindSErrorEL1h)
	PCALIGN	$128
	EL1H_VECTOR(8)
	PCALIGN	$128
	EL1H_VECTOR(9)
	PCALIGN	$128
	EL1H_VECTOR(10)
	PCALIGN	$128
	EL1H_VECTOR(11)
	PCALIGN	$128
	EL1H_VECTOR(12)
	PCALIGN	$128
	EL1H_VECTOR(13)
	PCALIGN	$128
	EL1H_VECTOR(14)
	PCALIGN	$128
	EL1H_VECTOR(15)

// SAVE_X2_X30 stores x2-x30 into the Frame at SP (x0 and x1 are already there).
#define SAVE_X2_X30 \
	STP	(R2, R3), (Frame_X+16)(RSP); \
	STP	(R4, R5), (Frame_X+32)(RSP); \
	STP	(R6, R7), (Frame_X+48)(RSP); \
	STP	(R8, R9), (Frame_X+64)(RSP); \
	STP	(R10, R11), (Frame_X+80)(RSP); \
	STP	(R12, R13), (Frame_X+96)(RSP); \
	STP	(R14, R15), (Frame_X+112)(RSP); \
	STP	(R16, R17), (Frame_X+128)(RSP); \
	STP	(R18_PLATFORM, R19), (Frame_X+144)(RSP); \
	STP	(R20, R21), (Frame_X+160)(RSP); \
	STP	(R22, R23), (Frame_X+176)(RSP); \
	STP	(R24, R25), (Frame_X+192)(RSP); \
	STP	(R26, R27), (Frame_X+208)(RSP); \
	STP	(g, R29), (Frame_X+224)(RSP); \
	MOVD	R30, (Frame_X+240)(RSP)

// LOAD_X2_X17 and LOAD_X19_X30 reload the registers from the Frame at SP; x18 is separate
// because the return to EL1h carries the target SP in it.
#define LOAD_X2_X17 \
	LDP	(Frame_X+16)(RSP), (R2, R3); \
	LDP	(Frame_X+32)(RSP), (R4, R5); \
	LDP	(Frame_X+48)(RSP), (R6, R7); \
	LDP	(Frame_X+64)(RSP), (R8, R9); \
	LDP	(Frame_X+80)(RSP), (R10, R11); \
	LDP	(Frame_X+96)(RSP), (R12, R13); \
	LDP	(Frame_X+112)(RSP), (R14, R15); \
	LDP	(Frame_X+128)(RSP), (R16, R17)

#define LOAD_X19_X30 \
	MOVD	(Frame_X+152)(RSP), R19; \
	LDP	(Frame_X+160)(RSP), (R20, R21); \
	LDP	(Frame_X+176)(RSP), (R22, R23); \
	LDP	(Frame_X+192)(RSP), (R24, R25); \
	LDP	(Frame_X+208)(RSP), (R26, R27); \
	LDP	(Frame_X+224)(RSP), (g, R29); \
	MOVD	(Frame_X+240)(RSP), R30

// el1tEntry continues EL1T_VECTOR: it saves x2-x30 and SP_EL0 (the thread's stack pointer)
// and joins trapCommon. Entry: SP = the Frame, x0/x1 saved, R0 = kind.
TEXT el1tEntry<>(SB),NOSPLIT|NOFRAME,$0
	SAVE_X2_X30
	MRS	SP_EL0, R1
	MOVD	R1, Frame_SavedSP(RSP)
	B	trapCommon<>(SB)

// el1hEntry continues EL1H_VECTOR: it saves x2-x30 and the SP the kernel was using (the Frame's
// end, plus the distance to the fault stack if the stub moved there) and joins trapCommon.
// Entry: SP = the Frame, x0/x1 saved, R0 = kind, R1 = distance moved (0 if none).
TEXT el1hEntry<>(SB),NOSPLIT|NOFRAME,$0
	SAVE_X2_X30
	MOVD	RSP, R2
	ADD	$const_trapReserve, R2
	ADD	R1, R2
	MOVD	R2, Frame_SavedSP(RSP)
	B	trapCommon<>(SB)

// trapCommon completes the Frame, calls the kernel's trap entry point with its address, and
// returns from the exception with whatever context the Frame then holds: the kernel switches
// threads by rewriting the Frame.
//
// Entry: DAIF masked, SP = a Frame on a kernel stack with x0-x30 and SavedSP filled in,
// R0 = kind. Every FP/SIMD register still holds the interrupted context's value.
//
// It records the kind, ELR, SPSR, ESR and FAR, saves FPCR, FPSR and, but for a thread's system
// call (Frame.FPUnsaved: the Go ABI keeps no vector value live across it), q0-q31, links the Frame into
// CPU.CurrentFrame (the previous value goes to Frame.Prev), starts the CPU's kernel clock if it
// came from a thread (CPU.KernelSince = CNTVCT) but for a system call (the kernel's Go code
// starts it when the call needs the lock or the sampler runs: StartKernelClock), points g (R28)
// at the stand-in g at the base of this kernel stack (percpu.go), and clears R29 so
// frame-pointer walks of the handler end here. The kernel's trap runs with DAIF masked, on this
// stack, below the Frame. It returns through trapReturn; it clobbers nothing the Frame does not
// restore.
TEXT trapCommon<>(SB),NOSPLIT|NOFRAME,$0
	MOVD	R29, R1                 // no-op read: R29 is the trapped context's, already in the Frame (tells vet's framepointer check)
	MRS	ELR_EL1, R1
	MOVD	R1, Frame_ELR(RSP)
	MRS	SPSR_EL1, R1
	MOVD	R1, Frame_SPSR(RSP)
	MRS	ESR_EL1, R1
	MOVD	R1, Frame_ESR(RSP)
	MRS	FAR_EL1, R1
	MOVD	R1, Frame_FAR(RSP)
	MOVD	ZR, Frame_Jump(RSP)     // an exception returns with ERET
	B	trapSaved<>(SB)

// trapSaved is trapCommon once the Frame's ELR, SPSR, ESR, FAR and Jump are filled in, by
// trapCommon from the system registers or by svcEntry for a rewritten system-call site. Entry
// and return as trapCommon's.
TEXT trapSaved<>(SB),NOSPLIT|NOFRAME,$0
	MOVD	R29, R1                 // no-op read, as in trapCommon
	MOVD	R0, Frame_Kind(RSP)
	MRS	FPCR, R1
	MOVD	R1, Frame_FPCR(RSP)
	MRS	FPSR, R1
	MOVD	R1, Frame_FPSR(RSP)
	MOVD	ZR, R4                  // R4 = 1 for a thread's system call
	CMP	$const_KindSyncEL1t, R0
	BNE	saveQ
	MOVD	Frame_ESR(RSP), R3
	LSR	$const_esrECShift, R3, R3
	CMP	$const_ECSVC64, R3
	BNE	saveQ
	MOVD	$1, R4                  // a system call: no vector register is live across it
	B	qDone
saveQ:
	FSTPQ	(F0, F1), (Frame_Q+0)(RSP)
	FSTPQ	(F2, F3), (Frame_Q+32)(RSP)
	FSTPQ	(F4, F5), (Frame_Q+64)(RSP)
	FSTPQ	(F6, F7), (Frame_Q+96)(RSP)
	FSTPQ	(F8, F9), (Frame_Q+128)(RSP)
	FSTPQ	(F10, F11), (Frame_Q+160)(RSP)
	FSTPQ	(F12, F13), (Frame_Q+192)(RSP)
	FSTPQ	(F14, F15), (Frame_Q+224)(RSP)
	FSTPQ	(F16, F17), (Frame_Q+256)(RSP)
	FSTPQ	(F18, F19), (Frame_Q+288)(RSP)
	FSTPQ	(F20, F21), (Frame_Q+320)(RSP)
	FSTPQ	(F22, F23), (Frame_Q+352)(RSP)
	FSTPQ	(F24, F25), (Frame_Q+384)(RSP)
	FSTPQ	(F26, F27), (Frame_Q+416)(RSP)
	FSTPQ	(F28, F29), (Frame_Q+448)(RSP)
	FSTPQ	(F30, F31), (Frame_Q+480)(RSP)
qDone:
	MOVD	R4, Frame_FPUnsaved(RSP)

	MRS	TPIDR_EL1, R1
	MOVD	CPU_CurrentFrame(R1), R2
	MOVD	R2, Frame_Prev(RSP)
	MOVD	RSP, R3
	MOVD	R3, CPU_CurrentFrame(R1)
	CBNZ	R2, nested
	CBNZ	R4, nested              // a system call: the clock stays stopped (StartKernelClock)
	MRS	CNTVCT_EL0, R3          // from a thread: the CPU's kernel clock runs from here
	MOVD	R3, CPU_KernelSince(R1)
nested:
	MOVD	RSP, g
	AND	$~(const_kstackSize-1), g
	MOVD	ZR, R29
	MOVD	RSP, R0
	SUB	$16, RSP
	MOVD	R0, 8(RSP)
	MOVD	KERNEL_ENTRY_TRAP, R1
	CALL	(R1)
	ADD	$16, RSP                // back to the Frame (no register survives an ABI0 call)
	B	trapReturn<>(SB)

// trapReturn restores the context held by the Frame at SP and returns into it with ERET, or,
// for a context that entered through a rewritten system-call site (Frame.Jump, svc.go), with a
// branch: under TCG, ERET is a helper that rebuilds the emulator's cached CPU state and leaves
// the translated code.
//
// Entry: DAIF masked, SP = a Frame on a kernel stack. The Frame's SPSR decides the way back:
// to EL1t (a thread) it reloads SP_EL0 from SavedSP and leaves SP_EL1 at the Frame's end plus
// frameGap (the trap stack's top, for a Frame built by a stub or by Enter); to EL1h (the kernel)
// it resumes on SavedSP. It restores CPU.CurrentFrame from Frame.Prev; back to a thread
// (Prev = 0) it first stops the CPU's kernel clock (KernelTicks += CNTVCT - KernelSince, then
// KernelSince = 0), if it runs. The branch back is the ERET's equivalent for a thread's plain
// PSTATE (EL1t, DAIF clear): NZCV by MSR, SPSel back to SP_EL0, DAIF cleared, and a jump to ELR
// through x18, which is therefore not restored.
TEXT trapReturn<>(SB),NOSPLIT|NOFRAME,$0
	MRS	TPIDR_EL1, R1
	MOVD	Frame_Prev(RSP), R2
	CBNZ	R2, unlink
	MOVD	CPU_KernelSince(R1), R3
	CBZ	R3, unlink              // resume: no entry to leave
	MRS	CNTVCT_EL0, R4          // back to a thread: the kernel clock stops
	SUB	R3, R4, R4
	MOVD	CPU_KernelTicks(R1), R5
	ADD	R4, R5, R5
	MOVD	R5, CPU_KernelTicks(R1)
	ADD	$CPU_KernelSince, R1, R6
	STLR	ZR, (R6)                // after KernelTicks, for KernelClock's readers
unlink:
	MOVD	R2, CPU_CurrentFrame(R1) // after the clock: an exception before this is nested
	MOVD	Frame_FPUnsaved(RSP), R3
	CBNZ	R3, qLoaded             // a system call's: the thread finds what the kernel left
	FLDPQ	(Frame_Q+0)(RSP), (F0, F1)
	FLDPQ	(Frame_Q+32)(RSP), (F2, F3)
	FLDPQ	(Frame_Q+64)(RSP), (F4, F5)
	FLDPQ	(Frame_Q+96)(RSP), (F6, F7)
	FLDPQ	(Frame_Q+128)(RSP), (F8, F9)
	FLDPQ	(Frame_Q+160)(RSP), (F10, F11)
	FLDPQ	(Frame_Q+192)(RSP), (F12, F13)
	FLDPQ	(Frame_Q+224)(RSP), (F14, F15)
	FLDPQ	(Frame_Q+256)(RSP), (F16, F17)
	FLDPQ	(Frame_Q+288)(RSP), (F18, F19)
	FLDPQ	(Frame_Q+320)(RSP), (F20, F21)
	FLDPQ	(Frame_Q+352)(RSP), (F22, F23)
	FLDPQ	(Frame_Q+384)(RSP), (F24, F25)
	FLDPQ	(Frame_Q+416)(RSP), (F26, F27)
	FLDPQ	(Frame_Q+448)(RSP), (F28, F29)
	FLDPQ	(Frame_Q+480)(RSP), (F30, F31)
qLoaded:
	MOVD	Frame_FPCR(RSP), R1
	MSR	R1, FPCR
	MOVD	Frame_FPSR(RSP), R1
	MSR	R1, FPSR
	MOVD	Frame_SPSR(RSP), R1
	TBNZ	$0, R1, toEL1h          // SPSR.M[0]: 1 = SP_ELx, the kernel
	MOVD	Frame_SavedSP(RSP), R2
	MSR	R2, SP_EL0
	MOVD	Frame_Jump(RSP), R2
	CBZ	R2, eret
	AND	$~const_spsrNZCV, R1, R2
	CMP	$const_SPSRModeEL1t, R2
	BNE	eret                    // a PSTATE only ERET restores
	// Back to a thread by a branch: the flags by MSR, SP_EL1 back to the trap stack's top, SP
	// back to SP_EL0, interrupts unmasked, and a jump through x18 (Frame.Jump).
	MSR	R1, NZCV
	LOAD_X2_X17
	LOAD_X19_X30
	MOVD	Frame_ELR(RSP), R18_PLATFORM
	LDP	(Frame_X+0)(RSP), (R0, R1)
	ADD_SP(const_trapReserve)
	MSR	$0, SPSel
	MSR	$15, DAIFClr
	JMP	(R18_PLATFORM)
eret:
	MSR	R1, SPSR_EL1
	MOVD	Frame_ELR(RSP), R1
	MSR	R1, ELR_EL1
	LOAD_X2_X17
	MOVD	(Frame_X+144)(RSP), R18_PLATFORM
	LOAD_X19_X30
	LDP	(Frame_X+0)(RSP), (R0, R1)
	ADD_SP(const_trapReserve)
	ERET
toEL1h:
	MSR	R1, SPSR_EL1
	MOVD	Frame_ELR(RSP), R1
	MSR	R1, ELR_EL1
	LOAD_X2_X17
	LOAD_X19_X30
	MOVD	Frame_SavedSP(RSP), R18_PLATFORM
	LDP	(Frame_X+0)(RSP), (R0, R1)
	MOVD	R18_PLATFORM, RSP
	ERET

// SVC_SLOT is slot k of svcSlots: the target of the branch that replaced a thread's SVC #0
// (svc.go). Entry as at the SVC: EL1t on the thread's stack (SP_EL0), interrupts unmasked,
// every register the thread's. It masks DAIF and moves to SP_EL1 (the top of this CPU's trap
// stack, as an exception would), starts the Frame there, saves x0 and x1 and jumps to svcEntry
// with k in R0. 32 bytes, padded with NOPs.
#define SVC_SLOT(k) \
	MSR	$15, DAIFSet; \
	MSR	$1, SPSel; \
	SUB_SP(const_trapReserve); \
	STP	(R0, R1), (Frame_X+0)(RSP); \
	MOVD	$(k), R0; \
	B	svcEntry<>(SB); \
	WORD	$0xd503201f; \
	WORD	$0xd503201f

#define SVC_SLOTS_16(k) \
	SVC_SLOT((k)+0); SVC_SLOT((k)+1); SVC_SLOT((k)+2); SVC_SLOT((k)+3); \
	SVC_SLOT((k)+4); SVC_SLOT((k)+5); SVC_SLOT((k)+6); SVC_SLOT((k)+7); \
	SVC_SLOT((k)+8); SVC_SLOT((k)+9); SVC_SLOT((k)+10); SVC_SLOT((k)+11); \
	SVC_SLOT((k)+12); SVC_SLOT((k)+13); SVC_SLOT((k)+14); SVC_SLOT((k)+15)

// func svcSlots()
//
// svcSlots is NumSVCSlots slots of SVCSlotBytes each, slot k at svcSlots+k*32. Never called
// from Go.
TEXT ·svcSlots(SB),NOSPLIT|NOFRAME,$0
	SVC_SLOTS_16(0)
	SVC_SLOTS_16(16)
	SVC_SLOTS_16(32)
	SVC_SLOTS_16(48)
	SVC_SLOTS_16(64)
	SVC_SLOTS_16(80)
	SVC_SLOTS_16(96)
	SVC_SLOTS_16(112)

// svcEntry continues SVC_SLOT: it saves x2-x30 and SP_EL0 as el1tEntry does, fills in what the
// SVC exception would have left in system registers (ELR = the slot's call site + 4, SPSR = EL1t
// with the thread's flags, ESR = SVC #0's syndrome; FAR is 0), marks the Frame for a return by
// branch (Frame.Jump) and joins trapSaved as a synchronous exception from EL1t.
// Entry: SP = the Frame, x0/x1 saved, R0 = the slot's index, DAIF masked.
TEXT svcEntry<>(SB),NOSPLIT|NOFRAME,$0
	SAVE_X2_X30
	MRS	NZCV, R2                // before anything here sets flags
	MRS	SP_EL0, R1
	MOVD	R1, Frame_SavedSP(RSP)
	MOVD	$·svcReturns(SB), R1
	MOVD	(R1)(R0<<3), R1
	MOVD	R1, Frame_ELR(RSP)
	ORR	$const_SPSRModeEL1t, R2
	MOVD	R2, Frame_SPSR(RSP)
	MOVD	$const_svcESR, R1
	MOVD	R1, Frame_ESR(RSP)
	MOVD	ZR, Frame_FAR(RSP)
	MOVD	$1, R1
	MOVD	R1, Frame_Jump(RSP)
	MOVD	$const_KindSyncEL1t, R0
	B	trapSaved<>(SB)

// func addrOfSVCSlots() uintptr
TEXT ·addrOfSVCSlots(SB),NOSPLIT,$0-8
	MOVD	$·svcSlots(SB), R0
	MOVD	R0, ret+0(FP)
	RET

// func StartKernelClock()
//
// StartKernelClock starts this CPU's kernel clock for the system call it is serving, whose entry
// left it stopped (trapSaved): CPU.KernelSince gets CNTVCT, unless the clock already runs. The
// return to the thread stops it again (trapReturn).
// Entry: IRQs masked, in the Go code of a thread's system call (Frame.Prev = 0), by the ABI0
// convention. Clobbers R0 and R1. Returns with RET.
TEXT ·StartKernelClock(SB),NOSPLIT,$0-0
	MRS	TPIDR_EL1, R0
	MOVD	CPU_KernelSince(R0), R1
	CBNZ	R1, running
	MRS	CNTVCT_EL0, R1
	MOVD	R1, CPU_KernelSince(R0)
running:
	RET

// func resume(f uintptr)
//
// resume enters the context in the Frame at f, as the return from an exception would. f must
// be a Frame trapReserve bytes below the top of the CPU's trap stack, with Prev = 0 (Enter puts
// it there). Used once per CPU to start its first thread. It never returns.
TEXT ·resume(SB),NOSPLIT|NOFRAME,$0-8
	MSR	$15, DAIFSet
	MOVD	f+0(FP), R0
	MOVD	R0, RSP
	B	trapReturn<>(SB)

// func idleLoop()
//
// idleLoop is the body of each CPU's idle thread: wait for an interrupt, forever. It runs as a
// thread (EL1t, interrupts unmasked in its Frame's SPSR), so an interrupt taken while it waits
// saves its context like any other thread's. It never touches its stack.
TEXT ·idleLoop(SB),NOSPLIT|NOFRAME,$0
again:
	WFI
	B	again

// func addrOfIdleLoop() uintptr
TEXT ·addrOfIdleLoop(SB),NOSPLIT,$0-8
	MOVD	$·idleLoop(SB), R0
	MOVD	R0, ret+0(FP)
	RET

// func addrOfVectors() uintptr
TEXT ·addrOfVectors(SB),NOSPLIT,$0-8
	MOVD	$·vectors(SB), R0
	MOVD	R0, ret+0(FP)
	RET
