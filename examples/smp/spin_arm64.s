#include "textflag.h"

// func rawClone(flags, stack uintptr) int
//
// clone(flags, stack, parent_tid 0, tls 0, child_tid 0): arm64's argument order
// (CLONE_BACKWARDS). The parent returns the child's tid (or -errno); the child, on its own stack
// with no Go state behind it, calls exit(0) at once.
TEXT ·rawClone(SB),NOSPLIT,$0-24
	MOVD	flags+0(FP), R0
	MOVD	stack+8(FP), R1
	MOVD	$0, R2	// parent_tid
	MOVD	$0, R3	// tls
	MOVD	$0, R4	// child_tid
	MOVD	$220, R8	// SYS_clone
	SVC
	CBZ	R0, child
	MOVD	R0, ret+16(FP)
	RET
child:
	MOVD	$0, R0	// status 0
	MOVD	$93, R8	// SYS_exit: this thread only
	SVC
	B	child	// not reached

// func spinForever()
//
// A non-zero frame makes the assembler save the frame pointer and link register and point R29
// at them, so a frame-pointer walk from the loop finds spinForever's caller. The loop is one
// block aligned to 64 bytes: under TCG it then never straddles a page (see
// examples/groundtruth/shares_arm64.s).
TEXT ·spinForever(SB),NOSPLIT,$16-0
	MOVD	$0, R0
	PCALIGN	$64
loop:
	ADD	$1, R0, R0
	B	loop
