package pagetable_test

import (
	"testing"

	"github.com/unitrace/unitrace/arch/amd64"
)

// The x86-64 cases: entry values against the SDM, and what only this format does (tables that
// widen for their leaves, the PAT bit of a 2 MiB page, PS in a PML4E).

var amd64Arch = arches[0]

// TestAMD64EntryBits builds tables for three addresses and checks every entry on the path against
// values computed by hand from SDM vol. 3A §4.5 (figure 4-8, tables 4-15 to 4-20).
func TestAMD64EntryBits(t *testing.T) {
	a := newArena(t, 16)
	pt := a.newTable(t, amd64Arch) // root 0x100000

	// va 0x7f12_3456_7000: PML4 index 0xfe (bits 47:39), PDPT 0x48, PD 0x1a2, PT 0x167.
	if !pt.Map(0x7f1234567000, 0xabcde000, amd64.PTEWrite|amd64.PTEUser|amd64.PTENoExec, a.alloc) {
		t.Fatal("Map user page failed")
	}
	// 0x101000 PDPT, 0x102000 PD, 0x103000 PT. Intermediates: Present|Write|User, never NX.
	for _, c := range []struct {
		name string
		pa   uintptr
		want uint64
	}{
		{"PML4E", 0x100000 + 0xfe*8, 0x101000 | 0x7},
		{"PDPTE", 0x101000 + 0x48*8, 0x102000 | 0x7},
		{"PDE", 0x102000 + 0x1a2*8, 0x103000 | 0x7},
		{"amd64.PTE", 0x103000 + 0x167*8, 0x8000_0000_abcd_e007},
	} {
		if got := a.at(c.pa); got != c.want {
			t.Errorf("user page %s = %#x, want %#x", c.name, got, c.want)
		}
	}

	// va 0x4020_1000 (kernel, global, uncached): PML4 0, PDPT 1, PD 1, PT 1. No User anywhere.
	if !pt.Map(0x40201000, 0x40201000, amd64.PTEWrite|amd64.PTEGlobal|amd64.PTECacheDisable, a.alloc) {
		t.Fatal("Map kernel page failed")
	}
	for _, c := range []struct {
		name string
		pa   uintptr
		want uint64
	}{
		{"PML4E", 0x100000, 0x104000 | 0x3},
		{"PDPTE", 0x104000 + 8, 0x105000 | 0x3},
		{"PDE", 0x105000 + 8, 0x106000 | 0x3},
		{"amd64.PTE", 0x106000 + 8, 0x4020_1000 | 0x113},
	} {
		if got := a.at(c.pa); got != c.want {
			t.Errorf("kernel page %s = %#x, want %#x", c.name, got, c.want)
		}
	}

	// va 0xffff_8000_0020_0000 as a 2 MiB page: PML4 0x100, PDPT 0, PD 1; PS set in the PDE.
	if !pt.MapHuge(0xffff800000200000, 0x1_0000_0000, amd64.PTEWrite, a.alloc) {
		t.Fatal("MapHuge failed")
	}
	for _, c := range []struct {
		name string
		pa   uintptr
		want uint64
	}{
		{"PML4E", 0x100000 + 0x100*8, 0x107000 | 0x3},
		{"PDPTE", 0x107000, 0x108000 | 0x3},
		{"PDE", 0x108000 + 8, 0x1_0000_0000 | 0x83},
	} {
		if got := a.at(c.pa); got != c.want {
			t.Errorf("huge page %s = %#x, want %#x", c.name, got, c.want)
		}
	}
	if a.n != 9 {
		t.Errorf("%d frames allocated, want 9 (root and 8 tables)", a.n)
	}

	// A second page in the same 2 MiB needs no new table; a kernel page under the user PML4E
	// leaves its User bit alone.
	if !pt.Map(0x7f1234568000, 0xabcdf000, amd64.PTEWrite, a.alloc) || a.n != 9 {
		t.Errorf("Map in an existing table: %d frames", a.n)
	}
	if got := a.at(0x100000 + 0xfe*8); got != 0x101000|0x7 {
		t.Errorf("PML4E after a kernel map = %#x", got)
	}
}

// TestAMD64TablesWiden: access is the most restrictive of all levels (SDM §4.6), so the entries
// above a leaf gain User and lose NX as the leaf needs.
func TestAMD64TablesWiden(t *testing.T) {
	a := newArena(t, 16)
	pt := a.newTable(t, amd64Arch)
	pt.Map(0xc000000000, 0x5000, amd64.PTEWrite|amd64.PTENoExec, a.alloc)
	if !pt.Protect(0xc000000000, amd64.PTEUser) {
		t.Fatal("Protect failed")
	}
	// User on the leaf widened every entry above it.
	pml4e := a.at(arenaBase + 0x1*8)                       // 0xc000000000 >> 39 = 1
	pdpte := a.at(uintptr(pml4e&0xffff_ffff_f000) + 256*8) // (0xc000000000 >> 30) % 512 = 256
	pde := a.at(uintptr(pdpte & 0xffff_ffff_f000))         // PD index 0
	for i, e := range []uint64{pml4e, pdpte, pde} {
		if e&(amd64.PTEUser|amd64.PTEWrite|amd64.PTEPresent) != 0x7 || e&amd64.PTENoExec != 0 {
			t.Errorf("level %d entry %#x not widened", 3-i, e)
		}
	}
	// An intermediate NX (as another builder might set) is lifted for an executable leaf, by
	// Protect and by Map.
	a.set(arenaBase+8, a.at(arenaBase+8)|amd64.PTENoExec)
	if !pt.Protect(0xc000000000, 0) || a.at(arenaBase+8)&amd64.PTENoExec != 0 {
		t.Errorf("Protect did not lift NX above an executable leaf: %#x", a.at(arenaBase+8))
	}
	a.set(arenaBase+8, a.at(arenaBase+8)|amd64.PTENoExec)
	if !pt.Map(0xc000001000, 0x6000, amd64.PTEWrite|amd64.PTENoExec, a.alloc) || a.at(arenaBase+8)&amd64.PTENoExec == 0 {
		t.Errorf("Map of a no-exec leaf lifted NX: %#x", a.at(arenaBase+8))
	}
	if !pt.Map(0xc000002000, 0x7000, amd64.PTEWrite, a.alloc) || a.at(arenaBase+8)&amd64.PTENoExec != 0 {
		t.Errorf("Map did not lift NX above an executable leaf: %#x", a.at(arenaBase+8))
	}
	// A refused Protect widens nothing.
	a.set(arenaBase+8, a.at(arenaBase+8)|amd64.PTENoExec)
	if pt.Protect(0xc000003000, 0) || a.at(arenaBase+8)&amd64.PTENoExec == 0 {
		t.Errorf("Protect of an unmapped page lifted NX: %#x", a.at(arenaBase+8))
	}
}

// TestAMD64PAT: bit 12 of a 2 MiB page's entry is its PAT bit, not part of its address.
func TestAMD64PAT(t *testing.T) {
	a := newArena(t, 16)
	pt := a.newTable(t, amd64Arch)
	pt.MapHuge(0xffff800000200000, 0x1_0000_0000, amd64.PTEWrite, a.alloc)
	pde := slot(a.down(a.down(arenaBase, 0xffff800000200000, 3), 0xffff800000200000, 2), 0xffff800000200000, 1)
	a.set(pde, a.at(pde)|1<<12)
	if pa, _, ok := pt.Lookup(0xffff800000200010); pa != 0x1_0000_0010 || !ok {
		t.Errorf("Lookup under a 2 MiB page with PAT = %#x, %v", pa, ok)
	}
}

// TestAMD64RootPS: PS is reserved in a PML4E (SDM table 4-15), so an entry with it set maps
// nothing and points to nothing: Lookup (and so Readable) must not follow it.
func TestAMD64RootPS(t *testing.T) {
	a := newArena(t, 16)
	pt := a.newTable(t, amd64Arch)
	pt.Map(0x1000, 0x1000, amd64.PTEWrite, a.alloc)
	a.set(arenaBase, a.at(arenaBase)|amd64.PTEHuge)
	if _, _, ok := pt.Lookup(0x1000); ok {
		t.Error("Lookup through a PML4E with PS set succeeded")
	}
	if pt.Map(0x2000, 0x2000, amd64.PTEWrite, a.alloc) || pt.UnmapRange(0, 1<<39, nil) != 0 {
		t.Error("Map or UnmapRange through a PML4E with PS set")
	}
}
