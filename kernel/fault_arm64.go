package kernel

import (
	"github.com/unitrace/unitrace/arch/arm64"
	"github.com/unitrace/unitrace/kernel/machine"
)

// The arm64 half of the kernel fault report: the exception's own words and the registers.

var kindNames = [...]string{"sync from a thread", "IRQ from a thread", "FIQ from a thread",
	"SError from a thread", "sync in the kernel", "IRQ in the kernel", "FIQ in the kernel",
	"SError in the kernel"}

// printTrap prints the kind of exception, its syndrome and the fault address.
func printTrap(f *machine.Frame) {
	kind := "from a lower exception level"
	if f.Kind < uint64(len(kindNames)) {
		kind = kindNames[f.Kind]
	}
	klog().s("exception ").s(kind).s(": esr ").x(f.ESR).s(" (class ").x(uint64(arm64.ESRClass(f.ESR))).
		s(") far ").x(f.FAR).nl()
}

// framePCSPFP returns the trapped context's pc, stack pointer and frame pointer.
func framePCSPFP(f *machine.Frame) (pc, sp, fp uintptr) { return f.PC(), f.SP(), f.FP() }

// dumpRegs prints the general registers, four to a line.
func dumpRegs(f *machine.Frame) {
	l := klog()
	for i := 0; i < 31; i++ {
		if i%4 == 0 && i > 0 {
			l.nl()
			l = klog()
		}
		l.s(" x").d(int64(i)).s(" ").x(f.X[i])
	}
	l.nl()
	klog().s(" sp ").x(f.SavedSP).s(" pc ").x(f.ELR).s(" spsr ").x(f.SPSR).nl()
}

// frameInterruptsMasked reports whether the trapped context ran with interrupts masked (PSTATE.I).
func frameInterruptsMasked(f *machine.Frame) bool { return f.SPSR&arm64.SPSRI != 0 }
