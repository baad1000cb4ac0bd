#include "textflag.h"

// Each function runs its sequence once and returns; all are leaves that clobber only the
// registers they name, with interrupts left as they found them.

TEXT ·empty(SB),NOSPLIT|NOFRAME,$0
	RET

TEXT ·calls10(SB),NOSPLIT,$0
	CALL	·empty(SB)
	CALL	·empty(SB)
	CALL	·empty(SB)
	CALL	·empty(SB)
	CALL	·empty(SB)
	CALL	·empty(SB)
	CALL	·empty(SB)
	CALL	·empty(SB)
	CALL	·empty(SB)
	CALL	·empty(SB)
	RET

#define NOTTAKEN CMP $1, R0; BEQ out

TEXT ·branches10(SB),NOSPLIT|NOFRAME,$0
	MOVD	$0, R0
	NOTTAKEN; NOTTAKEN; NOTTAKEN; NOTTAKEN; NOTTAKEN
	NOTTAKEN; NOTTAKEN; NOTTAKEN; NOTTAKEN; NOTTAKEN
out:
	RET

TEXT ·counter2(SB),NOSPLIT|NOFRAME,$0
	MRS	CNTVCT_EL0, R0
	MRS	CNTVCT_EL0, R0
	RET

TEXT ·maskUnmask(SB),NOSPLIT|NOFRAME,$0
	MRS	DAIF, R0
	MSR	$3, DAIFSet
	MSR	R0, DAIF
	RET

TEXT ·vec32(SB),NOSPLIT,$512
	FSTPQ	(F0, F1), 0(RSP)
	FSTPQ	(F2, F3), 32(RSP)
	FSTPQ	(F4, F5), 64(RSP)
	FSTPQ	(F6, F7), 96(RSP)
	FSTPQ	(F8, F9), 128(RSP)
	FSTPQ	(F10, F11), 160(RSP)
	FSTPQ	(F12, F13), 192(RSP)
	FSTPQ	(F14, F15), 224(RSP)
	FSTPQ	(F16, F17), 256(RSP)
	FSTPQ	(F18, F19), 288(RSP)
	FSTPQ	(F20, F21), 320(RSP)
	FSTPQ	(F22, F23), 352(RSP)
	FSTPQ	(F24, F25), 384(RSP)
	FSTPQ	(F26, F27), 416(RSP)
	FSTPQ	(F28, F29), 448(RSP)
	FSTPQ	(F30, F31), 480(RSP)
	FLDPQ	0(RSP), (F0, F1)
	FLDPQ	32(RSP), (F2, F3)
	FLDPQ	64(RSP), (F4, F5)
	FLDPQ	96(RSP), (F6, F7)
	FLDPQ	128(RSP), (F8, F9)
	FLDPQ	160(RSP), (F10, F11)
	FLDPQ	192(RSP), (F12, F13)
	FLDPQ	224(RSP), (F14, F15)
	FLDPQ	256(RSP), (F16, F17)
	FLDPQ	288(RSP), (F18, F19)
	FLDPQ	320(RSP), (F20, F21)
	FLDPQ	352(RSP), (F22, F23)
	FLDPQ	384(RSP), (F24, F25)
	FLDPQ	416(RSP), (F26, F27)
	FLDPQ	448(RSP), (F28, F29)
	FLDPQ	480(RSP), (F30, F31)
	RET

// getppid makes the system call (SVC, number in R8); R0 is its result.
TEXT ·getppid(SB),NOSPLIT|NOFRAME,$0
	MOVD	$173, R8                // SYS_getppid
	SVC
	RET

// sysregs makes the system-register accesses of a trap's entry and return stubs
// (arch/arm64/trap_arm64.s) but the stack pointer's, writing back what it read, with IRQs
// masked meanwhile (an exception between would change ELR_EL1 and SPSR_EL1). Clobbers R0-R8.
TEXT ·sysregs(SB),NOSPLIT|NOFRAME,$0
	MRS	DAIF, R8
	MSR	$3, DAIFSet
	MRS	ELR_EL1, R1
	MRS	SPSR_EL1, R2
	MRS	ESR_EL1, R3
	MRS	FAR_EL1, R4
	MRS	TPIDR_EL1, R5
	MRS	FPCR, R6
	MRS	FPSR, R7
	MSR	R6, FPCR
	MSR	R7, FPSR
	MSR	R1, ELR_EL1
	MSR	R2, SPSR_EL1
	MSR	R8, DAIF
	RET
