#include "textflag.h"

// sigreturnCode is where a signal handler returns to (its x30) when the program did not give a
// restorer, as the Go runtime does not on arm64 (Linux would use its vDSO's). It runs on the
// thread, at EL1t, with sp back at the signal frame, and asks for rt_sigreturn (139), which
// never returns here.
TEXT ·sigreturnCode(SB),NOSPLIT|NOFRAME,$0-0
	MOVD	$139, R8
	SVC	$0
	// Not reached: rt_sigreturn resumes the interrupted context.
	UNDEF

// func sigreturnTrampoline() uintptr
//
// sigreturnTrampoline returns the address of sigreturnCode. Clobbers R0.
TEXT ·sigreturnTrampoline(SB),NOSPLIT|NOFRAME,$0-8
	MOVD	$·sigreturnCode(SB), R0
	MOVD	R0, ret+0(FP)
	RET
