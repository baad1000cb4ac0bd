#include "textflag.h"

// entryPoints publishes the kernel's Go entry points to arch/arm64's assembly (its
// entry_arm64.h): the ABI0 addresses of bootMain, trap and secondaryMain. Referring to them from
// this package's own assembly is also what makes the compiler emit their ABI0 wrappers.
// tests/layout checks that each slot holds what the header's name for it says.
DATA ·entryPoints+0(SB)/8, $·bootMain(SB)
DATA ·entryPoints+8(SB)/8, $·trap(SB)
DATA ·entryPoints+16(SB)/8, $·secondaryMain(SB)
GLOBL ·entryPoints(SB), RODATA, $24
