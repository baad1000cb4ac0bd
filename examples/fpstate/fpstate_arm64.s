#include "textflag.h"

// spinIterations is how long roundTrip spins with its pattern in the registers.
#define spinIterations 20000

// func roundTrip(seed uint64, nr, a0, a1 uintptr) int
//
// Fills V0-V31 with seed+i (low doubleword) and seed^i<<8 (high doubleword), and FPCR's
// rounding mode with a value made from seed (toward zero for odd threads: bit 32), spins, counts
// the vector registers that changed, makes the system call (SVC, number in R8), then counts
// FPCR if it changed. Clobbers R0-R10 and V0-V31; puts FPCR back to round-to-nearest.
TEXT ·roundTrip(SB),NOSPLIT,$32-40
	MOVD	seed+0(FP), R4
	MOVD	$0, R5
	TBZ	$32, R4, 2(PC)
	MOVD	$(3<<22), R5
	MSR	R5, FPCR

	ADD	$0, R4, R6
	EOR	$(0<<8), R4, R7
	VMOV	R6, V0.D[0]
	VMOV	R7, V0.D[1]
	ADD	$1, R4, R6
	EOR	$(1<<8), R4, R7
	VMOV	R6, V1.D[0]
	VMOV	R7, V1.D[1]
	ADD	$2, R4, R6
	EOR	$(2<<8), R4, R7
	VMOV	R6, V2.D[0]
	VMOV	R7, V2.D[1]
	ADD	$3, R4, R6
	EOR	$(3<<8), R4, R7
	VMOV	R6, V3.D[0]
	VMOV	R7, V3.D[1]
	ADD	$4, R4, R6
	EOR	$(4<<8), R4, R7
	VMOV	R6, V4.D[0]
	VMOV	R7, V4.D[1]
	ADD	$5, R4, R6
	EOR	$(5<<8), R4, R7
	VMOV	R6, V5.D[0]
	VMOV	R7, V5.D[1]
	ADD	$6, R4, R6
	EOR	$(6<<8), R4, R7
	VMOV	R6, V6.D[0]
	VMOV	R7, V6.D[1]
	ADD	$7, R4, R6
	EOR	$(7<<8), R4, R7
	VMOV	R6, V7.D[0]
	VMOV	R7, V7.D[1]
	ADD	$8, R4, R6
	EOR	$(8<<8), R4, R7
	VMOV	R6, V8.D[0]
	VMOV	R7, V8.D[1]
	ADD	$9, R4, R6
	EOR	$(9<<8), R4, R7
	VMOV	R6, V9.D[0]
	VMOV	R7, V9.D[1]
	ADD	$10, R4, R6
	EOR	$(10<<8), R4, R7
	VMOV	R6, V10.D[0]
	VMOV	R7, V10.D[1]
	ADD	$11, R4, R6
	EOR	$(11<<8), R4, R7
	VMOV	R6, V11.D[0]
	VMOV	R7, V11.D[1]
	ADD	$12, R4, R6
	EOR	$(12<<8), R4, R7
	VMOV	R6, V12.D[0]
	VMOV	R7, V12.D[1]
	ADD	$13, R4, R6
	EOR	$(13<<8), R4, R7
	VMOV	R6, V13.D[0]
	VMOV	R7, V13.D[1]
	ADD	$14, R4, R6
	EOR	$(14<<8), R4, R7
	VMOV	R6, V14.D[0]
	VMOV	R7, V14.D[1]
	ADD	$15, R4, R6
	EOR	$(15<<8), R4, R7
	VMOV	R6, V15.D[0]
	VMOV	R7, V15.D[1]
	ADD	$16, R4, R6
	EOR	$(16<<8), R4, R7
	VMOV	R6, V16.D[0]
	VMOV	R7, V16.D[1]
	ADD	$17, R4, R6
	EOR	$(17<<8), R4, R7
	VMOV	R6, V17.D[0]
	VMOV	R7, V17.D[1]
	ADD	$18, R4, R6
	EOR	$(18<<8), R4, R7
	VMOV	R6, V18.D[0]
	VMOV	R7, V18.D[1]
	ADD	$19, R4, R6
	EOR	$(19<<8), R4, R7
	VMOV	R6, V19.D[0]
	VMOV	R7, V19.D[1]
	ADD	$20, R4, R6
	EOR	$(20<<8), R4, R7
	VMOV	R6, V20.D[0]
	VMOV	R7, V20.D[1]
	ADD	$21, R4, R6
	EOR	$(21<<8), R4, R7
	VMOV	R6, V21.D[0]
	VMOV	R7, V21.D[1]
	ADD	$22, R4, R6
	EOR	$(22<<8), R4, R7
	VMOV	R6, V22.D[0]
	VMOV	R7, V22.D[1]
	ADD	$23, R4, R6
	EOR	$(23<<8), R4, R7
	VMOV	R6, V23.D[0]
	VMOV	R7, V23.D[1]
	ADD	$24, R4, R6
	EOR	$(24<<8), R4, R7
	VMOV	R6, V24.D[0]
	VMOV	R7, V24.D[1]
	ADD	$25, R4, R6
	EOR	$(25<<8), R4, R7
	VMOV	R6, V25.D[0]
	VMOV	R7, V25.D[1]
	ADD	$26, R4, R6
	EOR	$(26<<8), R4, R7
	VMOV	R6, V26.D[0]
	VMOV	R7, V26.D[1]
	ADD	$27, R4, R6
	EOR	$(27<<8), R4, R7
	VMOV	R6, V27.D[0]
	VMOV	R7, V27.D[1]
	ADD	$28, R4, R6
	EOR	$(28<<8), R4, R7
	VMOV	R6, V28.D[0]
	VMOV	R7, V28.D[1]
	ADD	$29, R4, R6
	EOR	$(29<<8), R4, R7
	VMOV	R6, V29.D[0]
	VMOV	R7, V29.D[1]
	ADD	$30, R4, R6
	EOR	$(30<<8), R4, R7
	VMOV	R6, V30.D[0]
	VMOV	R7, V30.D[1]
	ADD	$31, R4, R6
	EOR	$(31<<8), R4, R7
	VMOV	R6, V31.D[0]
	VMOV	R7, V31.D[1]
	// Interrupts, thread switches and signals land in the spin, with the pattern in the registers.
	MOVD	$spinIterations, R10
spin:
	SUB	$1, R10
	CBNZ	R10, spin
	MOVD	$0, R9
	ADD	$0, R4, R6
	VMOV	V0.D[0], R7
	CMP	R6, R7
	BEQ	2(PC)
	ADD	$1, R9
	EOR	$(0<<8), R4, R6
	VMOV	V0.D[1], R7
	CMP	R6, R7
	BEQ	2(PC)
	ADD	$1, R9
	ADD	$1, R4, R6
	VMOV	V1.D[0], R7
	CMP	R6, R7
	BEQ	2(PC)
	ADD	$1, R9
	EOR	$(1<<8), R4, R6
	VMOV	V1.D[1], R7
	CMP	R6, R7
	BEQ	2(PC)
	ADD	$1, R9
	ADD	$2, R4, R6
	VMOV	V2.D[0], R7
	CMP	R6, R7
	BEQ	2(PC)
	ADD	$1, R9
	EOR	$(2<<8), R4, R6
	VMOV	V2.D[1], R7
	CMP	R6, R7
	BEQ	2(PC)
	ADD	$1, R9
	ADD	$3, R4, R6
	VMOV	V3.D[0], R7
	CMP	R6, R7
	BEQ	2(PC)
	ADD	$1, R9
	EOR	$(3<<8), R4, R6
	VMOV	V3.D[1], R7
	CMP	R6, R7
	BEQ	2(PC)
	ADD	$1, R9
	ADD	$4, R4, R6
	VMOV	V4.D[0], R7
	CMP	R6, R7
	BEQ	2(PC)
	ADD	$1, R9
	EOR	$(4<<8), R4, R6
	VMOV	V4.D[1], R7
	CMP	R6, R7
	BEQ	2(PC)
	ADD	$1, R9
	ADD	$5, R4, R6
	VMOV	V5.D[0], R7
	CMP	R6, R7
	BEQ	2(PC)
	ADD	$1, R9
	EOR	$(5<<8), R4, R6
	VMOV	V5.D[1], R7
	CMP	R6, R7
	BEQ	2(PC)
	ADD	$1, R9
	ADD	$6, R4, R6
	VMOV	V6.D[0], R7
	CMP	R6, R7
	BEQ	2(PC)
	ADD	$1, R9
	EOR	$(6<<8), R4, R6
	VMOV	V6.D[1], R7
	CMP	R6, R7
	BEQ	2(PC)
	ADD	$1, R9
	ADD	$7, R4, R6
	VMOV	V7.D[0], R7
	CMP	R6, R7
	BEQ	2(PC)
	ADD	$1, R9
	EOR	$(7<<8), R4, R6
	VMOV	V7.D[1], R7
	CMP	R6, R7
	BEQ	2(PC)
	ADD	$1, R9
	ADD	$8, R4, R6
	VMOV	V8.D[0], R7
	CMP	R6, R7
	BEQ	2(PC)
	ADD	$1, R9
	EOR	$(8<<8), R4, R6
	VMOV	V8.D[1], R7
	CMP	R6, R7
	BEQ	2(PC)
	ADD	$1, R9
	ADD	$9, R4, R6
	VMOV	V9.D[0], R7
	CMP	R6, R7
	BEQ	2(PC)
	ADD	$1, R9
	EOR	$(9<<8), R4, R6
	VMOV	V9.D[1], R7
	CMP	R6, R7
	BEQ	2(PC)
	ADD	$1, R9
	ADD	$10, R4, R6
	VMOV	V10.D[0], R7
	CMP	R6, R7
	BEQ	2(PC)
	ADD	$1, R9
	EOR	$(10<<8), R4, R6
	VMOV	V10.D[1], R7
	CMP	R6, R7
	BEQ	2(PC)
	ADD	$1, R9
	ADD	$11, R4, R6
	VMOV	V11.D[0], R7
	CMP	R6, R7
	BEQ	2(PC)
	ADD	$1, R9
	EOR	$(11<<8), R4, R6
	VMOV	V11.D[1], R7
	CMP	R6, R7
	BEQ	2(PC)
	ADD	$1, R9
	ADD	$12, R4, R6
	VMOV	V12.D[0], R7
	CMP	R6, R7
	BEQ	2(PC)
	ADD	$1, R9
	EOR	$(12<<8), R4, R6
	VMOV	V12.D[1], R7
	CMP	R6, R7
	BEQ	2(PC)
	ADD	$1, R9
	ADD	$13, R4, R6
	VMOV	V13.D[0], R7
	CMP	R6, R7
	BEQ	2(PC)
	ADD	$1, R9
	EOR	$(13<<8), R4, R6
	VMOV	V13.D[1], R7
	CMP	R6, R7
	BEQ	2(PC)
	ADD	$1, R9
	ADD	$14, R4, R6
	VMOV	V14.D[0], R7
	CMP	R6, R7
	BEQ	2(PC)
	ADD	$1, R9
	EOR	$(14<<8), R4, R6
	VMOV	V14.D[1], R7
	CMP	R6, R7
	BEQ	2(PC)
	ADD	$1, R9
	ADD	$15, R4, R6
	VMOV	V15.D[0], R7
	CMP	R6, R7
	BEQ	2(PC)
	ADD	$1, R9
	EOR	$(15<<8), R4, R6
	VMOV	V15.D[1], R7
	CMP	R6, R7
	BEQ	2(PC)
	ADD	$1, R9
	ADD	$16, R4, R6
	VMOV	V16.D[0], R7
	CMP	R6, R7
	BEQ	2(PC)
	ADD	$1, R9
	EOR	$(16<<8), R4, R6
	VMOV	V16.D[1], R7
	CMP	R6, R7
	BEQ	2(PC)
	ADD	$1, R9
	ADD	$17, R4, R6
	VMOV	V17.D[0], R7
	CMP	R6, R7
	BEQ	2(PC)
	ADD	$1, R9
	EOR	$(17<<8), R4, R6
	VMOV	V17.D[1], R7
	CMP	R6, R7
	BEQ	2(PC)
	ADD	$1, R9
	ADD	$18, R4, R6
	VMOV	V18.D[0], R7
	CMP	R6, R7
	BEQ	2(PC)
	ADD	$1, R9
	EOR	$(18<<8), R4, R6
	VMOV	V18.D[1], R7
	CMP	R6, R7
	BEQ	2(PC)
	ADD	$1, R9
	ADD	$19, R4, R6
	VMOV	V19.D[0], R7
	CMP	R6, R7
	BEQ	2(PC)
	ADD	$1, R9
	EOR	$(19<<8), R4, R6
	VMOV	V19.D[1], R7
	CMP	R6, R7
	BEQ	2(PC)
	ADD	$1, R9
	ADD	$20, R4, R6
	VMOV	V20.D[0], R7
	CMP	R6, R7
	BEQ	2(PC)
	ADD	$1, R9
	EOR	$(20<<8), R4, R6
	VMOV	V20.D[1], R7
	CMP	R6, R7
	BEQ	2(PC)
	ADD	$1, R9
	ADD	$21, R4, R6
	VMOV	V21.D[0], R7
	CMP	R6, R7
	BEQ	2(PC)
	ADD	$1, R9
	EOR	$(21<<8), R4, R6
	VMOV	V21.D[1], R7
	CMP	R6, R7
	BEQ	2(PC)
	ADD	$1, R9
	ADD	$22, R4, R6
	VMOV	V22.D[0], R7
	CMP	R6, R7
	BEQ	2(PC)
	ADD	$1, R9
	EOR	$(22<<8), R4, R6
	VMOV	V22.D[1], R7
	CMP	R6, R7
	BEQ	2(PC)
	ADD	$1, R9
	ADD	$23, R4, R6
	VMOV	V23.D[0], R7
	CMP	R6, R7
	BEQ	2(PC)
	ADD	$1, R9
	EOR	$(23<<8), R4, R6
	VMOV	V23.D[1], R7
	CMP	R6, R7
	BEQ	2(PC)
	ADD	$1, R9
	ADD	$24, R4, R6
	VMOV	V24.D[0], R7
	CMP	R6, R7
	BEQ	2(PC)
	ADD	$1, R9
	EOR	$(24<<8), R4, R6
	VMOV	V24.D[1], R7
	CMP	R6, R7
	BEQ	2(PC)
	ADD	$1, R9
	ADD	$25, R4, R6
	VMOV	V25.D[0], R7
	CMP	R6, R7
	BEQ	2(PC)
	ADD	$1, R9
	EOR	$(25<<8), R4, R6
	VMOV	V25.D[1], R7
	CMP	R6, R7
	BEQ	2(PC)
	ADD	$1, R9
	ADD	$26, R4, R6
	VMOV	V26.D[0], R7
	CMP	R6, R7
	BEQ	2(PC)
	ADD	$1, R9
	EOR	$(26<<8), R4, R6
	VMOV	V26.D[1], R7
	CMP	R6, R7
	BEQ	2(PC)
	ADD	$1, R9
	ADD	$27, R4, R6
	VMOV	V27.D[0], R7
	CMP	R6, R7
	BEQ	2(PC)
	ADD	$1, R9
	EOR	$(27<<8), R4, R6
	VMOV	V27.D[1], R7
	CMP	R6, R7
	BEQ	2(PC)
	ADD	$1, R9
	ADD	$28, R4, R6
	VMOV	V28.D[0], R7
	CMP	R6, R7
	BEQ	2(PC)
	ADD	$1, R9
	EOR	$(28<<8), R4, R6
	VMOV	V28.D[1], R7
	CMP	R6, R7
	BEQ	2(PC)
	ADD	$1, R9
	ADD	$29, R4, R6
	VMOV	V29.D[0], R7
	CMP	R6, R7
	BEQ	2(PC)
	ADD	$1, R9
	EOR	$(29<<8), R4, R6
	VMOV	V29.D[1], R7
	CMP	R6, R7
	BEQ	2(PC)
	ADD	$1, R9
	ADD	$30, R4, R6
	VMOV	V30.D[0], R7
	CMP	R6, R7
	BEQ	2(PC)
	ADD	$1, R9
	EOR	$(30<<8), R4, R6
	VMOV	V30.D[1], R7
	CMP	R6, R7
	BEQ	2(PC)
	ADD	$1, R9
	ADD	$31, R4, R6
	VMOV	V31.D[0], R7
	CMP	R6, R7
	BEQ	2(PC)
	ADD	$1, R9
	EOR	$(31<<8), R4, R6
	VMOV	V31.D[1], R7
	CMP	R6, R7
	BEQ	2(PC)
	ADD	$1, R9
	// The system call: it keeps FPCR (and x0-x30 but x0); the Go ABI keeps no vector value live
	// across a call, and neither does the kernel (a system call's entry saves none).
	MOVD	R4, 8(RSP)
	MOVD	R9, 16(RSP)
	MOVD	nr+8(FP), R8
	MOVD	a0+16(FP), R0
	MOVD	a1+24(FP), R1
	MOVD	$0, R2
	SVC
	MOVD	8(RSP), R4
	MOVD	16(RSP), R9
	MOVD	$0, R5
	TBZ	$32, R4, 2(PC)
	MOVD	$(3<<22), R5
	MRS	FPCR, R6
	AND	$(3<<22), R6
	CMP	R5, R6
	BEQ	2(PC)
	ADD	$1, R9
	MSR	ZR, FPCR
	MOVD	R9, ret+32(FP)
	RET
