#include "textflag.h"

// spinIterations is how long roundTrip spins with its pattern in the registers (a few tens of
// microseconds under TCG): long enough for ticks, switches and signals to land in it.
#define spinIterations 20000

// func roundTrip(seed uint64, nr, a0, a1 uintptr) int
//
// Fills X0-X15 with seed+i (low quadword) and seed^i<<8 (high quadword), the x87 control word
// with a value made from seed's thread half (rounding control: 0x0c7f or 0x037f), and RBX, RBP
// and R12-R15 from seed. It spins (interrupts, switches and signals land here: every vector
// register must survive them), counts the vector registers that changed, makes the system call,
// and counts what a system call must keep and did not: the general registers but RAX, RCX and
// R11 (as Linux), the x87 control word, and X15, the Go ABI's zero register, which the kernel
// zeroes (X0-X14 are scratch across a call in the Go ABI, and the kernel does not keep them).
// Clobbers every general register the Go ABI0 lets it, and X0-X15.
TEXT ·roundTrip(SB),NOSPLIT,$96-40
	MOVQ	BP, 16(SP)
	MOVQ	seed+0(FP), R8
	MOVQ	R8, 8(SP)
	// The x87 control word: rounding toward zero for odd threads (bit 32 of seed), so that
	// threads that share a CPU hold different ones.
	MOVW	$0x037f, AX
	BTQ	$32, R8
	JCC	cw
	MOVW	$0x0c7f, AX
cw:
	MOVW	AX, 0(SP)
	FLDCW	0(SP)

#define FILL(i, X) \
	LEAQ	i(R8), AX; \
	MOVQ	R8, BX; \
	XORQ	$(i<<8), BX; \
	MOVQ	AX, X; \
	PINSRQ	$1, BX, X

	FILL(0, X0)
	FILL(1, X1)
	FILL(2, X2)
	FILL(3, X3)
	FILL(4, X4)
	FILL(5, X5)
	FILL(6, X6)
	FILL(7, X7)
	FILL(8, X8)
	FILL(9, X9)
	FILL(10, X10)
	FILL(11, X11)
	FILL(12, X12)
	FILL(13, X13)
	FILL(14, X14)
	FILL(15, X15)

	MOVQ	$spinIterations, CX
spin:
	DECQ	CX
	JNE	spin

	XORL	R9, R9 // the count

#define CHECK(i, X) \
	LEAQ	i(R8), AX; \
	MOVQ	X, BX; \
	CMPQ	AX, BX; \
	JEQ	2(PC); \
	INCQ	R9; \
	MOVQ	R8, AX; \
	XORQ	$(i<<8), AX; \
	PEXTRQ	$1, X, BX; \
	CMPQ	AX, BX; \
	JEQ	2(PC); \
	INCQ	R9

	CHECK(0, X0)
	CHECK(1, X1)
	CHECK(2, X2)
	CHECK(3, X3)
	CHECK(4, X4)
	CHECK(5, X5)
	CHECK(6, X6)
	CHECK(7, X7)
	CHECK(8, X8)
	CHECK(9, X9)
	CHECK(10, X10)
	CHECK(11, X11)
	CHECK(12, X12)
	CHECK(13, X13)
	CHECK(14, X14)
	CHECK(15, X15)
	MOVQ	R9, 24(SP)

	// The general registers a system call keeps, each a value of its own.
#define GPR(i, R) \
	LEAQ	(i<<12)(R8), R; \
	MOVQ	R, (24+8*i)(SP)
	GPR(1, BX)
	GPR(2, BP)
	GPR(3, R12)
	GPR(4, R13)
	GPR(5, R14)
	GPR(6, R15)

	MOVQ	nr+8(FP), AX
	MOVQ	a0+16(FP), DI
	MOVQ	a1+24(FP), SI
	XORL	DX, DX
	SYSCALL
	MOVQ	24(SP), R9

#define KEPT(i, R) \
	CMPQ	R, (24+8*i)(SP); \
	JEQ	2(PC); \
	INCQ	R9
	KEPT(1, BX)
	KEPT(2, BP)
	KEPT(3, R12)
	KEPT(4, R13)
	KEPT(5, R14)
	KEPT(6, R15)
	MOVQ	X15, AX
	PEXTRQ	$1, X15, BX
	ORQ	BX, AX
	JEQ	2(PC)
	INCQ	R9

	MOVQ	8(SP), R8
	FSTCW	0(SP)
	MOVW	0(SP), BX
	MOVW	$0x037f, AX
	BTQ	$32, R8
	JCC	cmpcw
	MOVW	$0x0c7f, AX
cmpcw:
	CMPW	AX, BX
	JEQ	done
	INCQ	R9
done:
	MOVQ	16(SP), BP
	// X15 must be zero again for the Go code this returns to (ABIInternal's zero register).
	XORPS	X15, X15
	MOVQ	R9, ret+32(FP)
	RET

// func ymmUsable() bool
//
// ymmUsable reports whether the kernel enabled the AVX state: CPUID.1:ECX has OSXSAVE (bit 27)
// and AVX (bit 28), and XCR0 has SSE and AVX (bits 1 and 2). Clobbers AX, BX, CX, DX.
TEXT ·ymmUsable(SB),NOSPLIT,$0-1
	MOVL	$1, AX
	XORL	CX, CX
	CPUID
	MOVB	$0, ret+0(FP)
	MOVL	CX, AX
	ANDL	$0x18000000, AX
	CMPL	AX, $0x18000000
	JNE	no
	XORL	CX, CX
	XGETBV
	ANDL	$6, AX
	CMPL	AX, $6
	JNE	no
	MOVB	$1, ret+0(FP)
no:
	RET

// func spinYMM(seed uint64) int
//
// spinYMM fills YMM0-YMM15, both halves, with patterns made from seed (the low half as
// roundTrip's, the upper half as roundTrip's pattern 16+i), spins so that interrupts, switches
// and signals land while they hold them, and counts the halves that changed. Entry: the AVX
// state is on (ymmUsable). Clobbers AX, BX, CX, R8, R9 and Y0-Y15; returns with the upper halves
// clear (VZEROUPPER) and X15 zero, as Go code expects.
TEXT ·spinYMM(SB),NOSPLIT,$0-16
	MOVQ	seed+0(FP), R8
	// Each register's upper half first, from its low half, then the low half again: the legacy
	// SSE encodings FILL uses leave bits 128-255 alone.
	FILL(16, X0)
	FILL(17, X1)
	FILL(18, X2)
	FILL(19, X3)
	FILL(20, X4)
	FILL(21, X5)
	FILL(22, X6)
	FILL(23, X7)
	FILL(24, X8)
	FILL(25, X9)
	FILL(26, X10)
	FILL(27, X11)
	FILL(28, X12)
	FILL(29, X13)
	FILL(30, X14)
	FILL(31, X15)
#define UP(Y, X) VINSERTF128 $1, X, Y, Y
	UP(Y0, X0)
	UP(Y1, X1)
	UP(Y2, X2)
	UP(Y3, X3)
	UP(Y4, X4)
	UP(Y5, X5)
	UP(Y6, X6)
	UP(Y7, X7)
	UP(Y8, X8)
	UP(Y9, X9)
	UP(Y10, X10)
	UP(Y11, X11)
	UP(Y12, X12)
	UP(Y13, X13)
	UP(Y14, X14)
	UP(Y15, X15)
	FILL(0, X0)
	FILL(1, X1)
	FILL(2, X2)
	FILL(3, X3)
	FILL(4, X4)
	FILL(5, X5)
	FILL(6, X6)
	FILL(7, X7)
	FILL(8, X8)
	FILL(9, X9)
	FILL(10, X10)
	FILL(11, X11)
	FILL(12, X12)
	FILL(13, X13)
	FILL(14, X14)
	FILL(15, X15)

	MOVQ	$spinIterations, CX
spinY:
	DECQ	CX
	JNE	spinY

	XORL	R9, R9
	CHECK(0, X0)
	CHECK(1, X1)
	CHECK(2, X2)
	CHECK(3, X3)
	CHECK(4, X4)
	CHECK(5, X5)
	CHECK(6, X6)
	CHECK(7, X7)
	CHECK(8, X8)
	CHECK(9, X9)
	CHECK(10, X10)
	CHECK(11, X11)
	CHECK(12, X12)
	CHECK(13, X13)
	CHECK(14, X14)
	CHECK(15, X15)
#define DOWN(Y, X) VEXTRACTF128 $1, Y, X
	DOWN(Y0, X0)
	DOWN(Y1, X1)
	DOWN(Y2, X2)
	DOWN(Y3, X3)
	DOWN(Y4, X4)
	DOWN(Y5, X5)
	DOWN(Y6, X6)
	DOWN(Y7, X7)
	DOWN(Y8, X8)
	DOWN(Y9, X9)
	DOWN(Y10, X10)
	DOWN(Y11, X11)
	DOWN(Y12, X12)
	DOWN(Y13, X13)
	DOWN(Y14, X14)
	DOWN(Y15, X15)
	CHECK(16, X0)
	CHECK(17, X1)
	CHECK(18, X2)
	CHECK(19, X3)
	CHECK(20, X4)
	CHECK(21, X5)
	CHECK(22, X6)
	CHECK(23, X7)
	CHECK(24, X8)
	CHECK(25, X9)
	CHECK(26, X10)
	CHECK(27, X11)
	CHECK(28, X12)
	CHECK(29, X13)
	CHECK(30, X14)
	CHECK(31, X15)
	VZEROUPPER
	XORPS	X15, X15
	MOVQ	R9, ret+8(FP)
	RET
