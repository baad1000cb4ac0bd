package observe

import (
	"github.com/unitrace/unitrace/kernel/klog"
	"github.com/unitrace/unitrace/kernel/machine"
	"github.com/unitrace/unitrace/symtab"
	"github.com/unitrace/unitrace/trace/record"
	"github.com/unitrace/unitrace/unwind"
)

// PrintKernelBacktrace prints pc, then the frame-pointer chain from fp if sp is on a kernel
// stack, every load checked against that stack's bounds.
func PrintKernelBacktrace(pc, sp, fp uintptr) {
	syms, haveSyms := machine.ImageSymtab()
	printFrame(&syms, haveSyms, pc, false)
	var pcs [unwind.MaxDepth]uint64
	n, how := 0, record.Flags(0)
	if lo, hi, ok := machine.KernelStackBounds(sp); ok {
		tlo, thi := machine.TextRange()
		w := unwind.Walk{StackLo: lo, StackHi: hi, TextLo: tlo, TextHi: thi}
		n, how = w.PCs(fp, pcs[:])
	} else {
		klog.Log().S("  (the stack pointer is on no kernel stack: no frame-pointer walk)").NL()
	}
	for i := 0; i < n; i++ {
		printFrame(&syms, haveSyms, uintptr(pcs[i]), true)
	}
	switch {
	case how&record.WalkStop != 0:
		klog.Log().S("  (walk stopped at a frame that failed a check)").NL()
	case how&record.StackTrunc != 0:
		klog.Log().S("  (deeper frames not shown)").NL()
	}
}

// InFaultReport is set while a fault report is being printed.
var InFaultReport bool

// printFrame prints one backtrace entry, "pc function+offset file:line", with the functions
// inlined at pc before it. A return address is looked up inside the call it follows
// (symtab's CallPC).
func printFrame(syms *symtab.Table, ok bool, pc uintptr, isReturn bool) {
	look := pc
	if isReturn {
		look = syms.CallPC(pc)
	}
	if !ok {
		klog.Log().S("  ").X(uint64(pc)).NL()
		return
	}
	for depth := 0; depth < 16; depth++ {
		fr, found := syms.InlinedAt(look, depth)
		if !found {
			if depth == 0 {
				klog.Log().S("  ").X(uint64(pc)).S(" ?").NL()
			}
			return
		}
		l := klog.Log().S("  ").X(uint64(pc)).S(" ").BS(fr.Name)
		if !fr.Inlined {
			l.S("+").X(uint64(pc - fr.Entry))
		} else {
			l.S(" (inlined)")
		}
		l.S(" ").BS(fr.File).S(":").D(int64(fr.Line)).NL()
		if !fr.Inlined {
			return
		}
	}
}
