package pagetable_test

import (
	"fmt"
	"slices"
)

// model is the reference the randomized tests hold the walker to: what is mapped, as maps from
// address to entry, and which 2 MiB ranges have a page table (tables are never freed, and
// MapHuge refuses a range that has one).
type model struct {
	ar     arch
	pages  map[uintptr]leafEntry // 4 KiB pages by address
	blocks map[uintptr]leafEntry // 2 MiB blocks by address
	tables map[uintptr]bool      // 2 MiB ranges with a page table, by address
}

type leafEntry struct {
	pa    uintptr
	flags uint64 // as Lookup reports them
}

func newModel(ar arch) *model {
	return &model{ar: ar, pages: map[uintptr]leafEntry{}, blocks: map[uintptr]leafEntry{}, tables: map[uintptr]bool{}}
}

type opKind int

const (
	opMap opKind = iota
	opMapHuge
	opUnmap
	opProtect
	opUnmapRange
	opLookup
	opKinds
)

// operation is one call on a table: va and end are UnmapRange's bounds.
type operation struct {
	kind        opKind
	va, pa, end uintptr
	flags       uint64
}

func (op operation) String() string {
	name := [...]string{"Map", "MapHuge", "Unmap", "Protect", "UnmapRange", "Lookup"}[op.kind]
	return fmt.Sprintf("%s(va %#x, pa %#x, end %#x, flags %#x)", name, op.va, op.pa, op.end, op.flags)
}

// apply runs op on pt and on the model and reports where they disagree.
func (m *model) apply(pt table, a *arena, op operation) error {
	switch op.kind {
	case opMap:
		if got, want := pt.Map(op.va, op.pa, op.flags, a.alloc), m.mapPage(op.va, op.pa, op.flags); got != want {
			return fmt.Errorf("%v = %v, model %v", op, got, want)
		}
	case opMapHuge:
		if got, want := pt.MapHuge(op.va, op.pa, op.flags, a.alloc), m.mapBlock(op.va, op.pa, op.flags); got != want {
			return fmt.Errorf("%v = %v, model %v", op, got, want)
		}
	case opUnmap:
		pa, ok := pt.Unmap(op.va)
		if wantPA, wantOK := m.unmap(op.va); pa != wantPA || ok != wantOK {
			return fmt.Errorf("%v = %#x, %v; model %#x, %v", op, pa, ok, wantPA, wantOK)
		}
	case opProtect:
		if got, want := pt.Protect(op.va, op.flags), m.protect(op.va, op.flags); got != want {
			return fmt.Errorf("%v = %v, model %v", op, got, want)
		}
	case opUnmapRange:
		var freed []uintptr
		n := pt.UnmapRange(op.va, op.end, func(pa uintptr) { freed = append(freed, pa) })
		if want := m.unmapRange(op.va, op.end); n != len(freed) || !slices.Equal(freed, want) {
			return fmt.Errorf("%v = %d, freed %#x; model freed %#x", op, n, freed, want)
		}
	case opLookup:
		return m.check(pt, op.va)
	}
	return nil
}

// check compares pt's translation of va with the model's.
func (m *model) check(pt table, va uintptr) error {
	pa, flags, ok := pt.Lookup(va)
	var want leafEntry
	var wantOK bool
	if m.ar.translated(va) {
		if e, found := m.pages[va&^(size4K-1)]; found {
			want, wantOK = leafEntry{e.pa + va&(size4K-1), e.flags}, true
		} else if e, found := m.blocks[va&^(size2M-1)]; found {
			want, wantOK = leafEntry{e.pa + va&(size2M-1), e.flags}, true
		}
	}
	if ok != wantOK || pa != want.pa || flags != want.flags {
		return fmt.Errorf("Lookup(%#x) = %#x, %#x, %v; model %#x, %#x, %v", va, pa, flags, ok, want.pa, want.flags, wantOK)
	}
	return nil
}

// leafOK is what Map and MapHuge check before they walk.
func (m *model) leafOK(va, pa uintptr, flags uint64, size uintptr, refused []uint64) bool {
	if !m.ar.translated(va) || va%size != 0 || pa%size != 0 || pa >= m.ar.paLimit {
		return false
	}
	return !m.refused(flags, refused)
}

// refused reports whether flags has address bits or one of refused.
func (m *model) refused(flags uint64, refused []uint64) bool {
	if flags&uint64(m.ar.paLimit-1)&^(size4K-1) != 0 {
		return true
	}
	for _, r := range refused {
		if flags&r != 0 {
			return true
		}
	}
	return false
}

func (m *model) mapPage(va, pa uintptr, flags uint64) bool {
	if !m.leafOK(va, pa, flags, size4K, m.ar.refusedFlags) {
		return false
	}
	slot := va &^ (size2M - 1)
	if _, ok := m.blocks[slot]; ok {
		return false
	}
	m.tables[slot] = true // created on the way, even if the page turns out to be mapped
	if _, ok := m.pages[va]; ok {
		return false
	}
	m.pages[va] = leafEntry{pa, flags | m.ar.pageBits}
	return true
}

func (m *model) mapBlock(va, pa uintptr, flags uint64) bool {
	if !m.leafOK(va, pa, flags, size2M, m.ar.refusedHugeFlags) {
		return false
	}
	if _, ok := m.blocks[va]; ok || m.tables[va] {
		return false
	}
	m.blocks[va] = leafEntry{pa, flags | m.ar.blockBits}
	return true
}

// unmap and protect act on the page that holds va (the walker looks va up; it does not insist
// on an aligned address).
func (m *model) unmap(va uintptr) (uintptr, bool) {
	page := va &^ (size4K - 1)
	e, ok := m.pages[page]
	if !ok || !m.ar.translated(va) {
		return 0, false
	}
	delete(m.pages, page)
	return e.pa, true
}

func (m *model) protect(va uintptr, flags uint64) bool {
	page := va &^ (size4K - 1)
	e, ok := m.pages[page]
	if !ok || !m.ar.translated(va) || m.refused(flags, m.ar.refusedFlags) {
		return false
	}
	m.pages[page] = leafEntry{e.pa, flags | m.ar.pageBits}
	return true
}

// unmapRange removes the pages that start in [start, end) and returns their frames in address
// order, as UnmapRange frees them.
func (m *model) unmapRange(start, end uintptr) []uintptr {
	first := (start + size4K - 1) &^ (size4K - 1)
	if first < start {
		return nil // start rounds past the top
	}
	var vas []uintptr
	for va := range m.pages {
		if va >= first && va < end {
			vas = append(vas, va)
		}
	}
	slices.Sort(vas)
	freed := make([]uintptr, len(vas))
	for i, va := range vas {
		freed[i] = m.pages[va].pa
		delete(m.pages, va)
	}
	return freed
}
