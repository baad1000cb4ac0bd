#include "textflag.h"
#include "xorshift_arm64.h"
#include "go_asm.h"

// fakeReturnOffset places the fake frame records' return addresses inside spinOnFakeFrames: a
// symbolizer looks a return address up at its pc-1, so the function's entry itself would be
// named as the end of the function before it.
#define fakeReturnOffset 16

// Both functions below have a frame, so the assembler's prologue saves the link register at
// 0(RSP) and the caller's R29 at -8(RSP) and points R29 at that pair, and its epilogue gives the
// caller its R29 back (Go 1.26 recomputes it from RSP: ADD $framesize-8, RSP, R29). In between
// they overwrite R29 with garbage and spin. They first copy their own R29 to a local and reload
// it before RET, so the epilogue runs with the R29 its prologue set, whatever the epilogue's
// form.

// spinWithFramePointer runs n xorshift64 steps from x with R29 = fp.
//
// Frame: 0(RSP) saved LR, 8(RSP) this function's R29, -8(RSP) the caller's R29. Clobbers R0,
// R1; R29 holds fp during the loop.
//
// func spinWithFramePointer(x, n uint64, fp uintptr) uint64
TEXT ·spinWithFramePointer(SB),NOSPLIT,$16-32
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

// spinOnFakeFrames runs n xorshift64 steps from x with R29 pointing into two fake frame records
// it builds in its own frame, in the given shape.
//
// Frame (addresses grow up; an arm64 frame record is {next R29, return address} like amd64's):
//	0(RSP)  saved LR
//	8(RSP)  this function's R29
//	16(RSP) record 0: next frame pointer (record 1, or 16(RSP) itself for stackSelfLoop)
//	24(RSP) record 0: return address = ·spinOnFakeFrames+fakeReturnOffset
//	32(RSP) record 1: next frame pointer (0 ends the chain, or 16(RSP) for stackCycle)
//	40(RSP) record 1: return address = ·spinOnFakeFrames+fakeReturnOffset
// R29 during the loop: 20(RSP) for stackUnaligned, 16(RSP) otherwise. Clobbers R0-R3.
//
// func spinOnFakeFrames(x, n uint64, shape int) uint64
TEXT ·spinOnFakeFrames(SB),NOSPLIT,$48-32
	MOVD	R29, 8(RSP)
	MOVD	$·spinOnFakeFrames+fakeReturnOffset(SB), R2
	MOVD	R2, 24(RSP)
	MOVD	R2, 40(RSP)
	ADD	$32, RSP, R2
	MOVD	R2, 16(RSP)
	MOVD	ZR, 32(RSP)
	ADD	$16, RSP, R2
	MOVD	shape+16(FP), R3
	CMP	$const_stackUnaligned, R3
	BEQ	unaligned
	CMP	$const_stackSelfLoop, R3
	BEQ	selfloop
	// stackCycle: record 1 points back down at record 0.
	MOVD	R2, 32(RSP)
	MOVD	R2, R29
	B	spin
unaligned:
	ADD	$20, RSP, R29
	B	spin
selfloop:
	MOVD	R2, 16(RSP)
	MOVD	R2, R29
spin:
	MOVD	x+0(FP), R0
	MOVD	n+8(FP), R1
	CBZ	R1, done
	XORSHIFT_LOOP
done:
	MOVD	8(RSP), R29
	MOVD	R0, ret+24(FP)
	RET
