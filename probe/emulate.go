package probe

// Regs is the part of a trapped context an emulated instruction reads and writes: the general
// registers in the architecture's numbering, the stack pointer and the pc (the instruction's
// own address on entry to Emulate).
type Regs struct {
	R  [NumRegs]uint64
	SP uint64
	PC uint64
}

// Get returns register r's value.
//
//go:nosplit
func (g *Regs) Get(r uint8) uint64 {
	switch {
	case r < NumRegs:
		return g.R[r]
	case r == RegSP:
		return g.SP
	}
	return 0
}

// Set stores v in register r (a write to RegZero vanishes).
//
//go:nosplit
func (g *Regs) Set(r uint8, v uint64) {
	switch {
	case r < NumRegs:
		g.R[r] = v
	case r == RegSP:
		g.SP = v
	}
}

// Emulate runs in on g as the CPU would have, and reports whether it could: an amd64 RET needs
// the return address, which load reads from the stack (false: the word is not readable, and g is
// unchanged). load is a plain function, not a closure, so that the kernel's trap path passes one
// without allocating.
//
//go:nosplit
func Emulate(arch Arch, in Insn, g *Regs, load func(addr uint64) (uint64, bool)) bool {
	switch in.Op {
	case OpMove:
		g.Set(in.Dst, g.Get(in.Src))
	case OpAddImm:
		g.Set(in.Dst, g.Get(in.Src)+uint64(in.Imm))
	case OpMovImm:
		g.Set(in.Dst, uint64(in.Imm))
	case OpRet:
		if arch == ARM64 {
			g.PC = g.Get(in.Src)
			return true
		}
		ra, ok := load(g.SP)
		if !ok {
			return false
		}
		g.PC, g.SP = ra, g.SP+8
		return true
	default:
		return false
	}
	g.PC += uint64(in.Len)
	return true
}
