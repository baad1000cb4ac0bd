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

#define NOTTAKEN CMPL AX, $1; JEQ out

TEXT ·branches10(SB),NOSPLIT|NOFRAME,$0
	XORL	AX, AX
	NOTTAKEN; NOTTAKEN; NOTTAKEN; NOTTAKEN; NOTTAKEN
	NOTTAKEN; NOTTAKEN; NOTTAKEN; NOTTAKEN; NOTTAKEN
out:
	RET

TEXT ·rdtsc2(SB),NOSPLIT|NOFRAME,$0
	RDTSC
	RDTSC
	RET

TEXT ·stiCli(SB),NOSPLIT|NOFRAME,$0
	PUSHFQ
	STI
	CLI
	POPFQ
	RET

TEXT ·cliOnly(SB),NOSPLIT|NOFRAME,$0
	PUSHFQ
	CLI
	POPFQ
	RET

TEXT ·fsBase(SB),NOSPLIT|NOFRAME,$0
	RDFSBASEQ	AX
	WRFSBASEQ	AX
	RET

TEXT ·fsBaseMSR(SB),NOSPLIT|NOFRAME,$0
	MOVL	$0xc0000100, CX
	RDMSR
	WRMSR
	RET

TEXT ·cr8(SB),NOSPLIT|NOFRAME,$0
	MOVQ	CR8, AX
	MOVQ	AX, CR8
	RET

TEXT ·xmm16(SB),NOSPLIT,$256
	MOVUPS	X0, 0(SP)
	MOVUPS	X1, 16(SP)
	MOVUPS	X2, 32(SP)
	MOVUPS	X3, 48(SP)
	MOVUPS	X4, 64(SP)
	MOVUPS	X5, 80(SP)
	MOVUPS	X6, 96(SP)
	MOVUPS	X7, 112(SP)
	MOVUPS	X8, 128(SP)
	MOVUPS	X9, 144(SP)
	MOVUPS	X10, 160(SP)
	MOVUPS	X11, 176(SP)
	MOVUPS	X12, 192(SP)
	MOVUPS	X13, 208(SP)
	MOVUPS	X14, 224(SP)
	MOVUPS	X15, 240(SP)
	MOVUPS	0(SP), X0
	MOVUPS	16(SP), X1
	MOVUPS	32(SP), X2
	MOVUPS	48(SP), X3
	MOVUPS	64(SP), X4
	MOVUPS	80(SP), X5
	MOVUPS	96(SP), X6
	MOVUPS	112(SP), X7
	MOVUPS	128(SP), X8
	MOVUPS	144(SP), X9
	MOVUPS	160(SP), X10
	MOVUPS	176(SP), X11
	MOVUPS	192(SP), X12
	MOVUPS	208(SP), X13
	MOVUPS	224(SP), X14
	MOVUPS	240(SP), X15
	RET

// iretSelf builds an interrupt frame for the instruction after IRETQ (SS, RSP, RFLAGS, CS, RIP)
// and returns through it.
TEXT ·iretSelf(SB),NOSPLIT|NOFRAME,$0
	MOVQ	SP, AX
	PUSHFQ
	POPQ	R8
	SUBQ	$40, SP
	MOVQ	$0x10, 32(SP)
	MOVQ	AX, 24(SP)
	MOVQ	R8, 16(SP)
	MOVQ	$0x08, 8(SP)
	LEAQ	iretBack<>(SB), BX
	MOVQ	BX, 0(SP)
	IRETQ

TEXT iretBack<>(SB),NOSPLIT|NOFRAME,$0
	RET

// stiJump is the way back from a system call that trapReturn takes instead of IRETQ, with the
// flags restored by POPFQ (the kernel uses SAHF instead).
TEXT ·stiJump(SB),NOSPLIT|NOFRAME,$0
	PUSHFQ
	POPQ	R8
	CLI
	LEAQ	jumpBack<>(SB), CX
	PUSHQ	R8
	POPFQ
	CLI
	STI
	JMP	CX

TEXT ·popfJump(SB),NOSPLIT|NOFRAME,$0
	LEAQ	jumpBack<>(SB), CX
	PUSHFQ
	POPFQ
	JMP	CX

TEXT jumpBack<>(SB),NOSPLIT|NOFRAME,$0
	RET

// getppid makes the system call; RCX and R11 are the SYSCALL instruction's.
TEXT ·getppid(SB),NOSPLIT|NOFRAME,$0
	MOVL	$110, AX                // SYS_getppid
	SYSCALL
	RET
