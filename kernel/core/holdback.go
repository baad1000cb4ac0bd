package core

import "github.com/unitrace/unitrace/kernel/machine"

// Interrupts held back from kernel code.
//
// Kernel code handles a thread's trap with interrupts unmasked and, as long as nothing else
// arrives, at the thread's own priority: the way in and out writes neither the task priority
// (amd64 CR8) nor the GIC's priority mask, each of which QEMU serves under its big lock. So the
// sampler's interrupt reaches kernel code at no cost to the system-call path. The first
// interrupt other than the sampler's that arrives in kernel code raises the priority to the
// kernel's (HoldBackInterrupts) and is held back:
//
//   - arm64: it stays pending in the GIC, untouched (the handler looks at it without
//     acknowledging it);
//   - amd64: the CPU has delivered it already, so its handler ends it and has it raised again:
//     a self-IPI for the tick's and the IPI's vectors, the level-triggered line itself for a
//     device's.
//
// A trap that is itself an interrupt (the tick's, an IPI's, a device's) raises the priority on
// entry, on both arches: amd64 because its handler runs on the IRQ gate's IST stack, where a
// nested interrupt would land too; arm64 because, measured, the tick's handler at the thread's
// mask gathered samples where it re-arms the timers. So the lazy path is the system calls' and
// the faults'. With the priority raised only the sampler's interrupt gets through, as if the
// trap had raised it on entry. The trap's exit lowers it again with interrupts masked
// (ReleaseHeldInterrupts), so what was held is taken once the thread runs, exactly where it was
// taken when the kernel raised the priority for every trap: the tick, IPIs and device
// interrupts never run inside kernel code, and the scheduler and the kernel lock need nothing
// new. Linux on powerpc masks interrupts in the same lazy way.

// HoldBackInterrupts raises this CPU's priority to the kernel's until the trap returns: an
// interrupt other than the sampler's arrived in kernel code, or (amd64) the trap runs where one
// would land. Interrupts masked.
//
//go:nosplit
func HoldBackInterrupts() {
	if l := Here(); !l.held {
		l.held = true
		machine.RaisePriority()
	}
}

// ReleaseHeldInterrupts lowers this CPU's priority to the thread's again if it was raised, at
// a trap's exit with interrupts masked: what was held back is taken after the return.
//
//go:nosplit
func ReleaseHeldInterrupts() {
	if l := Here(); l.held {
		l.held = false
		machine.LowerPriority()
	}
}
