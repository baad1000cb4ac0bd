package amd64

import (
	"testing"
)

// TestHaltUnlessWithFlagSet: a wake-up that came before the call returns at once (on the host
// the HLT would fault: it is never reached).
func TestHaltUnlessWithFlagSet(t *testing.T) {
	flag := uint32(1)
	HaltUnless(&flag)
}

// TestSkipHaltAfterNMI: an NMI whose return address is HaltUnless's HLT resumes after it; any
// other return address is left alone.
func TestSkipHaltAfterNMI(t *testing.T) {
	start := haltUnlessPC()
	hlt := uintptr(0)
	for pc := start; pc < start+haltUnlessLen; pc++ {
		if isHLT(pc) {
			hlt = pc
			break
		}
	}
	if hlt == 0 {
		t.Fatalf("no HLT within %d bytes of HaltUnless", haltUnlessLen)
	}
	f := Frame{RIP: uint64(hlt)}
	SkipHaltAfterNMI(&f)
	if f.RIP != uint64(hlt+1) {
		t.Errorf("NMI on the HLT: resumes at %#x, want %#x", f.RIP, hlt+1)
	}
	for _, pc := range []uintptr{start, hlt + 1, start + haltUnlessLen + 64} {
		f := Frame{RIP: uint64(pc)}
		SkipHaltAfterNMI(&f)
		if f.RIP != uint64(pc) {
			t.Errorf("NMI at %#x: moved to %#x", pc, f.RIP)
		}
	}
}
