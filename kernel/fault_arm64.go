package kernel

import (
	"github.com/unitrace/unitrace/arch/arm64"
	"github.com/unitrace/unitrace/kernel/klog"
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
	klog.Log().S("exception ").S(kind).S(": esr ").X(f.ESR).S(" (class ").X(uint64(arm64.ESRClass(f.ESR))).
		S(") far ").X(f.FAR).NL()
}

// dumpRegs prints the general registers, four to a line.
func dumpRegs(f *machine.Frame) {
	l := klog.Log()
	for i := 0; i < 31; i++ {
		if i%4 == 0 && i > 0 {
			l.NL()
			l = klog.Log()
		}
		l.S(" x").D(int64(i)).S(" ").X(f.X[i])
	}
	l.NL()
	klog.Log().S(" sp ").X(f.SavedSP).S(" pc ").X(f.ELR).S(" spsr ").X(f.SPSR).NL()
}
