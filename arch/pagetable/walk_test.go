package pagetable_test

import (
	"fmt"
	"math/rand"
	"slices"
	"testing"
	"time"

	"github.com/unitrace/unitrace/arch/pagetable"
)

// The shared suite: every case runs against both formats.

func TestLookup(t *testing.T) {
	forArches(t, func(t *testing.T, ar arch) {
		a := newArena(t, 16)
		pt := a.newTable(t, ar)
		lowHuge, topHuge := ar.high+size2M, ar.top-size2M // the upper range's first table, and the last 2 MiB
		if !pt.Map(0x7f1234567000, 0xabcde000, ar.data, a.alloc) ||
			!pt.MapHuge(lowHuge, 0x1_0000_0000, ar.device, a.alloc) ||
			!pt.MapHuge(topHuge, 0x2_0000_0000, ar.kernel, a.alloc) ||
			!pt.Map(0x10000, 0x10000, ar.kernel, a.alloc) {
			t.Fatal("setup failed")
		}
		// A 1 GiB block as boot code builds it: entry 3 of the first level-2 table.
		a.set(slot(a.down(arenaBase, 0, 3), 0xc0000000, 2), 0x2_4000_0000|ar.block1G)
		type want struct {
			pa    uintptr
			flags uint64
			ok    bool
		}
		cases := map[uintptr]want{
			0x7f1234567000:          {0xabcde000, ar.data | ar.pageBits, true},
			0x7f1234567abc:          {0xabcdeabc, ar.data | ar.pageBits, true},
			0x7f1234568000:          {},                                              // empty page-table entry
			0x7f1234800000:          {},                                              // empty level-1 entry
			lowHuge:                 {0x1_0000_0000, ar.device | ar.blockBits, true}, // 2 MiB
			lowHuge + 0x1fffff:      {0x1_001f_ffff, ar.device | ar.blockBits, true}, // its last byte
			lowHuge + size2M:        {},                                              // the next 2 MiB
			topHuge + 0x1ffff8:      {0x2_001f_fff8, ar.kernel | ar.blockBits, true}, // the last 8 translated bytes
			0xc0000000 + 0x12345678: {0x2_4000_0000 + 0x12345678, ar.block1G, true},  // 1 GiB
			0x10008:                 {0x10008, ar.kernel | ar.pageBits, true},
		}
		for _, va := range ar.outside {
			cases[va], cases[va|0xfff] = want{}, want{}
		}
		for va, w := range cases {
			if pa, flags, ok := pt.Lookup(va); pa != w.pa || flags != w.flags || ok != w.ok {
				t.Errorf("Lookup(%#x) = %#x, %#x, %v; want %#x, %#x, %v", va, pa, flags, ok, w.pa, w.flags, w.ok)
			}
		}
		// Under the 1 GiB block nothing else can be mapped, unmapped or protected.
		if pt.Map(0xc0001000, 0x1000, 0, a.alloc) || pt.MapHuge(0xc0200000, 0x200000, 0, a.alloc) || pt.Protect(0xc0000000, 0) {
			t.Error("Map, MapHuge or Protect under a 1 GiB block succeeded")
		}
		if _, ok := pt.Unmap(0xc0000000); ok {
			t.Error("Unmap under a 1 GiB block succeeded")
		}
	})
}

func TestRefusals(t *testing.T) {
	forArches(t, func(t *testing.T, ar arch) {
		a := newArena(t, 32)
		pt := a.newTable(t, ar)
		if !pt.MapHuge(0x200000, 0x200000, ar.kernel, a.alloc) || !pt.Map(0x400000, 0x400000, ar.kernel, a.alloc) {
			t.Fatal("setup failed")
		}
		misaligned := func() (uintptr, bool) { return 0x1234, true }
		beyond := func() (uintptr, bool) { return ar.paLimit, true }
		budget := 2
		twoFrames := func() (uintptr, bool) { // enough for the level-2 and level-1 tables, not the page table
			if budget == 0 {
				return 0, false
			}
			budget--
			return a.alloc()
		}
		type refusal struct {
			name string
			ok   bool
		}
		cases := []refusal{
			{"unaligned va", pt.Map(0x1001, 0x1000, 0, a.alloc)},
			{"unaligned pa", pt.Map(0x1000, 0x1001, 0, a.alloc)},
			{"pa beyond the address field", pt.Map(0x1000, ar.paLimit, 0, a.alloc)},
			{"address bits in flags", pt.Map(0x1000, 0x1000, 0x2000, a.alloc)},
			{"4 KiB under 2 MiB", pt.Map(0x201000, 0x1000, 0, a.alloc)},
			{"already mapped", pt.Map(0x400000, 0x5000, 0, a.alloc)},
			{"huge unaligned va", pt.MapHuge(0x401000, 0x200000, 0, a.alloc)},
			{"huge unaligned pa", pt.MapHuge(0x600000, 0x201000, 0, a.alloc)},
			{"huge pa beyond the address field", pt.MapHuge(0x600000, ar.paLimit, 0, a.alloc)},
			{"huge address bits in flags", pt.MapHuge(0x600000, 0x200000, 0x2000, a.alloc)},
			{"huge over a table", pt.MapHuge(0x400000, 0x400000, 0, a.alloc)},
			{"huge over huge", pt.MapHuge(0x200000, 0x800000, 0, a.alloc)},
			{"alloc fails", pt.Map(0x7000000000, 0x1000, 0, noAlloc)},
			{"alloc misaligned", pt.Map(0x7000000000, 0x1000, 0, misaligned)},
			{"alloc beyond the address field", pt.Map(0x7000000000, 0x1000, 0, beyond)},
			{"alloc fails for the page table", pt.Map(0x7f0000000000, 0x1000, 0, twoFrames)},
			{"unaligned root", ar.table(arenaBase+8).Map(0x1000, 0x1000, 0, a.alloc)},
			{"huge unaligned root", ar.table(arenaBase+8).MapHuge(0x200000, 0x200000, 0, a.alloc)},
		}
		for _, va := range ar.outside {
			cases = append(cases,
				refusal{fmt.Sprintf("va %#x", va), pt.Map(va, 0x1000, 0, a.alloc)},
				refusal{fmt.Sprintf("huge va %#x", va&^(size2M-1)), pt.MapHuge(va&^(size2M-1), 0x200000, 0, a.alloc)})
		}
		for _, flags := range ar.refusedFlags {
			cases = append(cases, refusal{fmt.Sprintf("flags %#x", flags), pt.Map(0x1000, 0x1000, flags, a.alloc)})
		}
		for _, c := range cases {
			if c.ok {
				t.Errorf("%s: succeeded", c.name)
			}
		}
		if pa, flags, ok := pt.Lookup(0x400000); pa != 0x400000 || flags != ar.kernel|ar.pageBits || !ok {
			t.Errorf("refusals changed the existing page: %#x %#x %v", pa, flags, ok)
		}
		unaligned := ar.table(arenaBase + 8)
		if unaligned.UnmapRange(0, 1<<47, nil) != 0 {
			t.Error("UnmapRange on an unaligned root cleared something")
		}
		if _, _, ok := unaligned.Lookup(0x400000); ok {
			t.Error("Lookup on an unaligned root succeeded")
		}
		if _, ok := unaligned.Unmap(0x400000); ok || unaligned.Protect(0x400000, 0) {
			t.Error("Unmap or Protect on an unaligned root succeeded")
		}
	})
}

func TestUnmapProtect(t *testing.T) {
	forArches(t, func(t *testing.T, ar arch) {
		a := newArena(t, 16)
		pt := a.newTable(t, ar)
		pt.Map(0xc000000000, 0x5000, ar.data, a.alloc)
		pt.MapHuge(0xc000200000, 0x200000, ar.kernel, a.alloc)

		if !pt.Protect(0xc000000000, ar.readOnly) {
			t.Fatal("Protect failed")
		}
		if pa, flags, ok := pt.Lookup(0xc000000000); pa != 0x5000 || flags != ar.readOnly|ar.pageBits || !ok {
			t.Errorf("after Protect: %#x %#x %v", pa, flags, ok)
		}
		type refusal struct {
			name string
			ok   bool
		}
		cases := []refusal{
			{"Protect unmapped", pt.Protect(0xc000001000, 0)},
			{"Protect a block", pt.Protect(0xc000200000, 0)},
			{"Protect with address bits", pt.Protect(0xc000000000, 0x10000)},
		}
		for _, flags := range ar.refusedFlags {
			cases = append(cases, refusal{fmt.Sprintf("Protect with %#x", flags), pt.Protect(0xc000000000, flags)})
		}
		for _, va := range ar.outside {
			cases = append(cases, refusal{fmt.Sprintf("Protect %#x", va), pt.Protect(va, 0)})
		}
		for _, c := range cases {
			if c.ok {
				t.Errorf("%s succeeded", c.name)
			}
		}
		if _, flags, _ := pt.Lookup(0xc000000000); flags != ar.readOnly|ar.pageBits {
			t.Errorf("refused Protects changed the page: flags %#x", flags)
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
		for _, va := range ar.outside {
			if _, ok := pt.Unmap(va); ok {
				t.Errorf("Unmap(%#x) succeeded", va)
			}
		}
		if !pt.Map(0xc000000000, 0x6000, 0, a.alloc) {
			t.Error("Map after Unmap failed")
		}
	})
}

// TestUnmapRange clears sparse pages of a 512 MiB reservation, and the whole address space,
// checking what was freed and what stayed.
func TestUnmapRange(t *testing.T) {
	forArches(t, func(t *testing.T, ar arch) {
		a := newArena(t, 1024) // tables first, then the 2 MiB block at 0x200000
		pt := a.newTable(t, ar)
		const base = 0xc000000000
		// The block's contents look like page entries: a walk that took it for a table would
		// "free" them.
		for i := uintptr(0); i < size2M/8; i++ {
			a.set(0x200000+i*8, 0x7000|ar.pageBits)
		}
		inside := []uintptr{base, base + 0x1ff000, base + 0x200000, base + 0x10000000, base + 0x1ffff000}
		outside := []uintptr{base - 0x1000, base + 0x20000000, 0x7ffffffff000, ar.high, ar.top - size4K}
		for i, va := range append(slices.Clone(inside), outside...) {
			if !pt.Map(va, uintptr(i+1)*size4K, ar.kernel, a.alloc) {
				t.Fatalf("Map(%#x) failed", va)
			}
		}
		if !pt.MapHuge(base+0x400000, 0x200000, ar.kernel, a.alloc) { // left alone
			t.Fatal("MapHuge failed")
		}
		var freed []uintptr
		free := func(pa uintptr) { freed = append(freed, pa) }
		if n := pt.UnmapRange(base, base+512<<20, free); n != len(inside) {
			t.Errorf("UnmapRange = %d, want %d", n, len(inside))
		}
		if want := []uintptr{0x1000, 0x2000, 0x3000, 0x4000, 0x5000}; !slices.Equal(freed, want) {
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
		// An entry without the valid bit maps nothing: UnmapRange leaves it and frees nothing.
		pt.Map(base, 0x1000, 0, a.alloc)
		invalid := slot(a.down(a.down(a.down(arenaBase, base, 3), base, 2), base, 1), base+0x1000, 0)
		a.set(invalid, ^ar.valid)
		if n := pt.UnmapRange(base, base+0x2000, nil); n != 1 || a.at(invalid) != ^ar.valid {
			t.Errorf("UnmapRange over an invalid entry = %d, entry %#x", n, a.at(invalid))
		}
		a.set(invalid, 0)
		// Unaligned bounds: only pages that start inside count.
		pt.Map(base, 0x1000, 0, a.alloc)
		pt.Map(base+0x1000, 0x2000, 0, a.alloc)
		if n := pt.UnmapRange(base+1, base+0x1001, nil); n != 1 {
			t.Errorf("UnmapRange(base+1, base+0x1001) = %d, want 1 (the page at base+0x1000)", n)
		}
		// The whole address space, across the gap between the translated ranges and up to the
		// last page: this must skip missing tables, or it would visit 2^36 pages.
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
		empty := a.newTable(t, ar) // every root entry missing, up to the last one
		if n := empty.UnmapRange(0, ^uintptr(0), nil); n != 0 {
			t.Errorf("UnmapRange of an empty table = %d", n)
		}
		if n := pt.UnmapRange(^uintptr(0)-5, ^uintptr(0), nil); n != 0 {
			t.Errorf("UnmapRange at the top = %d", n)
		}
		if n := pt.UnmapRange(base+0x1000, base, nil); n != 0 {
			t.Errorf("UnmapRange with end < start = %d", n)
		}
	})
}

// TestModel maps, unmaps and protects random pages and blocks around a few table boundaries,
// clears random ranges, and compares every translation with the reference model after each step.
func TestModel(t *testing.T) {
	forArches(t, func(t *testing.T, ar arch) {
		a := newArena(t, 512)
		pt := a.newTable(t, ar)
		rng := rand.New(rand.NewSource(3))
		// Pages near the edges of page tables, level-1 and level-2 tables, in both ranges.
		var pages []uintptr
		for _, b := range []uintptr{0x0, 0x1ff000, 0x3fe00000, 0x7fc0000000, 0x7fffffe00000, ar.high, ar.top - size2M} {
			for k := uintptr(0); k < 4; k++ {
				pages = append(pages, b+k*size4K)
			}
		}
		m := newModel(ar)
		for i := 0; i < 20000; i++ {
			va := pages[rng.Intn(len(pages))]
			flags := ar.modelFlags[rng.Intn(len(ar.modelFlags))]
			op := operation{flags: flags}
			switch r := rng.Intn(10); {
			case r < 4:
				op.kind, op.va, op.pa = opMap, va, uintptr(rng.Intn(1<<20))*size4K
			case r < 5:
				op.kind, op.va, op.pa = opMapHuge, va&^(size2M-1), uintptr(rng.Intn(1<<11))*size2M
			case r < 7:
				op.kind, op.va = opUnmap, va
			case r < 9:
				op.kind, op.va = opProtect, va
			default:
				op.kind, op.va = opUnmapRange, va-uintptr(rng.Intn(2))*0x800
				op.end = op.va + uintptr(rng.Intn(6))*size4K
			}
			if err := m.apply(pt, a, op); err != nil {
				t.Fatalf("step %d: %v", i, err)
			}
			for _, p := range pages {
				if err := m.check(pt, p+0x10); err != nil {
					t.Fatalf("step %d: %v", i, err)
				}
			}
		}
		if n := pt.UnmapRange(0, ^uintptr(0), nil); n != len(m.pages) {
			t.Errorf("final UnmapRange = %d, model has %d pages", n, len(m.pages))
		}
		if a.n > 1+7*3 {
			t.Errorf("%d frames allocated for 7 page tables' worth of paths", a.n)
		}
	})
}

// TestFormatGeometry pins the shared geometry the formats rely on: 512 entries of 8 bytes fill
// a 4 KiB table, and each level covers 512 times the one below.
func TestFormatGeometry(t *testing.T) {
	if pagetable.Entries*8 != pagetable.Size4K || pagetable.Size2M != pagetable.Entries*pagetable.Size4K ||
		pagetable.Size1G != pagetable.Entries*pagetable.Size2M {
		t.Error("table geometry")
	}
}
