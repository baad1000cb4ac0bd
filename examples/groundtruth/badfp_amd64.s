#include "textflag.h"
#include "xorshift_amd64.h"
#include "go_asm.h"

// fakeReturnOffset places the fake frame records' return addresses inside spinOnFakeFrames: a
// symbolizer looks a return address up at its pc-1, so the function's entry itself would be
// named as the end of the function before it.
#define fakeReturnOffset 16

// Both functions below have a frame, so the assembler's prologue pushes the caller's BP and sets
// BP = SP, and its epilogue pops the caller's BP back. In between they overwrite BP with garbage
// and spin. They first copy their own BP to a local and reload it before RET, so the epilogue
// runs with the BP its prologue set, whatever the epilogue's form.

// spinWithFramePointer runs n xorshift64 steps from x with BP = fp.
//
// Frame: 0(SP) this function's BP, 8(SP) the caller's BP (saved by the prologue), 16(SP) the
// return address, x at 24(SP). Clobbers AX, CX, DX; BP holds fp during the loop.
//
// func spinWithFramePointer(x, n uint64, fp uintptr) uint64
TEXT ·spinWithFramePointer(SB),NOSPLIT,$8-32
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

// spinOnFakeFrames runs n xorshift64 steps from x with BP pointing into two fake frame records
// it builds in its own frame, in the given shape.
//
// Frame (addresses grow up):
//	0(SP)  record 0: next frame pointer (record 1, or 0(SP) itself for stackSelfLoop)
//	8(SP)  record 0: return address = ·spinOnFakeFrames+fakeReturnOffset
//	16(SP) record 1: next frame pointer (0 ends the chain, or 0(SP) for stackCycle)
//	24(SP) record 1: return address = ·spinOnFakeFrames+fakeReturnOffset
//	32(SP) this function's BP; 40(SP) the caller's BP; 48(SP) return address; x at 56(SP)
// BP during the loop: 4(SP) for stackUnaligned, 0(SP) otherwise. Clobbers AX, CX, DX.
//
// func spinOnFakeFrames(x, n uint64, shape int) uint64
TEXT ·spinOnFakeFrames(SB),NOSPLIT,$40-32
	MOVQ	BP, 32(SP)
	MOVQ	$·spinOnFakeFrames+fakeReturnOffset(SB), DX
	MOVQ	DX, 8(SP)
	MOVQ	DX, 24(SP)
	LEAQ	16(SP), DX
	MOVQ	DX, 0(SP)
	MOVQ	$0, 16(SP)
	MOVQ	shape+16(FP), DX
	CMPQ	DX, $const_stackUnaligned
	JEQ	unaligned
	CMPQ	DX, $const_stackSelfLoop
	JEQ	selfloop
	// stackCycle: record 1 points back down at record 0.
	MOVQ	SP, DX
	MOVQ	DX, 16(SP)
	MOVQ	SP, BP
	JMP	spin
unaligned:
	LEAQ	4(SP), BP
	JMP	spin
selfloop:
	MOVQ	SP, DX
	MOVQ	DX, 0(SP)
	MOVQ	SP, BP
spin:
	MOVQ	x+0(FP), AX
	MOVQ	n+8(FP), CX
	TESTQ	CX, CX
	JZ	done
	XORSHIFT_LOOP
done:
	MOVQ	32(SP), BP
	MOVQ	AX, ret+24(FP)
	RET
