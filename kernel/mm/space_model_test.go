package mm

import (
	"fmt"
	"math/rand"
	"testing"

	"github.com/unitrace/unitrace/kernel/abi"
)

// spaceModel is the reference for Space: one state per page of a small address space.
type spaceModel struct {
	lo, hi, base uintptr
	limit        int
	page         []int8 // per page of [lo, hi): pageFree, pageExcluded or a protection
}

const (
	pageFree     = -1
	pageExcluded = -2
)

func newSpaceModel(lo, hi, base uintptr, limit int) *spaceModel {
	m := &spaceModel{lo: lo, hi: hi, base: base, limit: limit, page: make([]int8, (hi-lo)/PageSize)}
	for i := range m.page {
		m.page[i] = pageFree
	}
	return m
}

// pages returns the page indexes of [start, start+size) and whether the range is inside [lo, hi).
func (m *spaceModel) pages(start, size uintptr) (int, int, bool) {
	if start < m.lo || start > m.hi || size > m.hi-start {
		return 0, 0, false
	}
	return int((start - m.lo) / PageSize), int((start + size - m.lo) / PageSize), true
}

func (m *spaceModel) all(a, b int, ok func(int8) bool) bool {
	for i := a; i < b; i++ {
		if !ok(m.page[i]) {
			return false
		}
	}
	return true
}

func roundUp(n uintptr) uintptr { return (n + pageMask) &^ pageMask }

func isFreePage(p int8) bool  { return p == pageFree }
func notExcluded(p int8) bool { return p != pageExcluded }
func isMapped(p int8) bool    { return p >= 0 }
func (m *spaceModel) count() (regions, excluded int) {
	prev := int8(pageFree)
	for _, p := range m.page {
		if p != prev {
			if p >= 0 {
				regions++
			} else if p == pageExcluded {
				excluded++
			}
		}
		prev = p
	}
	return regions, excluded
}

// set sets pages [a, b) to v unless the result would exceed a capacity.
func (m *spaceModel) set(a, b int, v int8) int {
	old := append([]int8(nil), m.page...)
	for i := a; i < b; i++ {
		m.page[i] = v
	}
	if r, e := m.count(); r > m.limit || e > MaxExcluded {
		m.page = old
		return abi.ENOMEM
	}
	return 0
}

func (m *spaceModel) Map(hint, length uintptr, prot uint32, fixed bool) (uintptr, int) {
	if prot > 7 || length == 0 || (fixed && hint%PageSize != 0) {
		return 0, abi.EINVAL
	}
	size := roundUp(length)
	if size == 0 || size > m.hi-m.lo {
		return 0, abi.ENOMEM
	}
	addr, found := uintptr(0), false
	if fixed {
		a, b, in := m.pages(hint, size)
		if !in || !m.all(a, b, notExcluded) {
			return 0, abi.ENOMEM
		}
		addr, found = hint, true
	} else {
		if h := roundUp(hint); hint != 0 && h >= hint {
			if a, b, in := m.pages(h, size); in && m.all(a, b, isFreePage) {
				addr, found = h, true
			}
		}
		for _, top := range []uintptr{m.base, m.hi} {
			for a := top - size; !found && top-m.lo >= size && a >= m.lo; a -= PageSize {
				if i, j, _ := m.pages(a, size); m.all(i, j, isFreePage) {
					addr, found = a, true
				}
				if a == m.lo {
					break
				}
			}
		}
		if !found {
			return 0, abi.ENOMEM
		}
	}
	a, b, _ := m.pages(addr, size)
	if e := m.set(a, b, int8(prot)); e != 0 {
		return 0, e
	}
	return addr, 0
}

func (m *spaceModel) Unmap(start, length uintptr) int {
	if start%PageSize != 0 || length == 0 {
		return abi.EINVAL
	}
	size := roundUp(length)
	if size == 0 || start > m.hi || size > m.hi-start {
		return abi.EINVAL
	}
	if start < m.lo { // nothing is mapped below lo: that part is done already
		if start+size <= m.lo {
			return 0
		}
		size -= m.lo - start
		start = m.lo
	}
	a, b, in := m.pages(start, size)
	if !in || !m.all(a, b, notExcluded) {
		return abi.EINVAL
	}
	return m.set(a, b, pageFree)
}

func (m *spaceModel) Protect(start, length uintptr, prot uint32) int {
	if start%PageSize != 0 || prot > 7 {
		return abi.EINVAL
	}
	if length == 0 {
		return 0
	}
	size := roundUp(length)
	a, b, in := m.pages(start, size)
	if size == 0 || !in || !m.all(a, b, isMapped) {
		return abi.ENOMEM
	}
	return m.set(a, b, int8(prot))
}

func (m *spaceModel) Exclude(start, end uintptr) int {
	if end < start {
		return abi.EINVAL
	}
	start &^= pageMask
	if end%PageSize != 0 {
		end = roundUp(end)
		if end == 0 {
			end = ^uintptr(pageMask)
		}
	}
	start, end = max(start, m.lo), min(end, m.hi)
	if start >= end {
		return 0
	}
	a, b, _ := m.pages(start, end-start)
	return m.set(a, b, pageExcluded)
}

// regions lists the model's regions: maximal runs of pages with one protection.
func (m *spaceModel) regions() []Region {
	var rs []Region
	for i, p := range m.page {
		if p < 0 {
			continue
		}
		va := m.lo + uintptr(i)*PageSize
		if n := len(rs); n > 0 && rs[n-1].End == va && rs[n-1].Prot == uint32(p) {
			rs[n-1].End += PageSize
		} else {
			rs = append(rs, Region{Start: va, End: va + PageSize, Prot: uint32(p)})
		}
	}
	return rs
}

func (m *spaceModel) find(addr uintptr) (Region, bool) {
	for _, r := range m.regions() {
		if r.Start <= addr && addr < r.End {
			return r, true
		}
	}
	return Region{}, false
}

// checkSpace fails unless s's regions are sorted, non-empty, page-aligned, non-overlapping,
// merged, inside its bounds and clear of excluded ranges.
func checkSpace(t *testing.T, s *Space) {
	t.Helper()
	for i := 0; i < s.Len(); i++ {
		r := s.At(i)
		if r.Start >= r.End || r.Start&pageMask != 0 || r.End&pageMask != 0 || r.Start < s.lo || r.End > s.hi || r.Prot&^protAll != 0 {
			t.Fatalf("region %d = %+v is malformed (bounds %#x-%#x)", i, r, s.lo, s.hi)
		}
		if i > 0 {
			p := s.At(i - 1)
			if p.End > r.Start {
				t.Fatalf("regions %d %+v and %d %+v overlap or are unsorted", i-1, p, i, r)
			}
			if p.End == r.Start && p.Prot == r.Prot {
				t.Fatalf("regions %d %+v and %d %+v are not merged", i-1, p, i, r)
			}
		}
		if s.overlapsExcluded(r.Start, r.End) {
			t.Fatalf("region %+v overlaps an excluded range", r)
		}
	}
}

// Bounds of the model's address space: 128 pages, mmapBase at page 96.
const (
	mLo   = 0x10000
	mHi   = mLo + 128*PageSize
	mBase = mLo + 96*PageSize
)

// runSpace drives a Space and the model with the operations in ops (4 bytes each) and fails on
// the first disagreement. The first byte, if any, chooses the region capacity.
func runSpace(t *testing.T, ops []byte) {
	t.Helper()
	limit := MaxRegions
	if len(ops) > 0 {
		if ops[0]%4 != 0 {
			limit = 1 + int(ops[0]%16) // small, to reach ENOMEM
		}
		ops = ops[1:]
	}
	var s Space
	s.Init(mLo, mHi, mBase)
	s.limit = limit
	m := newSpaceModel(mLo, mHi, mBase, limit)
	// addr turns a byte into an address around the space: mostly page-aligned inside it,
	// sometimes unaligned, outside, or at the top of the address space.
	addr := func(b, how byte) uintptr {
		v := mLo - 4*PageSize + uintptr(b)*136/256*PageSize // 4 pages either side of the space
		switch how % 16 {
		case 0:
			v += uintptr(b)
		case 1:
			v = ^uintptr(0) - uintptr(b)*PageSize
		case 2:
			v = 0
		}
		return v
	}
	length := func(b, how byte) uintptr {
		n := uintptr(b%24) * PageSize
		switch how % 16 {
		case 3:
			n += uintptr(b)
		case 4:
			n = ^uintptr(0) - uintptr(b)
		case 5:
			n = uintptr(b) * 2 * PageSize
		}
		return n
	}
	for i := 0; i+3 < len(ops); i += 4 {
		op, x, y, z := ops[i], ops[i+1], ops[i+2], ops[i+3]
		prot := uint32(z % 8)
		if z == 0xff {
			prot = 8
		}
		var what string
		switch op % 8 {
		case 0, 1, 2:
			fixed := op%8 == 0
			a, l := addr(x, z>>4), length(y, z>>3)
			got, gotErr := s.Map(a, l, prot, fixed)
			want, wantErr := m.Map(a, l, prot, fixed)
			what = fmt.Sprintf("Map(%#x, %#x, %d, %v)", a, l, prot, fixed)
			if got != want || gotErr != wantErr {
				t.Fatalf("op %d: %s = %#x, %d; model %#x, %d", i/4, what, got, gotErr, want, wantErr)
			}
		case 3, 4:
			a, l := addr(x, z>>4), length(y, z>>3)
			what = fmt.Sprintf("Unmap(%#x, %#x)", a, l)
			if got, want := s.Unmap(a, l), m.Unmap(a, l); got != want {
				t.Fatalf("op %d: %s = %d; model %d", i/4, what, got, want)
			}
		case 5, 6:
			a, l := addr(x, z>>4), length(y, z>>3)
			what = fmt.Sprintf("Protect(%#x, %#x, %d)", a, l, prot)
			if got, want := s.Protect(a, l, prot), m.Protect(a, l, prot); got != want {
				t.Fatalf("op %d: %s = %d; model %d", i/4, what, got, want)
			}
		case 7:
			if op&0x80 == 0 { // rarely: exclusions are boot-time
				a := addr(x, z>>4)
				what = fmt.Sprintf("Find(%#x)", a)
				got, gotOK := s.Find(a)
				want, wantOK := m.find(a)
				if got != want || gotOK != wantOK {
					t.Fatalf("op %d: %s = %+v, %v; model %+v, %v", i/4, what, got, gotOK, want, wantOK)
				}
				continue
			}
			a := addr(x, z>>4)
			e := a + uintptr(y%8)*PageSize - uintptr(z%4)
			what = fmt.Sprintf("Exclude(%#x, %#x)", a, e)
			if got, want := s.Exclude(a, e), m.Exclude(a, e); got != want {
				t.Fatalf("op %d: %s = %d; model %d", i/4, what, got, want)
			}
		}
		checkSpace(t, &s)
		want := m.regions()
		if s.Len() != len(want) {
			t.Fatalf("op %d: after %s: %d regions, model %d:\n got %v\nwant %v", i/4, what, s.Len(), len(want), s.regions[:s.n], want)
		}
		for k, r := range want {
			if s.At(k) != r {
				t.Fatalf("op %d: after %s: region %d = %+v, model %+v", i/4, what, k, s.At(k), r)
			}
		}
	}
}

func TestSpaceModel(t *testing.T) {
	rng := rand.New(rand.NewSource(2))
	rounds := 100
	if testing.Short() {
		rounds = 10
	}
	for round := 0; round < rounds; round++ {
		ops := make([]byte, 1+4*500)
		rng.Read(ops)
		runSpace(t, ops)
	}
}

func FuzzSpace(f *testing.F) {
	f.Add([]byte{0})
	f.Add([]byte{4, 0, 10, 8, 0x30, 2, 0, 8, 3, 3, 20, 2, 0, 5, 10, 2, 1})
	f.Add([]byte{1, 1, 0, 20, 0x33, 0, 40, 4, 0x21, 4, 50, 1, 0x30, 6, 0, 30, 0xff, 0x87, 60, 3, 0x20})
	f.Add([]byte{2, 0, 255, 255, 0x13, 3, 0, 255, 0x40, 5, 128, 4, 0x50, 7, 100, 0, 0})
	f.Fuzz(func(t *testing.T, ops []byte) {
		if len(ops) > 1+4*2000 {
			ops = ops[:1+4*2000]
		}
		runSpace(t, ops)
	})
}
