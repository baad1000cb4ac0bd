package probe

// Arch is the instruction set a site's code is in.
type Arch uint8

const (
	AMD64 Arch = 1
	ARM64 Arch = 2
)

// Op is what an emulated instruction does.
type Op uint8

const (
	OpNone   Op = iota
	OpMove      // Dst = Src
	OpAddImm    // Dst = Src + Imm (no flags)
	OpMovImm    // Dst = Imm
	OpRet       // pc = Src (arm64), or pc = [SP], SP += 8 (amd64)
)

// Register numbers of an Insn: the architecture's own (amd64's encoding order, AX=0 ... R15=15;
// arm64's X0 ... X30), and two that both architectures name.
const (
	RegSP   = 32 // the stack pointer
	RegZero = 33 // arm64's XZR: reads 0, writes vanish
	NumRegs = 32 // general registers a Regs holds
)

// Insn is one decoded instruction the kernel can emulate.
type Insn struct {
	Op       Op
	Len      uint8 // bytes
	Dst, Src uint8 // register numbers (above)
	Imm      int64
}

// MaxInsnLen bounds an emulated instruction's bytes (amd64's REX.W MOV is 3; arm64's are 4).
const MaxInsnLen = 4

// Decode decodes the instruction at the start of code, which is in arch's instruction set, and
// reports whether it is one the kernel emulates. Anything else, including a prefix or encoding
// the set does not name, is refused: an instruction is emulated only when every bit of it is
// understood.
//
//go:nosplit
func Decode(arch Arch, code []byte) (Insn, bool) {
	switch arch {
	case AMD64:
		return decodeAMD64(code)
	case ARM64:
		return decodeARM64(code)
	}
	return Insn{}, false
}

// decodeAMD64 knows RET (C3) and the register-to-register 64-bit MOV in both directions
// (REX.W 89 /r and REX.W 8B /r with ModRM.mod = 3; Intel SDM vol. 2B, MOV).
//
//go:nosplit
func decodeAMD64(code []byte) (Insn, bool) {
	if len(code) == 0 {
		return Insn{}, false
	}
	if code[0] == 0xc3 {
		return Insn{Op: OpRet, Len: 1, Src: RegSP}, true
	}
	// REX = 0100WRXB: W must be set (64-bit operands), X unused with mod = 3.
	if len(code) < 3 || code[0]&0xf8 != 0x48 || code[0]&0x02 != 0 || code[2]>>6 != 3 {
		return Insn{}, false
	}
	rexR, rexB := code[0]>>2&1, code[0]&1
	reg := code[2]>>3&7 | rexR<<3
	rm := code[2]&7 | rexB<<3
	switch code[1] {
	case 0x89: // MOV r/m64, r64
		return Insn{Op: OpMove, Len: 3, Dst: amd64Reg(rm), Src: amd64Reg(reg)}, true
	case 0x8b: // MOV r64, r/m64
		return Insn{Op: OpMove, Len: 3, Dst: amd64Reg(reg), Src: amd64Reg(rm)}, true
	}
	return Insn{}, false
}

// amd64Reg names register r (0-15) of an amd64 encoding; 4 is RSP.
//
//go:nosplit
func amd64Reg(r uint8) uint8 {
	if r == 4 {
		return RegSP
	}
	return r
}

// arm64 encodings (Arm ARM, C4.1: data processing - immediate; branches; C6.2: RET, ORR).
const (
	arm64RetMask    = 0xfffffc1f
	arm64Ret        = 0xd65f0000 // RET Xn
	arm64AddSubMask = 0xff800000 // sf, op, S, the class bits and sh's neighbour
	arm64AddImm     = 0x91000000 // ADD Xd|SP, Xn|SP, #imm12{, LSL #12}
	arm64SubImm     = 0xd1000000 // SUB Xd|SP, Xn|SP, #imm12{, LSL #12}
	arm64MovzMask   = 0xff800000
	arm64Movz       = 0xd2800000 // MOVZ Xd, #imm16, LSL #(hw*16)
	arm64MovMask    = 0xffe0ffe0
	arm64Mov        = 0xaa0003e0 // ORR Xd, XZR, Xm (MOV Xd, Xm)
)

// decodeARM64 knows RET Xn, ADD and SUB of an immediate (64-bit, flags untouched), MOVZ
// (64-bit) and MOV between general registers.
//
//go:nosplit
func decodeARM64(code []byte) (Insn, bool) {
	if len(code) < 4 {
		return Insn{}, false
	}
	w := uint32(code[0]) | uint32(code[1])<<8 | uint32(code[2])<<16 | uint32(code[3])<<24
	rd, rn := uint8(w&31), uint8(w>>5&31)
	switch {
	case w&arm64RetMask == arm64Ret:
		return Insn{Op: OpRet, Len: 4, Src: rn}, true // Rn 31 is XZR here: a jump to 0, as the CPU would
	case w&arm64AddSubMask == arm64AddImm, w&arm64AddSubMask == arm64SubImm:
		imm := int64(w >> 10 & 0xfff)
		if w>>22&1 != 0 {
			imm <<= 12
		}
		if w&arm64AddSubMask == arm64SubImm {
			imm = -imm
		}
		return Insn{Op: OpAddImm, Len: 4, Dst: arm64SPReg(rd), Src: arm64SPReg(rn), Imm: imm}, true
	case w&arm64MovzMask == arm64Movz:
		return Insn{Op: OpMovImm, Len: 4, Dst: arm64ZeroReg(rd), Imm: int64(w>>5&0xffff) << (16 * (w >> 21 & 3))}, true
	case w&arm64MovMask == arm64Mov:
		return Insn{Op: OpMove, Len: 4, Dst: arm64ZeroReg(rd), Src: arm64ZeroReg(uint8(w >> 16 & 31))}, true
	}
	return Insn{}, false
}

// arm64SPReg names register r of an encoding where 31 is SP; arm64ZeroReg, where it is XZR.
//
//go:nosplit
func arm64SPReg(r uint8) uint8 {
	if r == 31 {
		return RegSP
	}
	return r
}

//go:nosplit
func arm64ZeroReg(r uint8) uint8 {
	if r == 31 {
		return RegZero
	}
	return r
}
