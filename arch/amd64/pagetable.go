package amd64

// 4-level x86-64 page tables (Intel SDM vol. 3A §4.5): 4 KiB pages, 2 MiB pages, and 1 GiB pages
// built by someone else (resolved by Lookup, left alone otherwise).
//
// The tables live in physical frames reached through directMap. Nothing here flushes the TLB or
// loads CR3: after Unmap, Protect or UnmapRange the caller invalidates the changed addresses.
// A PageTable is not safe for concurrent use; the hardware's own A/D-bit updates are the only
// concurrent writers it tolerates (entries are written with single 8-byte stores).

// Page-table entry bits (SDM vol. 3A §4.5, tables 4-14 to 4-20).
const (
	PTEPresent      uint64 = 1 << 0
	PTEWrite        uint64 = 1 << 1
	PTEUser         uint64 = 1 << 2
	PTEWriteThrough uint64 = 1 << 3
	PTECacheDisable uint64 = 1 << 4
	PTEAccessed     uint64 = 1 << 5
	PTEDirty        uint64 = 1 << 6
	PTEHuge         uint64 = 1 << 7 // PS: a 2 MiB page in a PDE, 1 GiB in a PDPTE (PAT in a PTE)
	PTEGlobal       uint64 = 1 << 8
	PTENoExec       uint64 = 1 << 63 // XD: honoured when EFER.NXE is set
)

const (
	pteAddr      uint64 = 0x000f_ffff_ffff_f000 // bits 51:12: a table or a 4 KiB frame
	pteAddr2M    uint64 = 0x000f_ffff_ffe0_0000 // bits 51:21: a 2 MiB frame (bit 12 is its PAT bit)
	pteAddr1G    uint64 = 0x000f_ffff_c000_0000 // bits 51:30: a 1 GiB frame
	ptEntries           = 512
	ptSize4K            = 1 << 12
	ptSize2M            = 1 << 21
	ptSize1G            = 1 << 30
	ptLowerEnd          = 1 << 47               // end of the lower canonical half
	ptUpperStart        = 0xffff_8000_0000_0000 // start of the upper canonical half
)

// directMap is the offset at which the page-table code reaches physical memory: physical address
// pa is read and written at pa+directMap. The kernel identity-maps RAM, so it is 0 there; tests
// point it at a buffer.
var directMap uintptr

// PageTable is one 4-level tree.
type PageTable struct {
	Root uintptr // physical address of the PML4, 4 KiB aligned
}

// Map maps the 4 KiB page at va to the frame at pa with flags (Present is implied). alloc must
// return zero-filled 4 KiB frames; it is called for missing intermediate tables, which get
// Present|Write, plus User if flags has it (the most permissive access is decided by the leaf).
// Map refuses (false) a non-canonical or unaligned va, an unaligned pa or one beyond 52 bits,
// flags with address bits or PTEHuge, a va under an existing 2 MiB or 1 GiB page, a va already
// mapped, and a failed or misaligned allocation. Tables allocated before a failure stay in place,
// empty and valid.
func (pt *PageTable) Map(va, pa uintptr, flags uint64, alloc func() (uintptr, bool)) bool {
	if va&(ptSize4K-1) != 0 || flags&PTEHuge != 0 || !leafArgsOK(va, pa, flags, pteAddr) {
		return false
	}
	pde, ok := pt.pde(va, flags, alloc)
	if !ok || *pde&PTEHuge != 0 {
		return false
	}
	table, ok := pt.descend(pde, flags, alloc)
	if !ok {
		return false
	}
	e := entry(table, va, 0)
	if *e&PTEPresent != 0 {
		return false
	}
	*e = uint64(pa) | flags | PTEPresent
	return true
}

// MapHuge maps the 2 MiB page at va to the 2 MiB frame at pa with flags (Present and PTEHuge are
// implied). It refuses what Map refuses, and a va whose 2 MiB slot already holds a page table or
// a page.
func (pt *PageTable) MapHuge(va, pa uintptr, flags uint64, alloc func() (uintptr, bool)) bool {
	if va&(ptSize2M-1) != 0 || !leafArgsOK(va, pa, flags, pteAddr2M) {
		return false
	}
	e, ok := pt.pde(va, flags, alloc)
	if !ok || *e&PTEPresent != 0 {
		return false
	}
	*e = uint64(pa) | flags | PTEPresent | PTEHuge
	return true
}

// Unmap clears the 4 KiB mapping of va and returns the frame it pointed to. It reports false for
// an address that is not mapped by a 4 KiB page.
func (pt *PageTable) Unmap(va uintptr) (pa uintptr, ok bool) {
	e, ok := pt.leaf(va)
	if !ok {
		return 0, false
	}
	pa = uintptr(*e & pteAddr)
	*e = 0
	return pa, true
}

// Lookup translates va: the physical address it maps to (with va's offset in the page), and the
// flags of the entry that maps it (PTEHuge set for 2 MiB and 1 GiB pages).
func (pt *PageTable) Lookup(va uintptr) (pa uintptr, flags uint64, ok bool) {
	if !canonical(va) || pt.Root&(ptSize4K-1) != 0 {
		return 0, 0, false
	}
	table := pt.Root
	for level := 3; level >= 0; level-- {
		e := *entry(table, va, level)
		if e&PTEPresent == 0 {
			return 0, 0, false
		}
		switch {
		case level == 0:
			return uintptr(e&pteAddr) | va&(ptSize4K-1), e &^ pteAddr, true
		case level == 1 && e&PTEHuge != 0:
			return uintptr(e&pteAddr2M) | va&(ptSize2M-1), e &^ pteAddr, true
		case level == 2 && e&PTEHuge != 0:
			return uintptr(e&pteAddr1G) | va&(ptSize1G-1), e &^ pteAddr, true
		}
		table = uintptr(e & pteAddr)
	}
	return 0, 0, false
}

// Protect replaces the flags of the present 4 KiB mapping of va (Present is implied; Accessed and
// Dirty are replaced too). Intermediate entries are widened if flags needs it (User, or execution
// under an entry with NoExec). It refuses flags with address bits or PTEHuge.
func (pt *PageTable) Protect(va uintptr, flags uint64) bool {
	if flags&(pteAddr|PTEHuge) != 0 {
		return false
	}
	e, ok := pt.leaf(va)
	if !ok {
		return false
	}
	table := pt.Root
	for level := 3; level > 0; level-- {
		ue := entry(table, va, level)
		widen(ue, flags)
		table = uintptr(*ue & pteAddr)
	}
	*e = *e&pteAddr | flags | PTEPresent
	return true
}

// UnmapRange clears every present 4 KiB mapping of a page that starts in [start, end), calls free
// with each frame (if free is not nil) and returns how many it cleared. It steps over missing
// tables a whole table at a time, so a 512 MiB reservation with a few pages populated costs a few
// hundred entry reads. 2 MiB and 1 GiB pages in the range are left alone; so are the now empty
// tables.
func (pt *PageTable) UnmapRange(start, end uintptr, free func(pa uintptr)) int {
	if pt.Root&(ptSize4K-1) != 0 {
		return 0
	}
	n := 0
	va := (start + ptSize4K - 1) &^ (ptSize4K - 1)
	if va < start {
		return 0 // start rounds past the top of the address space
	}
	for va < end {
		if !canonical(va) {
			va = ptUpperStart
			continue
		}
		// Find the page table holding va, or how far the missing table lets us skip.
		table, skip := pt.Root, uintptr(0)
		for level := 3; level > 0 && skip == 0; level-- {
			e := *entry(table, va, level)
			if e&PTEPresent == 0 || e&PTEHuge != 0 {
				skip = ptSize4K << (9 * level)
			}
			table = uintptr(e & pteAddr)
		}
		if skip != 0 {
			next := (va | (skip - 1)) + 1
			if next == 0 {
				break // past the top of the address space
			}
			va = next
			continue
		}
		for i := (va >> 12) % ptEntries; i < ptEntries && va < end; i++ {
			e := entryAt(table, i)
			if *e&PTEPresent != 0 {
				pa := uintptr(*e & pteAddr)
				*e = 0
				n++
				if free != nil {
					free(pa)
				}
			}
			va += ptSize4K
			if va == 0 {
				return n // wrapped past the top of the address space
			}
		}
	}
	return n
}

// pde returns the page-directory entry for va, creating the PDPT and PD above it with alloc and
// widening the PML4E and PDPTE for a leaf with flags. It fails on a non-canonical va, a 1 GiB
// page over va, or an allocation failure.
func (pt *PageTable) pde(va uintptr, flags uint64, alloc func() (uintptr, bool)) (*uint64, bool) {
	if pt.Root&(ptSize4K-1) != 0 {
		return nil, false
	}
	table := pt.Root
	for level := 3; level >= 2; level-- {
		e := entry(table, va, level)
		if *e&PTEPresent != 0 && *e&PTEHuge != 0 {
			return nil, false
		}
		next, ok := pt.descend(e, flags, alloc)
		if !ok {
			return nil, false
		}
		table = next
	}
	return entry(table, va, 1), true
}

// descend returns the table that the non-huge entry e points to, first creating it with alloc if
// e is not present, and widens e for a leaf with flags.
func (pt *PageTable) descend(e *uint64, flags uint64, alloc func() (uintptr, bool)) (uintptr, bool) {
	if *e&PTEPresent == 0 {
		frame, ok := alloc()
		if !ok || frame&(ptSize4K-1) != 0 || uint64(frame)&^pteAddr != 0 {
			return 0, false
		}
		*e = uint64(frame) | PTEPresent | PTEWrite | flags&PTEUser
		return frame, true
	}
	widen(e, flags)
	return uintptr(*e & pteAddr), true
}

// leaf returns the present 4 KiB leaf entry that maps va.
func (pt *PageTable) leaf(va uintptr) (*uint64, bool) {
	if !canonical(va) || pt.Root&(ptSize4K-1) != 0 {
		return nil, false
	}
	table := pt.Root
	for level := 3; level > 0; level-- {
		e := *entry(table, va, level)
		if e&PTEPresent == 0 || e&PTEHuge != 0 {
			return nil, false
		}
		table = uintptr(e & pteAddr)
	}
	e := entry(table, va, 0)
	return e, *e&PTEPresent != 0
}

// widen makes the intermediate entry e allow at least what a leaf with flags allows: writes
// (always), user access (if flags has User), execution (if flags lacks NoExec). It stores only
// when something changes.
func widen(e *uint64, flags uint64) {
	v := *e | PTEWrite | flags&PTEUser
	if flags&PTENoExec == 0 {
		v &^= PTENoExec
	}
	if v != *e {
		*e = v
	}
}

// leafArgsOK checks what Map and MapHuge share: a canonical va, a pa that addrMask keeps whole
// (aligned, below 2^52), and flags free of address bits.
func leafArgsOK(va, pa uintptr, flags, addrMask uint64) bool {
	return canonical(va) && uint64(pa)&^addrMask == 0 && flags&pteAddr == 0
}

// canonical reports whether va is a canonical 48-bit address (bits 63:47 all equal).
func canonical(va uintptr) bool { return va < ptLowerEnd || va >= ptUpperStart }

// entry returns the entry for va in table, a table at level (3: PML4, 2: PDPT, 1: PD, 0: PT).
func entry(table, va uintptr, level int) *uint64 {
	return entryAt(table, va>>(12+9*uint(level))%ptEntries)
}

// entryAt returns entry i of the table at physical address table.
func entryAt(table, i uintptr) *uint64 { return (*uint64)(ptr(table + directMap + i*8)) }
