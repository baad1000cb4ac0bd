#include "textflag.h"

// func CallerFP() uintptr
//
// CallerFP returns the frame pointer of its caller's caller: the tracer's emits call it to find
// the Emit's frame, whose return address is the tracepoint's caller, and CallerPath its caller's
// frame. It is assembly, with no frame of its own, so that nothing can come between it and its
// caller (a Go wrapper would shift the answer by one frame whenever the compiler did not inline
// it, as under -l or -race). Callers in other packages call this body directly as well: the
// compiler knows from the package's export data that it is an assembly (ABI0) function.
//
// Entry: RBP is the caller's frame pointer (this function pushes nothing). Clobbers AX. Returns
// the word at 0(RBP), the caller's saved frame pointer.
TEXT ·CallerFP(SB),NOSPLIT|NOFRAME,$0-8
	MOVQ	0(BP), AX
	MOVQ	AX, ret+0(FP)
	RET
