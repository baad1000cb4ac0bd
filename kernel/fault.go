package kernel

import (
	"github.com/unitrace/unitrace/arch/amd64"
	"github.com/unitrace/unitrace/kernel/symtab"
	"github.com/unitrace/unitrace/trace"
	"github.com/unitrace/unitrace/trace/record"
	"github.com/unitrace/unitrace/trace/wire"
)

// kernelFault reports a fault the kernel cannot hand to the program (a fault in the kernel
// itself, a double fault, an exception in the idle thread) and stops the machine: vector, error
// code, fault address, all registers, and a backtrace from the exception frame's pc followed by
// its frame-pointer chain, every step validated. It never returns.
func kernelFault(f *Frame, why string) {
	if inFaultReport {
		// The report itself faulted: say where, and stop without trying again.
		klog().s("kernel fault while reporting a kernel fault: rip ").x(f.RIP).s(" cr2 ").x(f.CR2).nl()
		klog().s("kernel fault, halting").nl()
		amd64.Exit(amd64.FaultExitValue)
	}
	inFaultReport = true
	klog().s("kernel fault: ").s(why).nl()
	klog().s("vector ").u(f.Vector).s(" (").s(vectorName(f.Vector)).s(") error ").x(f.ErrorCode).s(" cr2 ").x(f.CR2).nl()
	dumpRegs(f)
	klog().s("backtrace (exception pc, then the frame-pointer chain):").nl()
	syms, haveSyms := kernelSymtab()
	printFrame(&syms, haveSyms, uintptr(f.RIP), false)
	var pcs [trace.MaxDepth]uint64
	n, how := 0, record.Flags(0)
	if lo, hi, ok := amd64.KernelStackBounds(uintptr(f.RSP)); ok {
		tlo, thi := amd64.TextRange()
		w := trace.Walk{StackLo: lo, StackHi: hi, TextLo: tlo, TextHi: thi}
		n, how = w.PCs(uintptr(f.RBP), pcs[:])
	} else {
		klog().s("  (rsp is on no kernel stack: no frame-pointer walk)").nl()
	}
	for i := 0; i < n; i++ {
		printFrame(&syms, haveSyms, uintptr(pcs[i]), true)
	}
	switch {
	case how&record.WalkStop != 0:
		klog().s("  (walk stopped at a frame that failed a check)").nl()
	case how&record.StackTrunc != 0:
		klog().s("  (deeper frames not shown)").nl()
	}
	traceFinish(wire.EndPanic, 0) // the trace up to the fault is the best evidence there is
	klog().s("kernel fault, halting").nl()
	amd64.Exit(amd64.FaultExitValue)
}

// inFaultReport is set while a fault report is being printed.
var inFaultReport bool

// kernelSymtab reads the image's own pclntab.
func kernelSymtab() (symtab.Table, bool) {
	start, end := amd64.Pclntab()
	text, _ := amd64.TextRange()
	if end <= start {
		return symtab.Table{}, false
	}
	return symtab.New(bytesAt(start, end-start), text)
}

// printFrame prints one backtrace entry, "pc function+offset file:line", with the functions
// inlined at pc before it. A return address is looked up at pc-1: the call, not what follows.
func printFrame(syms *symtab.Table, ok bool, pc uintptr, isReturn bool) {
	look := pc
	if isReturn {
		look--
	}
	if !ok {
		klog().s("  ").x(uint64(pc)).nl()
		return
	}
	for depth := 0; depth < 16; depth++ {
		fr, found := syms.InlinedAt(look, depth)
		if !found {
			if depth == 0 {
				klog().s("  ").x(uint64(pc)).s(" ?").nl()
			}
			return
		}
		l := klog().s("  ").x(uint64(pc)).s(" ").bs(fr.Name)
		if !fr.Inlined {
			l.s("+").x(uint64(pc - fr.Entry))
		} else {
			l.s(" (inlined)")
		}
		l.s(" ").bs(fr.File).s(":").d(int64(fr.Line)).nl()
		if !fr.Inlined {
			return
		}
	}
}

// panicBoot stops a boot that cannot continue.
func panicBoot(why string) {
	klog().s("kernel fault: boot: ").s(why).nl()
	klog().s("kernel fault, halting").nl()
	amd64.Exit(amd64.FaultExitValue)
}

func dumpRegs(f *Frame) {
	pairs := [...]struct {
		name string
		v    uint64
	}{
		{"rip", f.RIP}, {"rsp", f.RSP}, {"rbp", f.RBP}, {"rflags", f.RFLAGS},
		{"rax", f.RAX}, {"rbx", f.RBX}, {"rcx", f.RCX}, {"rdx", f.RDX},
		{"rsi", f.RSI}, {"rdi", f.RDI}, {"r8", f.R8}, {"r9", f.R9},
		{"r10", f.R10}, {"r11", f.R11}, {"r12", f.R12}, {"r13", f.R13},
		{"r14", f.R14}, {"r15", f.R15}, {"cs", f.CS}, {"ss", f.SS}, {"fs.base", f.FSBase},
	}
	l := klog()
	for i, p := range pairs {
		if i > 0 && i%4 == 0 {
			l.nl()
			l = klog()
		}
		l.s(p.name).s("=").x16(p.v).s(" ")
	}
	l.nl()
}

func vectorName(v uint64) string {
	names := [...]string{"divide error", "debug", "NMI", "breakpoint", "overflow", "bound range",
		"invalid opcode", "device not available", "double fault", "coprocessor overrun",
		"invalid TSS", "segment not present", "stack fault", "general protection", "page fault",
		"reserved", "x87 error", "alignment check", "machine check", "SIMD error"}
	switch {
	case v < uint64(len(names)):
		return names[v]
	case v == amd64.VectorSyscall:
		return "system call"
	case v < 32:
		return "reserved exception"
	}
	return "interrupt"
}
