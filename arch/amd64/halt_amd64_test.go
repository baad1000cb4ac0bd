package amd64

import "testing"

// TestSkipHaltAfterNMI: an NMI that returns anywhere in HaltUnless, onto the STI or onto the
// HLT resumes at the RET after the HLT with IF set; one that returns after the HLT, or
// elsewhere, is left alone. (HaltUnless itself cannot run on the host: CLI is privileged.)
func TestSkipHaltAfterNMI(t *testing.T) {
	start, sti := haltUnlessPC(), haltThenReturnPC()
	if b := *(*[3]byte)(ptr(sti)); b != [3]byte{0xfb, 0xf4, 0xc3} {
		t.Fatalf("haltThenReturn starts % x, want STI; HLT; RET (fb f4 c3)", b[:])
	}
	if b := *(*byte)(ptr(start)); b != 0xfa {
		t.Fatalf("HaltUnless starts with %#x, want CLI (fa)", b)
	}
	if b := *(*byte)(ptr(start + haltUnlessLen - 5)); b != 0xe9 {
		t.Fatalf("HaltUnless's tail jump (e9 rel32) does not end at +%d: %#x there", haltUnlessLen, b)
	}
	for _, pc := range []uintptr{start, start + 1, start + 6, start + 9, sti, sti + 1} {
		f := Frame{RIP: uint64(pc)}
		SkipHaltAfterNMI(&f)
		if f.RIP != uint64(sti+2) || f.RFLAGS&FlagIF == 0 {
			t.Errorf("NMI returning to %#x: resumes at %#x (flags %#x), want the RET at %#x with IF", pc, f.RIP, f.RFLAGS, sti+2)
		}
	}
	for _, pc := range []uintptr{sti + 2, start + haltUnlessLen, start - 1} {
		f := Frame{RIP: uint64(pc)}
		SkipHaltAfterNMI(&f)
		if f.RIP != uint64(pc) || f.RFLAGS != 0 {
			t.Errorf("NMI returning to %#x: moved to %#x", pc, f.RIP)
		}
	}
}
