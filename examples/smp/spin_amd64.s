#include "textflag.h"

// func rawClone(flags, stack uintptr) int
//
// clone(flags, stack, parent_tid 0, child_tid 0, tls 0): amd64's argument order. The parent
// returns the child's tid (or -errno); the child, on its own stack with no Go state behind it,
// calls exit(0) at once.
TEXT ·rawClone(SB),NOSPLIT,$0-24
	MOVQ	flags+0(FP), DI
	MOVQ	stack+8(FP), SI
	XORQ	DX, DX	// parent_tid
	XORQ	R10, R10	// child_tid
	XORQ	R8, R8	// tls
	MOVQ	$56, AX	// SYS_clone
	SYSCALL
	TESTQ	AX, AX
	JEQ	child
	MOVQ	AX, ret+16(FP)
	RET
child:
	XORQ	DI, DI	// status 0
	MOVQ	$60, AX	// SYS_exit: this thread only
	SYSCALL
	JMP	child	// not reached

// func spinForever()
//
// A non-zero frame makes the assembler emit the frame-pointer prologue (BP saved, BP = its
// address), so a frame-pointer walk from the loop finds spinForever's caller. The loop is one
// block aligned to 64 bytes: under TCG it then never straddles a page (see
// examples/groundtruth/shares_amd64.s).
TEXT ·spinForever(SB),NOSPLIT,$8-0
	XORQ	AX, AX
	PCALIGN	$64
loop:
	ADDQ	$1, AX
	JMP	loop
