package amd64

// haltUnlessLen is the length of HaltUnless (cpu_amd64.s) up to the end of its tail jump to the
// halt: an NMI there is the wake-up. What follows is the woken path (the flag was set), where
// returning is harmless. TestSkipHaltAfterNMI pins it.
const haltUnlessLen = 16

// SkipHaltAfterNMI is called by the NMI handler with the NMI's frame. An NMI that interrupted
// HaltUnless before its HLT executed (in HaltUnless itself, on the STI or on the HLT) came after
// the sleeper's look at its wake-up flag, so it is the wake-up: returning there, the CPU would
// halt and sleep through it. It resumes at the RET after the HLT instead, which returns to
// HaltUnless's caller (neither function has a frame), with IF set as HaltUnless returns. An
// NMI taken during the halt returns after the HLT already and is left alone.
//
//go:nosplit
func SkipHaltAfterNMI(f *Frame) {
	start, sti := haltUnlessPC(), haltThenReturnPC()
	if pc := uintptr(f.RIP); pc >= start && pc < start+haltUnlessLen || pc == sti || pc == sti+1 {
		f.RIP = uint64(sti + 2) // STI and HLT are one byte each: the RET
		f.RFLAGS |= FlagIF
	}
}
