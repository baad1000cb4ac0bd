package probes

import (
	"fmt"

	"golang.org/x/arch/arm64/arm64asm"
	"golang.org/x/arch/x86/x86asm"

	"github.com/unitrace/unitrace/probe"
)

// class is what the resolver needs to know of an instruction.
type class uint8

const (
	classOther      class = iota
	classRet              // a return
	classCondBranch       // a conditional branch to target
	classCall             // a direct call of target
	classFrameStore       // a store that builds the frame: amd64 PUSHQ, arm64 STR/STUR/STP based on SP
	classJump             // an unconditional jump
)

// inst is one disassembled instruction.
type inst struct {
	pc     uint64
	len    int
	class  class
	target uint64 // a branch's or call's destination
	text   string // Go assembler syntax, for messages
}

// decode disassembles the instruction at pc, whose bytes start code.
func (im *Image) decode(pc uint64, code []byte) (inst, error) {
	switch im.Arch {
	case probe.AMD64:
		return decodeAMD64(pc, code)
	case probe.ARM64:
		return decodeARM64(pc, code)
	}
	return inst{}, fmt.Errorf("unknown architecture %d", im.Arch)
}

func decodeAMD64(pc uint64, code []byte) (inst, error) {
	x, err := x86asm.Decode(code, 64)
	if err != nil {
		return inst{}, fmt.Errorf("%#x: %w", pc, err)
	}
	in := inst{pc: pc, len: x.Len, text: x86asm.GoSyntax(x, pc, nil)}
	rel := func() uint64 {
		if r, ok := x.Args[0].(x86asm.Rel); ok {
			return pc + uint64(x.Len) + uint64(int64(r))
		}
		return 0
	}
	switch x.Op {
	case x86asm.RET:
		in.class = classRet
	case x86asm.CALL:
		if in.target = rel(); in.target != 0 {
			in.class = classCall
		}
	case x86asm.JA, x86asm.JAE, x86asm.JB, x86asm.JBE, x86asm.JE, x86asm.JNE, x86asm.JG, x86asm.JGE,
		x86asm.JL, x86asm.JLE, x86asm.JO, x86asm.JNO, x86asm.JS, x86asm.JNS, x86asm.JP, x86asm.JNP:
		if in.target = rel(); in.target != 0 {
			in.class = classCondBranch
		}
	case x86asm.PUSH:
		in.class = classFrameStore
	case x86asm.JMP:
		in.class = classJump
	}
	return in, nil
}

func decodeARM64(pc uint64, code []byte) (inst, error) {
	if len(code) < 4 {
		return inst{}, fmt.Errorf("%#x: truncated instruction", pc)
	}
	x, err := arm64asm.Decode(code)
	if err != nil {
		// Every arm64 instruction is 4 bytes: one the disassembler does not know (a newer
		// extension's, or the UNDEF padding) is skipped without losing the ones after it.
		return inst{pc: pc, len: 4, text: fmt.Sprintf("WORD $%#08x", uint32(code[0])|uint32(code[1])<<8|uint32(code[2])<<16|uint32(code[3])<<24)}, nil
	}
	in := inst{pc: pc, len: 4, text: arm64asm.GoSyntax(x, pc, nil, nil)}
	switch x.Op {
	case arm64asm.RET:
		in.class = classRet
	case arm64asm.BL:
		if r, ok := x.Args[0].(arm64asm.PCRel); ok {
			in.class, in.target = classCall, pc+uint64(int64(r))
		}
	case arm64asm.B:
		if _, ok := x.Args[0].(arm64asm.PCRel); ok {
			in.class = classJump
		}
		if _, ok := x.Args[0].(arm64asm.Cond); ok {
			if r, ok := x.Args[1].(arm64asm.PCRel); ok {
				in.class, in.target = classCondBranch, pc+uint64(int64(r))
			}
		}
	case arm64asm.STR, arm64asm.STUR, arm64asm.STP:
		for _, a := range x.Args {
			if m, ok := a.(arm64asm.MemImmediate); ok && m.Base == arm64asm.RegSP(arm64asm.SP) {
				in.class = classFrameStore
			}
		}
	}
	return in, nil
}
