#include "textflag.h"
#include "xorshift_arm64.h"

// spinLeaf runs n steps of xorshift64 (Marsaglia's 13, 7, 17) from x and returns the result.
//
// It is a frameless leaf: NOFRAME with a $0 frame, so the assembler saves neither the link
// register nor R29 and moves no RSP. The return address into middle stays in R30 (LR) for the
// whole run and R29 still holds middle's frame pointer: the caller is only in LR.
//
// On entry: R30 return address, x at 8(RSP), n at 16(RSP). Clobbers R0, R1.
//
// func spinLeaf(x, n uint64) uint64
TEXT ·spinLeaf(SB),NOSPLIT|NOFRAME,$0-24
	MOVD	x+0(FP), R0
	MOVD	n+8(FP), R1
	CBZ	R1, done
	XORSHIFT_LOOP
done:
	MOVD	R0, ret+16(FP)
	RET
