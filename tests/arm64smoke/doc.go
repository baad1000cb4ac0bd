//go:build arm64

// Command arm64smoke is a standalone boot smoke test for arch/arm64: an image that does not
// link the kernel, whose own bootMain and trap (reached through the entry table in
// entry_arm64.s) exercise the hardware layer on QEMU -M virt and report on the PL011:
//
//   - the boot code left the CPU at EL1 with the MMU on, the vectors installed and the identity
//     map as documented (64 KiB null guard, MMIO, RAM, the DTB at 0x40000000);
//   - page tables built with arm64.PageTable (pages, blocks, an alias at 64 GiB) work once
//     loaded, and Unmap with FlushPage removes the alias;
//   - BRK from the kernel (EL1h) reaches trap with the EL1h kind and returns;
//   - a kernel stack overflow faults in morestack (the stand-in g has no m) and the stub moves
//     to the fault stack; trap then resumes the boot on a fresh boot stack;
//   - SVC #0 from a thread in EL1t reaches trap with ESR class 0x15, a Frame holding the
//     thread's registers, SP_EL0 and FP state, and the thread sees its registers (and the
//     result) after ERET;
//   - a data abort from the thread (a load from address 8) has ESR class 0x25 and FAR 8;
//   - the virtual timer (INTID 27) and the physical timer (INTID 30) interrupt the thread
//     through the GIC (v2, or v3 with gic-version=3), with a nested BRK inside the first
//     handler checking the CurrentFrame chain;
//   - the PL031 gives a plausible time;
//   - with -smp N, CPU 0 starts CPUs 1..N-1 with arm64.StartCPU (PSCI CPU_ON, the CPUs and the
//     conduit read from the device tree with boot/fdt); each reports itself at EL1 with the MMU
//     on, brings up its side of the GIC, takes its own virtual timer interrupt on its own trap
//     stack from its idle thread, and answers an SGI CPU 0 sends with arm64.SendIPI.
//
// It then exits with status 7 through semihosting. The Go test in this directory builds it and
// boots it; main.main never runs (the Go runtime is never started).
package main
