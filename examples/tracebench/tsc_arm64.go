package main

import "github.com/unitrace/unitrace/arch/arm64"

// tsc reads the virtual counter (CNTVCT_EL0): the tracer's own tick source on arm64, at
// trace.Boot().TickHz. Its 62.5 MHz under QEMU virt is coarser than a cycle counter, so the
// per-emit figures are averages over many emits.
func tsc() uint64 { return arm64.Ticks() }
