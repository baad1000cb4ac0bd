package amd64

// haltUnlessLen bounds HaltUnless's body (cpu_amd64.s): no NMI returns into the padding after
// it, so the bound need not be exact.
const haltUnlessLen = 16

// SkipHaltAfterNMI is called by the NMI handler with the NMI's frame. An NMI that interrupted
// HaltUnless before its HLT executed (in HaltUnless itself, or on the HLT) came after the
// sleeper's look at its wake-up flag, so it is the wake-up: returning there, the CPU would halt
// and sleep through it. It resumes at the RET after the HLT instead, which returns to
// HaltUnless's caller (neither function has a frame). An NMI taken during the halt returns after
// the HLT already and is left alone.
//
//go:nosplit
func SkipHaltAfterNMI(f *Frame) {
	start, hlt := haltUnlessPC(), haltThenReturnPC()
	if pc := uintptr(f.RIP); pc >= start && pc < start+haltUnlessLen || pc == hlt {
		f.RIP = uint64(hlt + 1) // HLT is one byte: the RET
	}
}
