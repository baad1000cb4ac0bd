//go:build amd64

// Command amd64smoke is a standalone SMP smoke test for arch/amd64 and boot/acpi: an image
// that does not link the kernel, whose own bootMain, trap and secondary (reached through the
// entry table in entry_amd64.s, which stands in for the kernel's) boot QEMU -M microvm or q35
// with several CPUs and report on COM1:
//
//   - the boot CPU parses the PVH start_info, checks that the memory map marks the AP
//     trampoline page as RAM, and finds the CPUs in the ACPI MADT (boot/acpi);
//   - it starts every other usable CPU with amd64.StartAP (INIT-SIPI-SIPI, the real-mode
//     trampoline, its own GDT/TSS/IST stacks and per-CPU area);
//   - each AP prints "cpu N online, APIC ID x", enables its local APIC, arms its timer and takes
//     one timer interrupt (on its own IST stack, through the shared IDT);
//   - the boot CPU then sends each AP an IPI, which the AP answers from its trap handler;
//   - the boot CPU exits through isa-debug-exit with value 3 (QEMU status 7).
//
// With "acpidump" on the kernel command line it also prints the RSDP, the root table and the
// MADT as hex lines ("acpi <address> <hex>"), which boot/acpi's testdata was captured from.
// main.main never runs (the Go runtime is never started).
package main
