// Package amd64 is the hardware layer of unitrace on x86-64: the PVH boot entry, descriptor
// tables, the exception frame and its entry stubs, the per-CPU area, port I/O and MSRs, the 16550
// console, the local APIC and PIT timers, the CMOS clock and the exit device, and the start of
// application processors (StartAP: INIT-SIPI-SIPI through a real-mode trampoline, per-CPU
// areas, descriptor tables and stacks) with IPIs between CPUs (SendIPI).
//
// It knows hardware and nothing of Linux system calls. The portable kernel
// (github.com/unitrace/unitrace/kernel) calls it through ordinary Go functions; the entry stubs call
// the kernel through the table of entry points the kernel publishes (see entry_amd64.s).
//
// Code here that runs in trap context follows the kernel-mode rules: pointer-free, allocation-free,
// interrupts masked, on the per-CPU kernel stack.
package amd64
