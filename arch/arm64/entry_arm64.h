// The kernel's Go entry points, published by package kernel as a table of ABI0 addresses
// (kernel/entry_arm64.s: DATA ·entryPoints+0 = bootMain, +8 = trap, +16 = the secondary CPUs'
// entry, func(cpu uint64), which secondaryEntry calls; a table without it must not StartCPU). This is the only place
// where arch/arm64 refers to the kernel: the hardware enters here, and the kernel is the one
// that knows what to do.
//
// The table is found by its linker name. A standalone image that does not link the kernel
// (tests/arm64smoke) defines a symbol of the same name in its own assembly instead; linking
// both would fail with a duplicate symbol, which is the point.
#define KERNEL_ENTRY_BOOT github·com∕unitrace∕unitrace∕kernel·entryPoints+0(SB)
#define KERNEL_ENTRY_TRAP github·com∕unitrace∕unitrace∕kernel·entryPoints+8(SB)
#define KERNEL_ENTRY_SECONDARY github·com∕unitrace∕unitrace∕kernel·entryPoints+16(SB)
