#include "textflag.h"
#include "xorshift_arm64.h"

// The clobber workload's assembly (clobber.go). Each function has a frame, so the assembler's
// prologue saves the link register at 0(RSP) and the caller's R29 at -8(RSP) and points R29 at
// that pair, and its epilogue gives the caller its R29 back. The clobbering ones save their
// own R29 in a local first and reload it before RET, as badfp_arm64.s does.

// spinClobbered runs n xorshift64 steps from x with R29 = fp.
//
// Frame: 0(RSP) saved LR, 8(RSP) this function's R29, up to 512(RSP) unused; -8(RSP) the
// caller's R29. Clobbers R0, R1; R29 holds fp during the loop.
//
// func spinClobbered(x, n uint64, fp uintptr) uint64
TEXT ·spinClobbered(SB),0,$512-32
	MOVD	R29, 8(RSP)
	MOVD	x+0(FP), R0
	MOVD	n+8(FP), R1
	MOVD	fp+16(FP), R29
	CBZ	R1, done
	XORSHIFT_LOOP
done:
	MOVD	8(RSP), R29
	MOVD	R0, ret+24(FP)
	RET

// spinUnderClobbered calls spinInner(x, n) with R29 = fp.
//
// Frame: 0(RSP) saved LR, 8(RSP)-24(RSP) spinInner's arguments and result, 32(RSP) this
// function's R29; -8(RSP) the caller's R29. Clobbers R0, R1 and what spinInner does; R29
// holds fp across the call.
//
// func spinUnderClobbered(x, n uint64, fp uintptr) uint64
TEXT ·spinUnderClobbered(SB),0,$512-32
	MOVD	R29, 32(RSP)
	MOVD	x+0(FP), R0
	MOVD	R0, 8(RSP)
	MOVD	n+8(FP), R1
	MOVD	R1, 16(RSP)
	MOVD	fp+16(FP), R29
	CALL	·spinInner(SB)
	MOVD	24(RSP), R0
	MOVD	32(RSP), R29
	MOVD	R0, ret+24(FP)
	RET

// spinInner runs n xorshift64 steps from x.
//
// Frame: 0(RSP) saved LR, 8(RSP) a local; -8(RSP) the caller's R29 (the prologue's).
// Clobbers R0, R1.
//
// func spinInner(x, n uint64) uint64
TEXT ·spinInner(SB),NOSPLIT,$16-24
	MOVD	x+0(FP), R0
	MOVD	n+8(FP), R1
	CBZ	R1, done
	XORSHIFT_LOOP
done:
	MOVD	R0, ret+16(FP)
	RET
