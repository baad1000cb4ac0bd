#include "textflag.h"

// func divideInstruction(a, b int64) int64
TEXT ·divideInstruction(SB),NOSPLIT,$0-24
	MOVQ	a+0(FP), AX
	MOVQ	b+8(FP), BX
	CQO
	IDIVQ	BX
	MOVQ	AX, ret+16(FP)
	RET
