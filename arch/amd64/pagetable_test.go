package amd64

import (
	"math/rand"
	"reflect"
	"syscall"
	"testing"
	"time"
)

// ptArena is fake physical memory for page-table tests: mmap'ed outside the Go heap, seen at
// physical addresses [ptBase, ptBase+size) through directMap, with a bump allocator of zeroed
// frames starting at ptBase (the first frame is the root).
type ptArena struct {
	mem  []byte
	next uintptr // next frame to hand out
	end  uintptr
	n    int // frames handed out
}

const ptBase = 0x100000

func newPTArena(t *testing.T, frames int) *ptArena {
	t.Helper()
	size := frames * ptSize4K
	mem, err := syscall.Mmap(-1, 0, size, syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_ANON|syscall.MAP_PRIVATE)
	if err != nil {
		t.Fatalf("mmap: %v", err)
	}
	old := directMap
	directMap = reflect.ValueOf(mem).Pointer() - ptBase
	t.Cleanup(func() {
		directMap = old
		syscall.Munmap(mem)
	})
	return &ptArena{mem: mem, next: ptBase, end: ptBase + uintptr(size)}
}

func (a *ptArena) alloc() (uintptr, bool) {
	if a.next >= a.end {
		return 0, false
	}
	pa := a.next
	a.next += ptSize4K
	a.n++
	return pa, true
}

// newTable returns an empty page table whose root is the arena's first frame.
func (a *ptArena) newTable(t *testing.T) *PageTable {
	root, ok := a.alloc()
	if !ok {
		t.Fatal("no frame for the root")
	}
	return &PageTable{Root: root}
}

// at reads the entry at physical address pa.
func (a *ptArena) at(pa uintptr) uint64 { return *entryAt(pa, 0) }

func noAlloc() (uintptr, bool) { return 0, false }

// TestPageTableBits builds tables for three addresses and checks every entry on the path against
// values computed by hand from SDM vol. 3A §4.5 (figure 4-8, tables 4-15 to 4-20).
func TestPageTableBits(t *testing.T) {
	a := newPTArena(t, 16)
	pt := a.newTable(t) // root 0x100000

	// va 0x7f12_3456_7000: PML4 index 0xfe (bits 47:39), PDPT 0x48, PD 0x1a2, PT 0x167.
	if !pt.Map(0x7f1234567000, 0xabcde000, PTEWrite|PTEUser|PTENoExec, a.alloc) {
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
		{"PTE", 0x103000 + 0x167*8, 0x8000_0000_abcd_e007},
	} {
		if got := a.at(c.pa); got != c.want {
			t.Errorf("user page %s = %#x, want %#x", c.name, got, c.want)
		}
	}

	// va 0x4020_1000 (kernel, global, uncached): PML4 0, PDPT 1, PD 1, PT 1. No User anywhere.
	if !pt.Map(0x40201000, 0x40201000, PTEWrite|PTEGlobal|PTECacheDisable, a.alloc) {
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
		{"PTE", 0x106000 + 8, 0x4020_1000 | 0x113},
	} {
		if got := a.at(c.pa); got != c.want {
			t.Errorf("kernel page %s = %#x, want %#x", c.name, got, c.want)
		}
	}

	// va 0xffff_8000_0020_0000 as a 2 MiB page: PML4 0x100, PDPT 0, PD 1; PS set in the PDE.
	if !pt.MapHuge(0xffff800000200000, 0x1_0000_0000, PTEWrite, a.alloc) {
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
	if !pt.Map(0x7f1234568000, 0xabcdf000, PTEWrite, a.alloc) || a.n != 9 {
		t.Errorf("Map in an existing table: %d frames", a.n)
	}
	if got := a.at(0x100000 + 0xfe*8); got != 0x101000|0x7 {
		t.Errorf("PML4E after a kernel map = %#x", got)
	}
}

func TestPageTableLookup(t *testing.T) {
	a := newPTArena(t, 16)
	pt := a.newTable(t)
	pt.Map(0x7f1234567000, 0xabcde000, PTEWrite|PTEUser|PTENoExec, a.alloc)
	pt.MapHuge(0xffff800000200000, 0x1_0000_0000, PTEWrite, a.alloc)
	// A 1 GiB page as boot code might build it: PDPTE 3 of the first PDPT.
	pt.Map(0x1000, 0x1000, PTEWrite, a.alloc)
	pdpt := uintptr(a.at(pt.Root) & pteAddr)
	*entryAt(pdpt, 3) = 0x2_4000_0000 | PTEPresent | PTEWrite | PTEHuge
	for _, c := range []struct {
		va    uintptr
		pa    uintptr
		flags uint64
		ok    bool
	}{
		{0x7f1234567000, 0xabcde000, PTEPresent | PTEWrite | PTEUser | PTENoExec, true},
		{0x7f1234567abc, 0xabcdeabc, PTEPresent | PTEWrite | PTEUser | PTENoExec, true},
		{0x7f1234568000, 0, 0, false},                                     // empty PTE
		{0x7f1234800000, 0, 0, false},                                     // empty PDE
		{0xffff800000200000, 0x1_0000_0000, 0x83, true},                   // 2 MiB
		{0xffff8000003fffff, 0x1_001f_ffff, 0x83, true},                   // last byte of it
		{0xffff800000400000, 0, 0, false},                                 // next 2 MiB
		{0xc0000000 + 0x12345678, 0x2_4000_0000 + 0x12345678, 0x83, true}, // 1 GiB
		{0x1234, 0x1234, 0x3, true},
		{0x0000800000000000, 0, 0, false}, // non-canonical
		{0xffff7fffffffffff, 0, 0, false}, // non-canonical
	} {
		pa, flags, ok := pt.Lookup(c.va)
		if pa != c.pa || flags != c.flags || ok != c.ok {
			t.Errorf("Lookup(%#x) = %#x, %#x, %v; want %#x, %#x, %v", c.va, pa, flags, ok, c.pa, c.flags, c.ok)
		}
	}
	// The PAT bit of a 2 MiB entry (bit 12) is not part of its address.
	pd := uintptr(a.at(uintptr(a.at(pt.Root+0x100*8)&pteAddr)) & pteAddr)
	*entryAt(pd, 1) |= 1 << 12
	if pa, _, ok := pt.Lookup(0xffff800000200010); pa != 0x1_0000_0010 || !ok {
		t.Errorf("Lookup under a 2 MiB page with PAT = %#x, %v", pa, ok)
	}
	// Under the 1 GiB page nothing else can be mapped, unmapped or protected.
	if pt.Map(0xc0001000, 0x1000, 0, a.alloc) || pt.MapHuge(0xc0200000, 0x200000, 0, a.alloc) || pt.Protect(0xc0000000, 0) {
		t.Error("Map, MapHuge or Protect under a 1 GiB page succeeded")
	}
	if _, ok := pt.Unmap(0xc0000000); ok {
		t.Error("Unmap under a 1 GiB page succeeded")
	}
}

func TestPageTableRefusals(t *testing.T) {
	a := newPTArena(t, 32)
	pt := a.newTable(t)
	if !pt.MapHuge(0x200000, 0x200000, PTEWrite, a.alloc) || !pt.Map(0x400000, 0x400000, PTEWrite, a.alloc) {
		t.Fatal("setup failed")
	}
	misaligned := func() (uintptr, bool) { return 0x1234, true }
	huge52 := func() (uintptr, bool) { return 1 << 52, true }
	budget := 2
	twoFrames := func() (uintptr, bool) { // enough for the PDPT and PD, not the PT
		if budget == 0 {
			return 0, false
		}
		budget--
		return a.alloc()
	}
	for _, c := range []struct {
		name string
		ok   bool
	}{
		{"non-canonical", pt.Map(0x0000800000000000, 0x1000, 0, a.alloc)},
		{"non-canonical upper", pt.Map(0xfffe000000000000, 0x1000, 0, a.alloc)},
		{"unaligned va", pt.Map(0x1001, 0x1000, 0, a.alloc)},
		{"unaligned pa", pt.Map(0x1000, 0x1001, 0, a.alloc)},
		{"pa beyond 52 bits", pt.Map(0x1000, 1<<52, 0, a.alloc)},
		{"address bits in flags", pt.Map(0x1000, 0x1000, 0x2000, a.alloc)},
		{"huge bit in a 4 KiB map", pt.Map(0x1000, 0x1000, PTEHuge, a.alloc)},
		{"4 KiB under 2 MiB", pt.Map(0x201000, 0x1000, 0, a.alloc)},
		{"already mapped", pt.Map(0x400000, 0x5000, 0, a.alloc)},
		{"huge unaligned va", pt.MapHuge(0x401000, 0x200000, 0, a.alloc)},
		{"huge unaligned pa", pt.MapHuge(0x600000, 0x201000, 0, a.alloc)},
		{"huge over a table", pt.MapHuge(0x400000, 0x400000, 0, a.alloc)},
		{"huge over huge", pt.MapHuge(0x200000, 0x800000, 0, a.alloc)},
		{"alloc fails", pt.Map(0x7000000000, 0x1000, 0, noAlloc)},
		{"alloc misaligned", pt.Map(0x7000000000, 0x1000, 0, misaligned)},
		{"alloc beyond 52 bits", pt.Map(0x7000000000, 0x1000, 0, huge52)},
		{"alloc fails for the PT", pt.Map(0x7f0000000000, 0x1000, 0, twoFrames)},
		{"unaligned root", (&PageTable{Root: ptBase + 8}).Map(0x1000, 0x1000, 0, a.alloc)},
	} {
		if c.ok {
			t.Errorf("%s: succeeded", c.name)
		}
	}
	if pa, flags, ok := pt.Lookup(0x400000); pa != 0x400000 || flags != 3 || !ok {
		t.Errorf("refusals changed the existing page: %#x %#x %v", pa, flags, ok)
	}
	if (&PageTable{Root: ptBase + 8}).UnmapRange(0, 1<<47, nil) != 0 {
		t.Error("UnmapRange on an unaligned root cleared something")
	}
}

func TestPageTableUnmapProtect(t *testing.T) {
	a := newPTArena(t, 16)
	pt := a.newTable(t)
	pt.Map(0xc000000000, 0x5000, PTEWrite|PTENoExec, a.alloc)
	pt.MapHuge(0xc000200000, 0x200000, PTEWrite, a.alloc)

	if !pt.Protect(0xc000000000, PTEUser) {
		t.Fatal("Protect failed")
	}
	if pa, flags, ok := pt.Lookup(0xc000000000); pa != 0x5000 || flags != PTEPresent|PTEUser || !ok {
		t.Errorf("after Protect: %#x %#x %v", pa, flags, ok)
	}
	// User on the leaf widened every entry above it.
	pml4e := a.at(pt.Root + 0x1*8)                // 0xc000000000 >> 39 = 1
	pdpte := a.at(uintptr(pml4e&pteAddr) + 256*8) // (0xc000000000 >> 30) % 512 = 256
	pde := a.at(uintptr(pdpte & pteAddr))         // PD index 0
	for i, e := range []uint64{pml4e, pdpte, pde} {
		if e&(PTEUser|PTEWrite|PTEPresent) != 0x7 || e&PTENoExec != 0 {
			t.Errorf("level %d entry %#x not widened", 3-i, e)
		}
	}
	// An intermediate NX (as another builder might set) is lifted for an executable leaf.
	*entryAt(pt.Root, 1) |= PTENoExec
	if !pt.Protect(0xc000000000, 0) || a.at(pt.Root+8)&PTENoExec != 0 {
		t.Errorf("Protect did not lift NX above an executable leaf: %#x", a.at(pt.Root+8))
	}
	for _, c := range []struct {
		name string
		ok   bool
	}{
		{"Protect unmapped", pt.Protect(0xc000001000, 0)},
		{"Protect huge", pt.Protect(0xc000200000, 0)},
		{"Protect with address bits", pt.Protect(0xc000000000, 0x10000)},
		{"Protect with PTEHuge", pt.Protect(0xc000000000, PTEHuge)},
		{"Protect non-canonical", pt.Protect(0x800000000000, 0)},
	} {
		if c.ok {
			t.Errorf("%s succeeded", c.name)
		}
	}

	if pa, ok := pt.Unmap(0xc000000000); pa != 0x5000 || !ok {
		t.Errorf("Unmap = %#x, %v", pa, ok)
	}
	if _, _, ok := pt.Lookup(0xc000000000); ok {
		t.Error("still mapped after Unmap")
	}
	if _, ok := pt.Unmap(0xc000000000); ok {
		t.Error("second Unmap succeeded")
	}
	if _, ok := pt.Unmap(0xc000200000); ok {
		t.Error("Unmap of a 2 MiB page succeeded")
	}
	if _, ok := pt.Unmap(0xd000000000); ok {
		t.Error("Unmap of an address without tables succeeded")
	}
	if !pt.Map(0xc000000000, 0x6000, 0, a.alloc) {
		t.Error("Map after Unmap failed")
	}
}

// TestPageTableUnmapRange clears sparse pages of a 512 MiB reservation, and the whole address
// space, checking what was freed and what stayed.
func TestPageTableUnmapRange(t *testing.T) {
	a := newPTArena(t, 1024) // 0x100000-0x500000: tables first, then the 2 MiB page at 0x200000
	pt := a.newTable(t)
	const base = 0xc000000000
	// The 2 MiB page's contents look like present entries: a walk that took it for a page table
	// would "free" them.
	for i := uintptr(0); i < ptSize2M/8; i++ {
		*entryAt(0x200000, i) = 0x7000 | PTEPresent
	}
	inside := []uintptr{base, base + 0x1ff000, base + 0x200000, base + 0x10000000, base + 0x1ffff000}
	outside := []uintptr{base - 0x1000, base + 0x20000000, 0x7ffffffff000, 0xffff800000000000, 0xfffffffffffff000}
	for i, va := range append(append([]uintptr{}, inside...), outside...) {
		if !pt.Map(va, uintptr(i+1)*ptSize4K, PTEWrite, a.alloc) {
			t.Fatalf("Map(%#x) failed", va)
		}
	}
	if !pt.MapHuge(base+0x400000, 0x200000, PTEWrite, a.alloc) { // left alone
		t.Fatal("MapHuge failed")
	}
	var freed []uintptr
	free := func(pa uintptr) { freed = append(freed, pa) }
	if n := pt.UnmapRange(base, base+512<<20, free); n != len(inside) {
		t.Errorf("UnmapRange = %d, want %d", n, len(inside))
	}
	if want := []uintptr{0x1000, 0x2000, 0x3000, 0x4000, 0x5000}; !reflect.DeepEqual(freed, want) {
		t.Errorf("freed %#x, want %#x", freed, want)
	}
	for _, va := range inside {
		if _, _, ok := pt.Lookup(va); ok {
			t.Errorf("%#x still mapped", va)
		}
	}
	for _, va := range append(outside, base+0x400000) {
		if _, _, ok := pt.Lookup(va); !ok {
			t.Errorf("%#x was unmapped", va)
		}
	}
	if n := pt.UnmapRange(base, base+512<<20, nil); n != 0 {
		t.Errorf("second UnmapRange = %d", n)
	}
	// Unaligned bounds: only pages that start inside count.
	pt.Map(base, 0x1000, 0, a.alloc)
	pt.Map(base+0x1000, 0x2000, 0, a.alloc)
	if n := pt.UnmapRange(base+1, base+0x1001, nil); n != 1 {
		t.Errorf("UnmapRange(base+1, base+0x1001) = %d, want 1 (the page at base+0x1000)", n)
	}
	// The whole address space, across the non-canonical hole and up to the last page: this must
	// skip missing tables, or it would visit 2^36 pages.
	start := time.Now()
	if n := pt.UnmapRange(0, ^uintptr(0), nil); n != len(outside)+1 {
		t.Errorf("UnmapRange of everything = %d, want %d", n, len(outside)+1)
	}
	if d := time.Since(start); d > time.Second {
		t.Errorf("UnmapRange of everything took %v", d)
	}
	if _, _, ok := pt.Lookup(base + 0x400000); !ok {
		t.Error("the 2 MiB page was unmapped")
	}
	empty := a.newTable(t) // every PML4 entry missing, up to the last one
	if n := empty.UnmapRange(0, ^uintptr(0), nil); n != 0 {
		t.Errorf("UnmapRange of an empty table = %d", n)
	}
	if n := pt.UnmapRange(^uintptr(0)-5, ^uintptr(0), nil); n != 0 {
		t.Errorf("UnmapRange at the top = %d", n)
	}
	if n := pt.UnmapRange(base+0x1000, base, nil); n != 0 {
		t.Errorf("UnmapRange with end < start = %d", n)
	}
}

// TestPageTableModel maps, unmaps and protects random pages around a few table boundaries and
// compares every translation with a map from page to entry.
func TestPageTableModel(t *testing.T) {
	a := newPTArena(t, 512)
	pt := a.newTable(t)
	rng := rand.New(rand.NewSource(3))
	// Pages near the edges of PTs, PDs and PDPTs, in both halves.
	var pages []uintptr
	for _, b := range []uintptr{0x0, 0x1ff000, 0x3fe00000, 0x7fc0000000, 0x7fffffe00000, 0xffff800000000000, 0xffffffffffe00000} {
		for k := uintptr(0); k < 4; k++ {
			pages = append(pages, b+k*ptSize4K)
		}
	}
	type pte struct {
		pa    uintptr
		flags uint64
	}
	model := map[uintptr]pte{}
	flagChoices := []uint64{0, PTEWrite, PTEUser, PTEWrite | PTENoExec, PTEGlobal | PTEWrite, PTECacheDisable}
	for i := 0; i < 20000; i++ {
		va := pages[rng.Intn(len(pages))]
		flags := flagChoices[rng.Intn(len(flagChoices))]
		_, mapped := model[va]
		switch rng.Intn(4) {
		case 0, 1:
			pa := uintptr(rng.Intn(1<<20)) * ptSize4K
			if got := pt.Map(va, pa, flags, a.alloc); got != !mapped {
				t.Fatalf("step %d: Map(%#x) = %v, mapped %v", i, va, got, mapped)
			}
			if !mapped {
				model[va] = pte{pa, flags | PTEPresent}
			}
		case 2:
			pa, ok := pt.Unmap(va)
			if ok != mapped || pa != model[va].pa {
				t.Fatalf("step %d: Unmap(%#x) = %#x, %v; model %+v, %v", i, va, pa, ok, model[va], mapped)
			}
			delete(model, va)
		case 3:
			if got := pt.Protect(va, flags); got != mapped {
				t.Fatalf("step %d: Protect(%#x) = %v, mapped %v", i, va, got, mapped)
			}
			if mapped {
				model[va] = pte{model[va].pa, flags | PTEPresent}
			}
		}
		for _, p := range pages {
			pa, flags, ok := pt.Lookup(p + 0x10)
			want, wantOK := model[p]
			if ok != wantOK || (ok && (pa != want.pa+0x10 || flags != want.flags)) {
				t.Fatalf("step %d: Lookup(%#x) = %#x, %#x, %v; model %+v, %v", i, p+0x10, pa, flags, ok, want, wantOK)
			}
		}
	}
	n := pt.UnmapRange(0, ^uintptr(0), nil)
	if n != len(model) {
		t.Errorf("final UnmapRange = %d, model has %d pages", n, len(model))
	}
	if a.n > 1+7*3 {
		t.Errorf("%d frames allocated for 7 page tables' worth of paths", a.n)
	}
}
