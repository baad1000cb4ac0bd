#include "textflag.h"

// func CallerFP() uintptr
//
// CallerFP returns the frame pointer of its caller's caller, like callerfp_amd64.s. Go's arm64
// frame record sits at R29: the caller's saved frame pointer at 0(R29), its return address at
// 8(R29). This function has no frame, so R29 is still its caller's.
//
// Entry: R29 is the caller's frame pointer. Clobbers R0. Returns the word at 0(R29).
TEXT ·CallerFP(SB),NOSPLIT|NOFRAME,$0-8
	MOVD	0(R29), R0
	MOVD	R0, ret+0(FP)
	RET
