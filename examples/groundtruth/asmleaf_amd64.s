#include "textflag.h"
#include "xorshift_amd64.h"

// spinLeaf runs n steps of xorshift64 (Marsaglia's 13, 7, 17) from x and returns the result.
//
// It is a frameless leaf: NOFRAME with a $0 frame, so the assembler adds no PUSHQ BP and no
// SUBQ, SP stays at its entry value and 0(SP) holds the return address into middle for the
// whole run, while BP still holds middle's frame pointer. This is the case the host tool's
// pclntab fix (SP delta 0 at every pc) recovers the caller for.
//
// On entry: 0(SP) return address, x at 8(SP), n at 16(SP). Clobbers AX, CX, DX.
//
// func spinLeaf(x, n uint64) uint64
TEXT ·spinLeaf(SB),NOSPLIT|NOFRAME,$0-24
	MOVQ	x+0(FP), AX
	MOVQ	n+8(FP), CX
	TESTQ	CX, CX
	JZ	done
	XORSHIFT_LOOP
done:
	MOVQ	AX, ret+16(FP)
	RET
