package machine

import (
	"github.com/unitrace/unitrace/arch/arm64"
	"github.com/unitrace/unitrace/probe"
)

// The dynamic probes' view of a trap frame (kernel/dprobe), on arm64.

// ProbeArch is the instruction set the probes patch.
const ProbeArch = probe.ARM64

// breakpointImm is the probes' BRK immediate: the ESR's ISS carries it, so the kernel tells its
// probes' breakpoints from any other BRK (Go's own are BRK #0).
const breakpointImm = 0x4b5

// brk is BRK #breakpointImm (Arm ARM C6.2: 0xd4200000 | imm16<<5).
const brk = 0xd4200000 | breakpointImm<<5

// Breakpoint is the instruction a probe writes over a site: brk, little-endian.
var Breakpoint = [...]byte{brk & 0xff, brk >> 8 & 0xff, brk >> 16 & 0xff, brk >> 24}

// IsBreakpoint reports whether f is a probe's breakpoint: a BRK with the probes' immediate.
func IsBreakpoint(f *Frame) bool {
	return (f.Kind == arm64.KindSyncEL1t || f.Kind == arm64.KindSyncEL1h) && arm64.ESRClass(f.ESR) == arm64.ECBRK64 &&
		f.ESR&0xffff == breakpointImm
}

// BreakpointPC is the address of the breakpoint f trapped on: a BRK's exception returns to it.
func BreakpointPC(f *Frame) uintptr { return uintptr(f.ELR) }

// SetFramePC makes f resume at pc.
func SetFramePC(f *Frame, pc uintptr) { f.ELR = uint64(pc) }

// ProbeRegs copies f's general registers, sp and pc into r.
func ProbeRegs(f *Frame, r *probe.Regs) {
	copy(r.R[:31], f.X[:])
	r.R[31] = 0
	r.SP, r.PC = f.SavedSP, f.ELR
}

// SetProbeRegs stores r back into f: the general registers, sp and pc.
func SetProbeRegs(f *Frame, r *probe.Regs) {
	copy(f.X[:], r.R[:31])
	f.SavedSP, f.ELR = r.SP, r.PC
}

// ProbeIntRegs and ProbeFloatRegs are how many integer and float registers carry a Go
// function's arguments and results (package probe's, by the ABI).
const (
	ProbeIntRegs   = probe.ARM64IntRegs
	ProbeFloatRegs = probe.ARM64FloatRegs
)

// ProbeArgRegs stores f's argument (or result) registers in dst in ABI order: the integer ones,
// then the low 64 bits of the float ones. It returns how many of each.
func ProbeArgRegs(f *Frame, dst *[ProbeIntRegs + ProbeFloatRegs]uint64) (nint, nfloat int) {
	copy(dst[:ProbeIntRegs], f.X[:ProbeIntRegs])
	for i := 0; i < ProbeFloatRegs; i++ {
		dst[ProbeIntRegs+i] = f.Q[2*i]
	}
	return ProbeIntRegs, ProbeFloatRegs
}
