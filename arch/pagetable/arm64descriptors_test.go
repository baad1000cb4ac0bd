package pagetable_test

import (
	"testing"

	"github.com/unitrace/unitrace/arch/arm64"
)

// The VMSAv8-64 cases: descriptor values against the Arm ARM, and what only this format does
// (reserved encodings, the access flag).

var arm64Arch = arches[1]

// TestARM64DescriptorBits builds tables for three addresses and checks every descriptor on the
// path against values computed by hand from the Arm ARM (D8.3: table descriptors are
// address|0b11, pages address|attributes|AF|0b11, blocks address|attributes|AF|0b01).
func TestARM64DescriptorBits(t *testing.T) {
	a := newArena(t, 16)
	pt := a.newTable(t, arm64Arch) // root 0x100000

	// va 0x7f12_3456_7000: L0 index 0xfe (bits 47:39), L1 0x48, L2 0x1a2, L3 0x167.
	if !pt.Map(0x7f1234567000, 0xabcde000, arm64.PTEKernel|arm64.PTENoExec, a.alloc) {
		t.Fatal("Map failed")
	}
	for _, c := range []struct {
		name string
		pa   uintptr
		want uint64
	}{
		{"L0", 0x100000 + 0xfe*8, 0x101000 | 3},
		{"L1", 0x101000 + 0x48*8, 0x102000 | 3},
		{"L2", 0x102000 + 0x1a2*8, 0x103000 | 3},
		// Normal (AttrIndx 1), inner shareable, AF, PXN|UXN, page.
		{"L3", 0x103000 + 0x167*8, 0x0060_0000_abcd_e707},
	} {
		if got := a.at(c.pa); got != c.want {
			t.Errorf("page %s = %#x, want %#x", c.name, got, c.want)
		}
	}

	// A read-only device page: AttrIndx 0, AP[2], no SH.
	if !pt.Map(0x9000000, 0x9000000, arm64.PTEAttrDevice|arm64.PTEReadOnly, a.alloc) {
		t.Fatal("Map device page failed")
	}
	// L0 0, L1 0, L2 0x48, L3 0: tables 0x104000 (L1), 0x105000 (L2), 0x106000 (L3).
	if got, want := a.at(0x106000), uint64(0x900_0000|0x483); got != want {
		t.Errorf("device page = %#x, want %#x", got, want)
	}

	// A 2 MiB block at 0x4000_0000: L0 0, L1 1, L2 0 (the L1 table exists already).
	if !pt.MapHuge(0x40000000, 0x1_0000_0000, arm64.PTEKernel, a.alloc) {
		t.Fatal("MapHuge failed")
	}
	if got := a.at(0x104000 + 8); got != 0x107000|3 {
		t.Errorf("L1 for the block = %#x", got)
	}
	if got, want := a.at(0x107000), uint64(0x1_0000_0000|0x705); got != want {
		t.Errorf("block = %#x, want %#x", got, want)
	}
	if a.n != 8 {
		t.Errorf("%d frames allocated, want 8 (root and 7 tables)", a.n)
	}
	// A second page in the same 2 MiB needs no new table.
	if !pt.Map(0x7f1234568000, 0xabcdf000, arm64.PTEKernel, a.alloc) || a.n != 8 {
		t.Errorf("Map in an existing table: %d frames", a.n)
	}
}

// TestARM64ReservedEncodings: a block descriptor at level 0 is invalid with a 4 KiB granule, and
// a level-3 descriptor with bit 1 clear is reserved (D8.3.1): neither translates.
func TestARM64ReservedEncodings(t *testing.T) {
	a := newArena(t, 16)
	pt := a.newTable(t, arm64Arch)
	pt.Map(0x10000, 0x10000, arm64.PTEMMIO, a.alloc)
	a.set(arenaBase+5*8, 0x80_0000_0000*5|arm64.PTEValid)
	if _, _, ok := pt.Lookup(0x80_0000_0000 * 5); ok {
		t.Error("a level-0 block translated")
	}
	l3 := a.down(a.down(a.down(arenaBase, 0x11000, 3), 0x11000, 2), 0x11000, 1)
	a.set(slot(l3, 0x11000, 0), 0x11000|arm64.PTEValid)
	if _, _, ok := pt.Lookup(0x11000); ok {
		t.Error("a level-3 entry of block type translated")
	}
	if _, ok := pt.Unmap(0x11000); ok || pt.Protect(0x11000, arm64.PTEKernel) {
		t.Error("Unmap or Protect of a level-3 entry of block type succeeded")
	}
	if pt.Map(0x11000, 0x11000, arm64.PTEKernel, a.alloc) {
		t.Error("Map over a valid level-3 entry of block type succeeded")
	}
}

// TestARM64AccessFlag: Map always sets AF, as nothing here handles access-flag faults.
func TestARM64AccessFlag(t *testing.T) {
	a := newArena(t, 16)
	pt := a.newTable(t, arm64Arch)
	if !pt.Map(0xc000000000, 0x6000, 0, a.alloc) || !pt.MapHuge(0xc000200000, 0x200000, 0, a.alloc) {
		t.Fatal("Map or MapHuge failed")
	}
	for _, va := range []uintptr{0xc000000000, 0xc000200000} {
		if _, flags, _ := pt.Lookup(va); flags&arm64.PTEAccessed == 0 {
			t.Errorf("%#x: mapped without arm64.PTEAccessed, AF clear", va)
		}
	}
	if !pt.Protect(0xc000000000, arm64.PTEReadOnly) {
		t.Fatal("Protect failed")
	}
	if _, flags, _ := pt.Lookup(0xc000000000); flags&arm64.PTEAccessed == 0 {
		t.Error("Protect without arm64.PTEAccessed left AF clear")
	}
}
