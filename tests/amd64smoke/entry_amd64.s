#include "textflag.h"

// entryPoints stands in for the kernel's table (kernel/entry_amd64.s), under the kernel's own
// symbol name, which arch/amd64's entry_amd64.h refers to: bootMain, trap, and the application
// processors' entry point.
DATA github·com∕unitrace∕unitrace∕kernel·entryPoints+0(SB)/8, $·bootMain(SB)
DATA github·com∕unitrace∕unitrace∕kernel·entryPoints+8(SB)/8, $·trap(SB)
DATA github·com∕unitrace∕unitrace∕kernel·entryPoints+16(SB)/8, $·secondary(SB)
GLOBL github·com∕unitrace∕unitrace∕kernel·entryPoints(SB), RODATA, $24

// func waitForInterrupts()
//
// waitForInterrupts enables interrupts and halts until the next one, forever.
TEXT ·waitForInterrupts(SB),NOSPLIT|NOFRAME,$0
again:
	STI
	HLT
	JMP	again
