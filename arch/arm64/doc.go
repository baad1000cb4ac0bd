// Package arm64 is the hardware layer of unitrace on AArch64 (QEMU -M virt): the boot entry at
// EL1 (dropping from EL2 when entered there) with the MMU on before any Go code runs, the
// VBAR_EL1 vector table and the exception frame its stubs build, the per-CPU area in TPIDR_EL1,
// the VMSAv8-64 descriptor format (walked by arch/pagetable), the generic timer, the GICv2 and
// GICv3 interrupt controllers, the PL011 console, the PL031 clock and the semihosting exit.
//
// Secondary CPUs (up to MaxCPUs) are started with PSCI CPU_ON (StartCPU, smp_arm64.go): each
// gets its own per-CPU area and kernel stacks (kstackslots.go), enters at secondaryEntry, turns its
// MMU on with the boot CPU's page tables and calls the kernel's secondary entry point; it then
// brings up its own side of the GIC (InitGICCPU) and can be interrupted with SendIPI.
//
// Go threads run in EL1t (on SP_EL0); every exception is taken on SP_EL1, the per-CPU kernel
// stack, which is the arm64 analogue of amd64's IST stacks. The exception vectors taken from
// EL1t mean "trap from a thread"; those taken from EL1h mean "the kernel itself trapped".
//
// It knows hardware and nothing of Linux system calls. The portable kernel
// (github.com/unitrace/unitrace/kernel) calls it through ordinary Go functions; the entry stubs call
// the kernel through the table of entry points the kernel publishes (see entry_arm64.h).
//
// Code here that runs in trap context follows the kernel-mode rules: pointer-free, allocation-free,
// interrupts masked, on a kernel stack whose stand-in g (percpu.go) makes Go code safe to run.
package arm64
