// Package acpi reads the few ACPI tables the kernel needs to find its CPUs and interrupt
// controllers: the RSDP (ACPI 1.0 and 2.0+), the RSDT or XSDT it points to, and the MADT
// ("APIC" table) with its local APIC, x2APIC, I/O APIC and local APIC address override entries
// (ACPI 6.5 §5.2.5, §5.2.7, §5.2.8, §5.2.12).
//
// It is kernel-mode Go, run before the Go runtime starts: its types hold only integers and fixed
// arrays, nothing allocates, and no input makes it panic. Tables are read through a
// boot.ReadPhys callback, so a bad pointer in a table is an error, not a fault; every length
// and checksum is checked before a table is believed.
package acpi
