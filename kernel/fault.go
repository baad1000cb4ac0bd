package kernel

import (
	"unsafe"

	"github.com/unitrace/unitrace/arch/amd64"
	"github.com/unitrace/unitrace/kernel/symtab"
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
	walkFrames(uintptr(f.RBP), func(pc uintptr) { printFrame(&syms, haveSyms, pc, true) })
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
	return symtab.New(unsafe.Slice((*byte)(ptr(start)), end-start), text)
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

// Frame-pointer walk limits: a frame must lie in the kernel's identity-mapped RAM, above the
// previous one, 8-byte aligned; its return address must be in the image's text.
const maxWalkDepth = 64

// walkFrames follows the frame-pointer chain from fp, calling emit for each return address. It
// validates every load before making it and stops at the first failed check.
func walkFrames(fp uintptr, emit func(pc uintptr)) {
	textLo, textHi := amd64.TextRange()
	prev := uintptr(0)
	for depth := 0; depth < maxWalkDepth; depth++ {
		if fp == 0 || fp&7 != 0 || fp <= prev || !mappedWord(fp) || !mappedWord(fp+8) {
			return
		}
		ret := uintptr(amd64.Word(fp + 8))
		if ret < textLo || ret >= textHi {
			return
		}
		emit(ret)
		prev = fp
		fp = uintptr(amd64.Word(fp))
	}
}

// mappedWord reports whether the 8 bytes at addr are readable kernel or present user memory.
func mappedWord(addr uintptr) bool {
	if addr < nullGuard {
		return false
	}
	if addr+8 <= ramEnd {
		return true
	}
	_, _, ok := archLookup(addr)
	return ok
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
