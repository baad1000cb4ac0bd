package mm

import (
	"math/rand"
	"testing"

	"github.com/unitrace/unitrace/kernel/abi"
)

// sharedPage is the shared-memory model's state of one page: unmapped (prot -1), anonymous
// (obj 0) or page off/PageSize of object obj.
type sharedPage struct {
	prot int
	obj  uint32
	off  uintptr
}

// TestSharedModel edits a space with anonymous and shared mappings at random and checks, after
// each edit, that every page is backed as a per-page model says (the object and its offset
// survive cuts by munmap and mprotect) and that regions are merged exactly when one continues
// the other.
func TestSharedModel(t *testing.T) {
	const lo, pages = 0x100000, 48
	hi := uintptr(lo + pages*PageSize)
	rng := rand.New(rand.NewSource(1))
	for round := 0; round < 200; round++ {
		var s Space
		s.Init(lo, hi, hi)
		model := make([]sharedPage, pages)
		for i := range model {
			model[i].prot = -1
		}
		for step := 0; step < 60; step++ {
			a := uintptr(rng.Intn(pages))
			n := uintptr(1 + rng.Intn(8))
			if a+n > pages {
				n = pages - a
			}
			start, size := lo+a*PageSize, n*PageSize
			prot := uint32(rng.Intn(4))
			switch rng.Intn(4) {
			case 0: // a shared object mapped over whatever is there
				obj := uint32(1 + rng.Intn(3))
				if _, e := s.MapShared(start, size, prot, true, obj); e != 0 {
					t.Fatalf("MapShared(%#x, %#x): errno %d", start, size, e)
				}
				for i := uintptr(0); i < n; i++ {
					model[a+i] = sharedPage{int(prot), obj, i * PageSize}
				}
			case 1:
				if _, e := s.Map(start, size, prot, true); e != 0 {
					t.Fatalf("Map(%#x, %#x): errno %d", start, size, e)
				}
				for i := uintptr(0); i < n; i++ {
					model[a+i] = sharedPage{int(prot), 0, 0}
				}
			case 2:
				if e := s.Unmap(start, size); e != 0 {
					t.Fatalf("Unmap(%#x, %#x): errno %d", start, size, e)
				}
				for i := uintptr(0); i < n; i++ {
					model[a+i] = sharedPage{prot: -1}
				}
			case 3:
				e := s.Protect(start, size, prot)
				mapped := true
				for i := uintptr(0); i < n; i++ {
					mapped = mapped && model[a+i].prot >= 0
				}
				if mapped != (e == 0) || !mapped && e != abi.ENOMEM {
					t.Fatalf("Protect(%#x, %#x) over mapped=%v: errno %d", start, size, mapped, e)
				}
				for i := uintptr(0); e == 0 && i < n; i++ {
					model[a+i].prot = int(prot)
				}
			}
			checkShared(t, &s, model, lo)
		}
	}
}

func checkShared(t *testing.T, s *Space, model []sharedPage, lo uintptr) {
	t.Helper()
	for i, want := range model {
		va := lo + uintptr(i)*PageSize
		r, ok := s.Find(va)
		if !ok {
			if want.prot >= 0 {
				t.Fatalf("page %#x: unmapped, want %+v", va, want)
			}
			continue
		}
		got := sharedPage{int(r.Prot), r.Shared, 0}
		if r.Shared != 0 {
			got.off = r.Off + (va - r.Start)
		} else if r.Off != 0 {
			t.Fatalf("anonymous region %+v has an offset", r)
		}
		if got != want {
			t.Fatalf("page %#x: %+v (region %+v), want %+v", va, got, r, want)
		}
	}
	for i := 1; i < s.Len(); i++ {
		if s.At(i - 1).joins(s.At(i)) {
			t.Fatalf("regions %+v and %+v should be one", s.At(i-1), s.At(i))
		}
	}
}

// TestSharedRefusals: a shared mapping is never grown or moved by mremap (EINVAL) but shrinks in
// place; object 0 is not an object; mprotect over shared memory needs room for two regions.
func TestSharedRefusals(t *testing.T) {
	var s Space
	s.Init(0x100000, 0x200000, 0x200000)
	if _, e := s.MapShared(0, PageSize, ProtRead, false, 0); e != abi.EINVAL {
		t.Fatalf("MapShared of object 0: errno %d, want EINVAL", e)
	}
	addr, e := s.MapShared(0, 4*PageSize, ProtRead|ProtWrite, false, 7)
	if e != 0 {
		t.Fatal(e)
	}
	if _, e := s.Remap(addr, 4*PageSize, 8*PageSize, RemapMayMove, 0); e != abi.EINVAL {
		t.Fatalf("growing shared memory: errno %d, want EINVAL", e)
	}
	if _, e := s.Remap(addr, 4*PageSize, 4*PageSize, RemapMayMove|RemapFixed, addr+16*PageSize); e != abi.EINVAL {
		t.Fatalf("moving shared memory: errno %d, want EINVAL", e)
	}
	if r, e := s.Remap(addr, 4*PageSize, 2*PageSize, 0, 0); e != 0 || r.Clear != addr+2*PageSize {
		t.Fatalf("shrinking shared memory: %+v, errno %d", r, e)
	}
	if r, _ := s.Find(addr + PageSize); r.Shared != 7 || r.End != addr+2*PageSize {
		t.Fatalf("after the shrink: %+v", r)
	}
	s.limit = s.Len() + 1
	if e := s.Protect(addr+PageSize, PageSize, ProtRead); e != abi.ENOMEM {
		t.Fatalf("Protect with one free slot: errno %d, want ENOMEM", e)
	}
	if r, _ := s.Find(addr); r.Prot != ProtRead|ProtWrite || r.End != addr+2*PageSize {
		t.Fatalf("a refused Protect changed the space: %+v", r)
	}
}
