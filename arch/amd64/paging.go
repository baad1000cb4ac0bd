package amd64

// TEMPORARY: minimal 4-level page tables until pagetable.go lands.

const (
	PTEPresent      uint64 = 1 << 0
	PTEWrite        uint64 = 1 << 1
	PTEUser         uint64 = 1 << 2
	PTEWriteThrough uint64 = 1 << 3
	PTECacheDisable uint64 = 1 << 4
	PTEAccessed     uint64 = 1 << 5
	PTEDirty        uint64 = 1 << 6
	PTEHuge         uint64 = 1 << 7
	PTEGlobal       uint64 = 1 << 8
	PTENoExec       uint64 = 1 << 63
	pteAddr         uint64 = 0x000f_ffff_ffff_f000
)

type PageTable struct{ Root uintptr }

func pte(table uintptr, i uintptr) *uint64 { return (*uint64)(ptr(table + i*8)) }

func (pt *PageTable) walk(va uintptr, levels int, alloc func() (uintptr, bool)) *uint64 {
	table := pt.Root
	for level := 3; level > 3-levels; level-- {
		e := pte(table, va>>(12+9*uint(level))&511)
		if *e&PTEPresent == 0 {
			if alloc == nil {
				return nil
			}
			pa, ok := alloc()
			if !ok {
				return nil
			}
			*e = uint64(pa) | PTEPresent | PTEWrite
		} else if *e&PTEHuge != 0 {
			return nil
		}
		table = uintptr(*e & pteAddr)
	}
	return pte(table, va>>(12+9*uint(3-levels))&511)
}

func (pt *PageTable) Map(va, pa uintptr, flags uint64, alloc func() (uintptr, bool)) bool {
	e := pt.walk(va, 3, alloc)
	if e == nil {
		return false
	}
	*e = uint64(pa) | flags | PTEPresent
	return true
}

func (pt *PageTable) MapHuge(va, pa uintptr, flags uint64, alloc func() (uintptr, bool)) bool {
	e := pt.walk(va, 2, alloc)
	if e == nil {
		return false
	}
	*e = uint64(pa) | flags | PTEPresent | PTEHuge
	return true
}

func (pt *PageTable) Lookup(va uintptr) (uintptr, uint64, bool) {
	table := pt.Root
	for level := 3; level >= 0; level-- {
		e := *pte(table, va>>(12+9*uint(level))&511)
		if e&PTEPresent == 0 {
			return 0, 0, false
		}
		if level == 0 || (level == 1 && e&PTEHuge != 0) {
			return uintptr(e & pteAddr), e &^ pteAddr, true
		}
		table = uintptr(e & pteAddr)
	}
	return 0, 0, false
}

func (pt *PageTable) Protect(va uintptr, flags uint64) bool {
	e := pt.walk(va, 3, nil)
	if e == nil || *e&PTEPresent == 0 {
		return false
	}
	*e = *e&pteAddr | flags | PTEPresent
	return true
}

func (pt *PageTable) UnmapRange(start, end uintptr, free func(pa uintptr)) int {
	n := 0
	for va := start; va < end; {
		e := pt.walk(va, 3, nil)
		if e == nil {
			va = (va + 2<<20) &^ (2<<20 - 1)
			continue
		}
		if *e&PTEPresent != 0 {
			free(uintptr(*e & pteAddr))
			*e = 0
			n++
		}
		va += 4096
	}
	return n
}
