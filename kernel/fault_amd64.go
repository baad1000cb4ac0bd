package kernel

import (
	"github.com/unitrace/unitrace/arch/amd64"
	"github.com/unitrace/unitrace/kernel/klog"
	"github.com/unitrace/unitrace/kernel/machine"
)

// The amd64 half of the kernel fault report: the trap's own words and the registers.

// printTrap prints the vector, the error code and the fault address of f.
func printTrap(f *machine.Frame) {
	klog.Log().S("vector ").U(f.Vector).S(" (").S(vectorName(f.Vector)).S(") error ").X(f.ErrorCode).S(" cr2 ").X(f.CR2).NL()
}

func dumpRegs(f *machine.Frame) {
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
	l := klog.Log()
	for i, p := range pairs {
		if i > 0 && i%4 == 0 {
			l.NL()
			l = klog.Log()
		}
		l.S(p.name).S("=").X16(p.v).S(" ")
	}
	l.NL()
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
