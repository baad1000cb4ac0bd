package amd64

// ConsoleGSI is COM1's interrupt line at the I/O APIC: ISA IRQ 4 (the IBM PC/AT's assignment,
// which QEMU's isa-serial keeps), on I/O APIC pin 4 because neither q35's nor microvm's MADT
// has an interrupt source override for IRQ 4 (boot/acpi's TestQEMUConsoleIRQ checks the tables
// captured from QEMU).
const ConsoleGSI = 4
