package amd64

import "testing"

// TestHaltUnlessWithFlagSet: a wake-up that came before the call returns at once (on the host
// the HLT would fault: it is never reached).
func TestHaltUnlessWithFlagSet(t *testing.T) {
	flag := uint32(1)
	HaltUnless(&flag)
}

// TestSkipHaltAfterNMI: an NMI that returns anywhere in HaltUnless or onto the HLT resumes at
// the RET after the HLT; one that returns after the HLT, or elsewhere, is left alone.
func TestSkipHaltAfterNMI(t *testing.T) {
	start, hlt := haltUnlessPC(), haltThenReturnPC()
	if b := *(*[2]byte)(ptr(hlt)); b != [2]byte{0xf4, 0xc3} {
		t.Fatalf("haltThenReturn starts % x, want HLT; RET (f4 c3)", b[:])
	}
	for _, pc := range []uintptr{start, start + 5, start + 8, hlt} {
		f := Frame{RIP: uint64(pc)}
		SkipHaltAfterNMI(&f)
		if f.RIP != uint64(hlt+1) {
			t.Errorf("NMI returning to %#x: resumes at %#x, want the RET at %#x", pc, f.RIP, hlt+1)
		}
	}
	for _, pc := range []uintptr{hlt + 1, start + haltUnlessLen, start - 1} {
		f := Frame{RIP: uint64(pc)}
		SkipHaltAfterNMI(&f)
		if f.RIP != uint64(pc) {
			t.Errorf("NMI returning to %#x: moved to %#x", pc, f.RIP)
		}
	}
}
