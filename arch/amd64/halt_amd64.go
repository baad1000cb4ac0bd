package amd64

// hltOpcode is HLT's one-byte encoding.
const hltOpcode = 0xf4

// haltUnlessLen bounds HaltUnless's body (see cpu_amd64.s).
const haltUnlessLen = 16

// SkipHaltAfterNMI is called by the NMI handler with the NMI's frame. If the NMI was taken on
// HaltUnless's HLT before the CPU executed it (the waker's flag was read as zero just before),
// the CPU would return to the HLT and sleep through the very wake-up the NMI brought; it
// resumes after the HLT instead. An NMI taken during the halt already returns after it.
//
//go:nosplit
func SkipHaltAfterNMI(f *Frame) {
	start := haltUnlessPC()
	if pc := uintptr(f.RIP); pc >= start && pc < start+haltUnlessLen && isHLT(pc) {
		f.RIP++
	}
}

// isHLT reports whether the instruction at pc (kernel text) is HLT. An NMI's return address is
// always an instruction boundary, so the byte is an opcode, never part of an operand.
//
//go:nosplit
func isHLT(pc uintptr) bool { return *(*byte)(ptr(pc)) == hltOpcode }
