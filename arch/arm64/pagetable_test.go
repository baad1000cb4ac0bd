package arm64

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

func newPTArena(t testing.TB, frames int) *ptArena {
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

// newTable returns an empty page table whose root is the next free frame.
func (a *ptArena) newTable(t testing.TB) *PageTable {
	root, ok := a.alloc()
	if !ok {
		t.Fatal("no frame for the root")
	}
	return &PageTable{Root: root}
}

// at reads the entry at physical address pa.
func (a *ptArena) at(pa uintptr) uint64 { return *entryAt(pa, 0) }

func noAlloc() (uintptr, bool) { return 0, false }

// TestPageTableBits builds tables for three addresses and checks every descriptor on the path
// against values computed by hand from the Arm ARM (D8.3: table descriptors are address|0b11,
// pages address|attributes|AF|0b11, blocks address|attributes|AF|0b01).
func TestPageTableBits(t *testing.T) {
	a := newPTArena(t, 16)
	pt := a.newTable(t) // root 0x100000

	// va 0x7f12_3456_7000: L0 index 0xfe (bits 47:39), L1 0x48, L2 0x1a2, L3 0x167.
	if !pt.Map(0x7f1234567000, 0xabcde000, PTEKernel|PTENoExec, a.alloc) {
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
	if !pt.Map(0x9000000, 0x9000000, PTEAttrDevice|PTEReadOnly, a.alloc) {
		t.Fatal("Map device page failed")
	}
	// L0 0, L1 0, L2 0x48, L3 0: tables 0x104000 (L1), 0x105000 (L2), 0x106000 (L3).
	if got, want := a.at(0x106000), uint64(0x900_0000|0x483); got != want {
		t.Errorf("device page = %#x, want %#x", got, want)
	}

	// A 2 MiB block at 0x4000_0000: L0 0, L1 1, L2 0 (the L1 table exists already).
	if !pt.MapHuge(0x40000000, 0x1_0000_0000, PTEKernel, a.alloc) {
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
	if !pt.Map(0x7f1234568000, 0xabcdf000, PTEKernel, a.alloc) || a.n != 8 {
		t.Errorf("Map in an existing table: %d frames", a.n)
	}
}

func TestPageTableLookup(t *testing.T) {
	a := newPTArena(t, 16)
	pt := a.newTable(t)
	pt.Map(0x7f1234567000, 0xabcde000, PTEKernel|PTENoExec, a.alloc)
	pt.MapHuge(0xffff_ffe0_0000, 0x1_0000_0000, PTEMMIO, a.alloc)
	// A 1 GiB block as the boot code builds it: L1 entry 3 of the first L1 table.
	pt.Map(0x10000, 0x10000, PTEMMIO, a.alloc)
	l1 := uintptr(a.at(pt.Root) & pteAddr)
	*entryAt(l1, 3) = 0x2_4000_0000 | bootNormalBlock
	page := PTEKernel | PTENoExec | PTEValid | PTETable
	for _, c := range []struct {
		va    uintptr
		pa    uintptr
		flags uint64
		ok    bool
	}{
		{0x7f1234567000, 0xabcde000, page, true},
		{0x7f1234567abc, 0xabcdeabc, page, true},
		{0x7f1234568000, 0, 0, false},                                                // empty L3 entry
		{0x7f1234800000, 0, 0, false},                                                // empty L2 entry
		{0xffff_ffe0_0000, 0x1_0000_0000, PTEMMIO | PTEValid, true},                  // 2 MiB block
		{0xffff_ffff_fff8, 0x1_001f_fff8, PTEMMIO | PTEValid, true},                  // the last 8 bytes below 2^48
		{0xc0000000 + 0x12345678, 0x2_4000_0000 + 0x12345678, bootNormalBlock, true}, // 1 GiB
		{0x10008, 0x10008, PTEMMIO | PTEValid | PTETable, true},
		{0x1_0000_0000_0000, 0, 0, false}, // beyond TTBR0's 48 bits
		{^uintptr(0), 0, 0, false},
	} {
		pa, flags, ok := pt.Lookup(c.va)
		if pa != c.pa || flags != c.flags || ok != c.ok {
			t.Errorf("Lookup(%#x) = %#x, %#x, %v; want %#x, %#x, %v", c.va, pa, flags, ok, c.pa, c.flags, c.ok)
		}
	}
	// Reserved encodings: a block at level 0, a level-3 entry with bit 1 clear.
	*entryAt(pt.Root, 5) = 0x80_0000_0000*5 | PTEValid
	if _, _, ok := pt.Lookup(0x80_0000_0000 * 5); ok {
		t.Error("a level-0 block translated")
	}
	l3 := uintptr(a.at(uintptr(a.at(l1)&pteAddr)) & pteAddr)
	*entryAt(l3, 17) = 0x11000 | PTEValid
	if _, _, ok := pt.Lookup(0x11000); ok {
		t.Error("a level-3 entry of block type translated")
	}
	// Under the 1 GiB block nothing else can be mapped, unmapped or protected.
	if pt.Map(0xc0001000, 0x1000, 0, a.alloc) || pt.MapHuge(0xc0200000, 0x200000, 0, a.alloc) ||
		pt.Protect(0xc0000000, 0) {
		t.Error("Map, MapHuge or Protect under a 1 GiB block succeeded")
	}
	if _, ok := pt.Unmap(0xc0000000); ok {
		t.Error("Unmap under a 1 GiB block succeeded")
	}
}

func TestPageTableRefusals(t *testing.T) {
	a := newPTArena(t, 32)
	pt := a.newTable(t)
	if !pt.MapHuge(0x200000, 0x200000, PTEKernel, a.alloc) || !pt.Map(0x400000, 0x400000, PTEKernel, a.alloc) {
		t.Fatal("setup failed")
	}
	misaligned := func() (uintptr, bool) { return 0x1234, true }
	huge48 := func() (uintptr, bool) { return 1 << 48, true }
	budget := 2
	twoFrames := func() (uintptr, bool) { // enough for the L1 and L2 tables, not the L3
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
		{"va beyond 48 bits", pt.Map(1<<48, 0x1000, 0, a.alloc)},
		{"va in the upper half", pt.Map(0xffff_8000_0000_0000, 0x1000, 0, a.alloc)},
		{"unaligned va", pt.Map(0x1001, 0x1000, 0, a.alloc)},
		{"unaligned pa", pt.Map(0x1000, 0x1001, 0, a.alloc)},
		{"pa beyond 48 bits", pt.Map(0x1000, 1<<48, 0, a.alloc)},
		{"address bits in flags", pt.Map(0x1000, 0x1000, 0x2000, a.alloc)},
		{"table bit in flags", pt.Map(0x1000, 0x1000, PTETable, a.alloc)},
		{"RES0 bit 50 in flags", pt.Map(0x1000, 0x1000, 1<<50, a.alloc)},
		{"4 KiB under 2 MiB", pt.Map(0x201000, 0x1000, 0, a.alloc)},
		{"already mapped", pt.Map(0x400000, 0x5000, 0, a.alloc)},
		{"huge unaligned va", pt.MapHuge(0x401000, 0x200000, 0, a.alloc)},
		{"huge unaligned pa", pt.MapHuge(0x600000, 0x201000, 0, a.alloc)},
		{"huge over a table", pt.MapHuge(0x400000, 0x400000, 0, a.alloc)},
		{"huge over huge", pt.MapHuge(0x200000, 0x800000, 0, a.alloc)},
		{"huge beyond 48 bits", pt.MapHuge(1<<48, 0x200000, 0, a.alloc)},
		{"alloc fails", pt.Map(0x7000000000, 0x1000, 0, noAlloc)},
		{"alloc misaligned", pt.Map(0x7000000000, 0x1000, 0, misaligned)},
		{"alloc beyond 48 bits", pt.Map(0x7000000000, 0x1000, 0, huge48)},
		{"alloc fails for the L3", pt.Map(0x7f0000000000, 0x1000, 0, twoFrames)},
		{"unaligned root", (&PageTable{Root: ptBase + 8}).Map(0x1000, 0x1000, 0, a.alloc)},
	} {
		if c.ok {
			t.Errorf("%s: succeeded", c.name)
		}
	}
	if pa, flags, ok := pt.Lookup(0x400000); pa != 0x400000 || flags != PTEKernel|PTEValid|PTETable || !ok {
		t.Errorf("refusals changed the existing page: %#x %#x %v", pa, flags, ok)
	}
	if (&PageTable{Root: ptBase + 8}).UnmapRange(0, 1<<48, nil) != 0 {
		t.Error("UnmapRange on an unaligned root cleared something")
	}
	if _, _, ok := (&PageTable{Root: ptBase + 8}).Lookup(0x400000); ok {
		t.Error("Lookup on an unaligned root succeeded")
	}
}

func TestPageTableUnmapProtect(t *testing.T) {
	a := newPTArena(t, 16)
	pt := a.newTable(t)
	pt.Map(0xc000000000, 0x5000, PTEKernel|PTENoExec, a.alloc)
	pt.MapHuge(0xc000200000, 0x200000, PTEKernel, a.alloc)

	if !pt.Protect(0xc000000000, PTEKernel|PTEReadOnly) {
		t.Fatal("Protect failed")
	}
	if pa, flags, ok := pt.Lookup(0xc000000000); pa != 0x5000 || flags != PTEKernel|PTEReadOnly|PTEValid|PTETable || !ok {
		t.Errorf("after Protect: %#x %#x %v", pa, flags, ok)
	}
	for _, c := range []struct {
		name string
		ok   bool
	}{
		{"Protect unmapped", pt.Protect(0xc000001000, 0)},
		{"Protect a block", pt.Protect(0xc000200000, 0)},
		{"Protect with address bits", pt.Protect(0xc000000000, 0x10000)},
		{"Protect with the table bit", pt.Protect(0xc000000000, PTETable)},
		{"Protect beyond 48 bits", pt.Protect(1<<48, 0)},
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
		t.Error("Unmap of a 2 MiB block succeeded")
	}
	if _, ok := pt.Unmap(0xd000000000); ok {
		t.Error("Unmap of an address without tables succeeded")
	}
	if !pt.Map(0xc000000000, 0x6000, 0, a.alloc) {
		t.Error("Map after Unmap failed")
	}
	// Map always sets AF: nothing here handles access-flag faults.
	if _, flags, _ := pt.Lookup(0xc000000000); flags&PTEAccessed == 0 {
		t.Error("Map without PTEAccessed left AF clear")
	}
}

// TestPageTableUnmapRange clears sparse pages of a 512 MiB reservation, and the whole address
// space, checking what was freed and what stayed.
func TestPageTableUnmapRange(t *testing.T) {
	a := newPTArena(t, 1024) // 0x100000-0x500000: tables first, then the 2 MiB block at 0x200000
	pt := a.newTable(t)
	const base = 0xc000000000
	// The block's contents look like valid page descriptors: a walk that took it for a table
	// would "free" them.
	for i := uintptr(0); i < ptSize2M/8; i++ {
		*entryAt(0x200000, i) = 0x7000 | PTEValid | PTETable
	}
	inside := []uintptr{base, base + 0x1ff000, base + 0x200000, base + 0x10000000, base + 0x1ffff000}
	outside := []uintptr{base - 0x1000, base + 0x20000000, 0x7ffffffff000, 0x800000000000, 0xfffffffff000}
	for i, va := range append(append([]uintptr{}, inside...), outside...) {
		if !pt.Map(va, uintptr(i+1)*ptSize4K, PTEKernel, a.alloc) {
			t.Fatalf("Map(%#x) failed", va)
		}
	}
	if !pt.MapHuge(base+0x400000, 0x200000, PTEKernel, a.alloc) { // left alone
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
	// The whole address space up to the last page: this must skip missing tables, or it would
	// visit 2^36 pages.
	start := time.Now()
	if n := pt.UnmapRange(0, ^uintptr(0), nil); n != len(outside)+1 {
		t.Errorf("UnmapRange of everything = %d, want %d", n, len(outside)+1)
	}
	if d := time.Since(start); d > time.Second {
		t.Errorf("UnmapRange of everything took %v", d)
	}
	if _, _, ok := pt.Lookup(base + 0x400000); !ok {
		t.Error("the 2 MiB block was unmapped")
	}
	empty := a.newTable(t)
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
// compares every translation with a map from page to descriptor.
func TestPageTableModel(t *testing.T) {
	a := newPTArena(t, 512)
	pt := a.newTable(t)
	rng := rand.New(rand.NewSource(3))
	// Pages near the edges of L3, L2 and L1 tables, up to the top of TTBR0's range.
	var pages []uintptr
	for _, b := range []uintptr{0x0, 0x1ff000, 0x3fe00000, 0x7fc0000000, 0x7fffffe00000, 0x800000000000, 0xffffffe00000} {
		for k := uintptr(0); k < 4; k++ {
			pages = append(pages, b+k*ptSize4K)
		}
	}
	type pte struct {
		pa    uintptr
		flags uint64
	}
	model := map[uintptr]pte{}
	flagChoices := []uint64{0, PTEKernel, PTEKernel | PTEReadOnly, PTEKernel | PTENoExec, PTEMMIO, PTEAttrNormalNC | PTENotGlobal}
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
				model[va] = pte{pa, flags | PTEAccessed | PTEValid | PTETable}
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
				model[va] = pte{model[va].pa, flags | PTEAccessed | PTEValid | PTETable}
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

// FuzzPageTableLookup walks tables whose entries are arbitrary (as a corrupted or foreign table
// would be): Lookup must never panic or leave the arena, and whatever it reports must be a
// translation its descriptors allow.
func FuzzPageTableLookup(f *testing.F) {
	f.Add(uint64(0x101003), uint64(0x102003), uint64(0x4000_0705), uint64(0x1234))
	f.Add(uint64(0x101003), uint64(0x4000_0001), uint64(0), uint64(0x7fff_ffff_f000))
	f.Add(uint64(1), uint64(3), uint64(0xffff_ffff_ffff_ffff), uint64(0xffff_ffff_ffff))
	a := newPTArena(f, 3)
	pt := a.newTable(f)
	f.Fuzz(func(t *testing.T, e0, e1, e2 uint64, va uint64) {
		// Three tables at 0x100000, 0x101000, 0x102000; every entry of each holds the fuzzed
		// value, but table pointers are confined to the arena (a walk outside it would read
		// host memory; the kernel's tables are always in RAM it mapped).
		confine := func(e uint64) uint64 {
			if e&pteType == pteType {
				return e&^pteAddr | uint64(ptBase+uintptr(e>>12)%3*ptSize4K)
			}
			return e
		}
		for i := uintptr(0); i < ptEntries; i++ {
			*entryAt(ptBase, i) = confine(e0)
			*entryAt(ptBase+ptSize4K, i) = confine(e1)
			*entryAt(ptBase+2*ptSize4K, i) = confine(e2)
		}
		pa, flags, ok := pt.Lookup(uintptr(va))
		if !ok {
			if pa != 0 || flags != 0 {
				t.Fatalf("failed Lookup returned %#x, %#x", pa, flags)
			}
			return
		}
		if flags&PTEValid == 0 || uintptr(va) >= ptVAEnd || uint64(pa)&0xfff != va&0xfff {
			t.Fatalf("Lookup(%#x) = %#x, %#x", va, pa, flags)
		}
		pt.UnmapRange(uintptr(va)&^0xfff, uintptr(va)&^0xfff+ptSize4K, nil)
	})
}

// TestBootMapDescriptors builds the boot identity map from the same constants boot_arm64.s
// uses, the way it uses them, and checks what it translates and how: the 64 KiB null guard,
// MMIO as never-executable Device memory, RAM as Normal memory, nothing at or above BootMapEnd.
func TestBootMapDescriptors(t *testing.T) {
	newPTArena(t, bootTablePages)
	l0, l1, l2, l3 := uintptr(ptBase), uintptr(ptBase+ptSize4K), uintptr(ptBase+2*ptSize4K), uintptr(ptBase+3*ptSize4K)
	*entryAt(l0, 0) = uint64(l1) | bootTableDesc
	*entryAt(l1, 0) = uint64(l2) | bootTableDesc
	*entryAt(l2, 0) = uint64(l3) | bootTableDesc
	for i := uintptr(bootRAMStart >> 30); i < BootMapEnd>>30; i++ {
		*entryAt(l1, i) = uint64(i)<<30 | bootNormalBlock
	}
	for i := uintptr(1); i < ptEntries; i++ {
		*entryAt(l2, i) = uint64(i)<<21 | bootDeviceBlock
	}
	for i := uintptr(bootNullGuard >> 12); i < ptEntries; i++ {
		*entryAt(l3, i) = uint64(i)<<12 | bootDevicePage
	}
	pt := PageTable{Root: l0}
	for _, c := range []struct {
		va     uintptr
		ok     bool
		device bool
	}{
		{0, false, false}, {0xfff8, false, false},
		{0x10000, true, true}, {0x1ff000, true, true},
		{0x0800_0000, true, true}, {DefaultUARTBase, true, true}, {0x3fff_fff8, true, true},
		{DefaultDTBAddr, true, false}, {ImageStart, true, false}, {BootMapEnd - 8, true, false},
		{BootMapEnd, false, false}, {1 << 47, false, false},
	} {
		pa, flags, ok := pt.Lookup(c.va)
		if ok != c.ok || (ok && pa != c.va) {
			t.Errorf("boot map: %#x -> %#x, %v; want identity %v", c.va, pa, ok, c.ok)
			continue
		}
		if !ok {
			continue
		}
		if flags&PTEAccessed == 0 || flags&PTEReadOnly != 0 || flags&PTEUser != 0 {
			t.Errorf("boot map: %#x flags %#x: want AF, EL1 read/write only", c.va, flags)
		}
		attr := flags & pteAttrIndx
		switch {
		case c.device && (attr != PTEAttrDevice || flags&PTENoExec != PTENoExec):
			t.Errorf("boot map: %#x flags %#x: want never-executable Device memory", c.va, flags)
		case !c.device && (attr != PTEAttrNormal || flags&PTENoExec != 0 || flags&PTEInnerShareable != PTEInnerShareable):
			t.Errorf("boot map: %#x flags %#x: want executable inner-shareable Normal memory", c.va, flags)
		}
	}
	if ImageStart-DefaultDTBAddr < 2<<20 {
		t.Error("the image leaves less than 2 MiB for the DTB")
	}
}
