package machine

import (
	"github.com/unitrace/unitrace/arch/amd64"
	"github.com/unitrace/unitrace/probe"
)

// The dynamic probes' view of a trap frame (kernel/dprobe), on amd64.

// ProbeArch is the instruction set the probes patch.
const ProbeArch = probe.AMD64

// Breakpoint is the instruction a probe writes over a site's first byte: INT3 (CC).
var Breakpoint = [...]byte{0xcc}

// IsBreakpoint reports whether f is a breakpoint's trap (#BP).
func IsBreakpoint(f *Frame) bool { return f.Vector == amd64.VectorBreakpoint }

// BreakpointPC is the address of the breakpoint f trapped on: INT3 is a trap, and the frame's
// pc is the byte after it.
func BreakpointPC(f *Frame) uintptr { return uintptr(f.RIP) - 1 }

// SetFramePC makes f resume at pc.
func SetFramePC(f *Frame, pc uintptr) { f.RIP = uint64(pc) }

// ProbeRegs copies f's general registers, sp and pc into r, in the encoding's numbering.
func ProbeRegs(f *Frame, r *probe.Regs) {
	r.R = [probe.NumRegs]uint64{f.RAX, f.RCX, f.RDX, f.RBX, f.RSP, f.RBP, f.RSI, f.RDI,
		f.R8, f.R9, f.R10, f.R11, f.R12, f.R13, f.R14, f.R15}
	r.SP, r.PC = f.RSP, f.RIP
}

// SetProbeRegs stores r back into f: the registers an emulated instruction may write, sp and pc.
func SetProbeRegs(f *Frame, r *probe.Regs) {
	f.RAX, f.RCX, f.RDX, f.RBX, f.RBP, f.RSI, f.RDI = r.R[0], r.R[1], r.R[2], r.R[3], r.R[5], r.R[6], r.R[7]
	f.R8, f.R9, f.R10, f.R11, f.R12, f.R13, f.R14, f.R15 = r.R[8], r.R[9], r.R[10], r.R[11], r.R[12], r.R[13], r.R[14], r.R[15]
	f.RSP, f.RIP = r.SP, r.PC
}

// ProbeIntRegs and ProbeFloatRegs are how many integer and float registers carry a Go
// function's arguments and results (package probe's, by the ABI).
const (
	ProbeIntRegs   = probe.AMD64IntRegs
	ProbeFloatRegs = probe.AMD64FloatRegs
)

// fxXMM0 is where the FXSAVE64 image keeps XMM0 (SDM vol. 1 §10.5.1, table 10-2); each XMM
// register takes 16 bytes.
const fxXMM0 = 160

// ProbeArgRegs stores f's argument (or result) registers in dst in ABI order: the integer ones,
// then the low 64 bits of the float ones. It returns how many of each.
func ProbeArgRegs(f *Frame, dst *[ProbeIntRegs + ProbeFloatRegs]uint64) (nint, nfloat int) {
	dst[0], dst[1], dst[2], dst[3], dst[4] = f.RAX, f.RBX, f.RCX, f.RDI, f.RSI
	dst[5], dst[6], dst[7], dst[8] = f.R8, f.R9, f.R10, f.R11
	for i := 0; i < ProbeFloatRegs; i++ {
		o := fxXMM0 + 16*i
		var v uint64
		for b := 7; b >= 0; b-- {
			v = v<<8 | uint64(f.FX[o+b])
		}
		dst[ProbeIntRegs+i] = v
	}
	return ProbeIntRegs, ProbeFloatRegs
}
