#include "textflag.h"

// The vDSO's function. The image builder copies its machine code into the vDSO page
// (internal/image) and patches the 64-bit constant 0x5644534f50415241 (vdso.Magic), which the assembler builds
// in R2 with MOVZ and three MOVKs (vdso.PatchMoves), with the address of the clock parameters (vdso.Params*: +0
// sequence count, +8 counter base, +16 multiplier, +24 wall offset in ns): the code is otherwise
// position-independent (PC-relative branches only). It is a C function (AAPCS64),
// called by the Go runtime on its system stack; it uses no stack and touches no callee-saved
// register (R19-R29), nor R18 or R28 (g).
//
// The clock is the kernel's own: ns = (CNTVCT - base) * mult >> 32 (the 128-bit product's
// bits 32-95, arch.Nanotime), plus the wall offset for the realtime clocks.

// vdsoClockGettime is __kernel_clock_gettime(clockid_t clk, struct timespec *ts).
// Entry: R0 = clk, R1 = ts. Serves REALTIME (0), MONOTONIC (1), MONOTONIC_RAW (4),
// REALTIME_COARSE (5), MONOTONIC_COARSE (6), BOOTTIME (7) and TAI (11); anything else is the
// clock_gettime system call (113) with the same registers. Clobbers R2-R12 (and R8 in the
// system call). Returns 0 in R0, or the system call's result.
TEXT ·vdsoClockGettime(SB),NOSPLIT|NOFRAME,$0
	MOVD	$0x5644534f50415241, R2
	CMPW	$31, R0
	BHI	fallback
	MOVW	$0x8f3, R3
	LSRW	R0, R3, R3
	TBZ	$0, R3, fallback
retry:
	LDARW	(R2), R4
	TBNZ	$0, R4, retry
	ISB	$15
	MRS	CNTVCT_EL0, R5
	MOVD	8(R2), R6
	MOVD	16(R2), R7
	SUB	R6, R5, R5
	UMULH	R7, R5, R8
	MUL	R7, R5, R9
	LSR	$32, R9, R9
	ORR	R8<<32, R9, R9
	MOVW	$0x821, R3 // the realtime ones: 0, 5, 11
	LSRW	R0, R3, R3
	TBZ	$0, R3, mono
	MOVD	24(R2), R10
	ADD	R10, R9, R9
mono:
	LDARW	(R2), R11
	CMPW	R4, R11
	BNE	retry
	// Seconds without UDIV, which emulators run slowly: ns / 1e9 = ((ns >> 9) *
	// 0x44b82fa09b5a53) >> 64 >> 11, exact for every 64-bit ns.
	LSR	$9, R9, R11
	MOVD	$0x44b82fa09b5a53, R10
	UMULH	R10, R11, R11
	LSR	$11, R11, R11
	MOVD	$1000000000, R10
	MSUB	R10, R9, R11, R12
	MOVD	R11, 0(R1)
	MOVD	R12, 8(R1)
	MOVD	$0, R0
	RET
fallback:
	MOVD	$113, R8
	SVC
	RET

// The function's address (ABI0: its code itself), for the kernel to find and copy it.
DATA ·vdsoClockGettimePC+0(SB)/8, $·vdsoClockGettime(SB)
GLOBL ·vdsoClockGettimePC(SB), RODATA, $8

// func syncInstructions(addr, n uintptr)
//
// Makes instructions just written at [addr, addr+n) visible to instruction fetch on every CPU
// (Arm ARM B2.4.4, the sequence for self-modifying code): clean each data-cache line to the
// point of unification, then invalidate the instruction caches. It assumes 64-byte lines or
// larger: a smaller minimum line would leave lines uncleaned, so it steps by 16 bytes, which no
// Arm core goes below. Clobbers R0-R2.
TEXT ·syncInstructions(SB),NOSPLIT,$0-16
	MOVD	addr+0(FP), R0
	MOVD	n+8(FP), R1
	ADD	R0, R1, R1
dcLoop:
	CMP	R1, R0
	BHS	dcDone
	DC	CVAU, R0
	ADD	$16, R0
	B	dcLoop
dcDone:
	DSB	$11 // ISH
	WORD	$0xd508711f // IC IALLUIS (SYS #0, C7, C1, #0): the assembler has no name for it
	DSB	$11
	ISB	$15
	RET
