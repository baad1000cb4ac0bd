package amd64

import "testing"

// TestPageTableFormat checks the entry bits against their positions in SDM vol. 3A tables 4-15
// to 4-20, written out by hand, and the format the walker gets against its own rules.
func TestPageTableFormat(t *testing.T) {
	for _, c := range []struct {
		name string
		got  uint64
		bit  uint
	}{
		{"P", PTEPresent, 0}, {"R/W", PTEWrite, 1}, {"U/S", PTEUser, 2}, {"PWT", PTEWriteThrough, 3},
		{"PCD", PTECacheDisable, 4}, {"A", PTEAccessed, 5}, {"D", PTEDirty, 6}, {"PS", PTEHuge, 7},
		{"G", PTEGlobal, 8}, {"XD", PTENoExec, 63},
	} {
		if c.got != 1<<c.bit {
			t.Errorf("%s = %#x, want bit %d", c.name, c.got, c.bit)
		}
	}
	if pteAddr != 1<<52-1<<12 {
		t.Errorf("address field %#x, want bits 51:12", pteAddr)
	}
	if s := ptFormat.Check(); s != "" {
		t.Errorf("ptFormat: %s", s)
	}
	// Canonical addresses: bits 63:47 all equal.
	if ptFormat.LowEnd != 1<<47 || ptFormat.HighStart != ^uintptr(1<<47-1) {
		t.Errorf("translated ranges [0, %#x) and [%#x, 2^64)", ptFormat.LowEnd, ptFormat.HighStart)
	}
}
