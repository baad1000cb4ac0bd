#include "textflag.h"
#include "xorshift_amd64.h"

// The clobber workload's assembly (clobber.go). Each function has a frame, so the assembler's
// prologue pushes the caller's BP and sets BP to the frame record it made, and its epilogue
// pops the caller's BP back. The clobbering ones save their own BP in a local first and reload
// it before RET, as badfp_amd64.s does.

// spinClobbered runs n xorshift64 steps from x with BP = fp.
//
// Frame: 0(SP) this function's BP, 512(SP) the caller's BP (the prologue's), 520(SP) the
// return address, x at 528(SP). Clobbers AX, CX, DX; BP holds fp during the loop.
//
// func spinClobbered(x, n uint64, fp uintptr) uint64
TEXT ·spinClobbered(SB),0,$512-32
	MOVQ	BP, 0(SP)
	MOVQ	x+0(FP), AX
	MOVQ	n+8(FP), CX
	MOVQ	fp+16(FP), BP
	TESTQ	CX, CX
	JZ	done
	XORSHIFT_LOOP
done:
	MOVQ	0(SP), BP
	MOVQ	AX, ret+24(FP)
	RET

// spinUnderClobbered calls spinInner(x, n) with BP = fp.
//
// Frame: 0(SP)-16(SP) spinInner's arguments and result, 24(SP) this function's BP, 512(SP)
// the caller's BP, 520(SP) the return address. Clobbers AX, CX, DX and what spinInner does;
// BP holds fp across the call.
//
// func spinUnderClobbered(x, n uint64, fp uintptr) uint64
TEXT ·spinUnderClobbered(SB),0,$512-32
	MOVQ	BP, 24(SP)
	MOVQ	x+0(FP), AX
	MOVQ	AX, 0(SP)
	MOVQ	n+8(FP), CX
	MOVQ	CX, 8(SP)
	MOVQ	fp+16(FP), BP
	CALL	·spinInner(SB)
	MOVQ	16(SP), AX
	MOVQ	24(SP), BP
	MOVQ	AX, ret+24(FP)
	RET

// spinInner runs n xorshift64 steps from x.
//
// Frame: 0(SP) a local, 8(SP) the caller's BP (the prologue's), 16(SP) the return address.
// Clobbers AX, CX, DX.
//
// func spinInner(x, n uint64) uint64
TEXT ·spinInner(SB),NOSPLIT,$8-24
	MOVQ	x+0(FP), AX
	MOVQ	n+8(FP), CX
	TESTQ	CX, CX
	JZ	done
	XORSHIFT_LOOP
done:
	MOVQ	AX, ret+16(FP)
	RET
