// The kernel's Go entry points, published by package kernel as a table of ABI0 addresses
// (kernel/entry_amd64.s). This is the only place where arch/amd64 refers to the kernel: the
// hardware enters here, and the kernel is the one that knows what to do.
#define KERNEL_ENTRY_BOOT github·com∕unitrace∕unitrace∕kernel·entryPoints+0(SB)
#define KERNEL_ENTRY_TRAP github·com∕unitrace∕unitrace∕kernel·entryPoints+8(SB)
// The entry point of an application processor (arch/amd64 smp_amd64.go StartAP): called with its
// CPU index on its own boot stack.
#define KERNEL_ENTRY_SECONDARY github·com∕unitrace∕unitrace∕kernel·entryPoints+16(SB)
