package arm64

// VMSAv8-64 stage 1 translation tables (Arm ARM D8.3) with a 4 KiB granule and a 48-bit VA:
// four levels, 4 KiB pages at level 3, 2 MiB blocks at level 2, and 1 GiB blocks built by
// someone else (the boot map; resolved by Lookup, left alone otherwise).
//
// The tables live in physical frames reached through directMap. Nothing here invalidates the
// TLB or synchronizes with the table walker: after any change the caller runs SyncPageTables
// (new entries) or FlushTLB / FlushPage (changed or removed entries). Changing the output
// address or memory type of a live entry needs break-before-make (Arm ARM D8.16.1): Unmap,
// flush, Map. A PageTable is not safe for concurrent use.
//
// The loops count levels as arch/amd64's do, so the two read the same: 3 is the root (the Arm
// ARM's level 0), 2 holds 1 GiB blocks (its level 1), 1 holds 2 MiB blocks (its level 2), 0 is
// the page table (its level 3).

// Descriptor bits (Arm ARM D8.3.1 and D8.3.2; stage 1, EL1&0 regime).
const (
	PTEValid          uint64 = 1 << 0
	PTETable          uint64 = 1 << 1  // levels 0-2: a table (else a block); level 3: must be set (a page)
	PTEAttrDevice     uint64 = 0 << 2  // AttrIndx 0: Device-nGnRnE (mairValue)
	PTEAttrNormal     uint64 = 1 << 2  // AttrIndx 1: Normal write-back
	PTEAttrNormalNC   uint64 = 2 << 2  // AttrIndx 2: Normal non-cacheable
	PTEUser           uint64 = 1 << 6  // AP[1]: EL0 may access (never wanted: EL0-writable memory is PXN at EL1)
	PTEReadOnly       uint64 = 1 << 7  // AP[2]: no writes
	PTEInnerShareable uint64 = 3 << 8  // SH: inner shareable (Device memory ignores SH)
	PTEAccessed       uint64 = 1 << 10 // AF: without it the first access faults (no hardware AF updates here)
	PTENotGlobal      uint64 = 1 << 11 // nG: tagged with the ASID
	PTEContiguous     uint64 = 1 << 52
	PTEPXN            uint64 = 1 << 53 // privileged execute-never: EL1 (and so every Go thread) cannot run it
	PTEUXN            uint64 = 1 << 54 // unprivileged execute-never
	PTENoExec                = PTEPXN | PTEUXN

	// PTEKernel is RAM the kernel and the program read, write and run; PTEMMIO is device memory.
	PTEKernel = PTEAttrNormal | PTEInnerShareable | PTEAccessed
	PTEMMIO   = PTEAttrDevice | PTEAccessed | PTENoExec
)

const (
	pteAttrIndx  uint64 = 7 << 2
	pteAddr      uint64 = 0x0000_ffff_ffff_f000 // bits 47:12: a table or a 4 KiB page
	pteAddr2M    uint64 = 0x0000_ffff_ffe0_0000 // bits 47:21: a 2 MiB block
	pteAddr1G    uint64 = 0x0000_ffff_c000_0000 // bits 47:30: a 1 GiB block
	pteType      uint64 = PTEValid | PTETable
	pteLeafFlags uint64 = 0x07f0_0000_0000_0ffc // bits 58:52 (upper attributes, software) and 11:2
	ptEntries           = 512
	ptSize4K            = 1 << 12
	ptSize2M            = 1 << 21
	ptSize1G            = 1 << 30
	ptVAEnd             = 1 << 48 // TTBR0_EL1 with T0SZ = 16 covers [0, 2^48)
)

// directMap is the offset at which the page-table code reaches physical memory: physical address
// pa is read and written at pa+directMap. The kernel identity-maps RAM, so it is 0 there; tests
// point it at a buffer.
var directMap uintptr

// PageTable is one 4-level tree, for TTBR0_EL1.
type PageTable struct {
	Root uintptr // physical address of the level-0 table, 4 KiB aligned
}

// Map maps the 4 KiB page at va to the frame at pa with the attributes in flags (AttrIndx, AP,
// SH, nG, PXN/UXN, software bits; Valid, the page type and the access flag are implied, as
// nothing here handles access-flag faults). alloc must return zero-filled 4 KiB frames; it is
// called for missing intermediate tables, whose descriptors carry no restrictions (APTable,
// XNTable and PXNTable are 0: the leaf decides). Map refuses (false) a va at or beyond 2^48, an
// unaligned va or pa, a pa beyond 48 bits, flags with address or type bits, a va under an
// existing block, a va already mapped, and a failed or misaligned allocation. Tables allocated
// before a failure stay in place, empty and valid.
func (pt *PageTable) Map(va, pa uintptr, flags uint64, alloc func() (uintptr, bool)) bool {
	if va&(ptSize4K-1) != 0 || !leafArgsOK(va, pa, flags, pteAddr) {
		return false
	}
	table, ok := pt.walkCreate(va, 0, alloc)
	if !ok {
		return false
	}
	e := entryFor(table, va, 0)
	if *e&PTEValid != 0 {
		return false
	}
	*e = uint64(pa) | flags&pteLeafFlags | PTEAccessed | PTEValid | PTETable
	return true
}

// MapHuge maps the 2 MiB block at va (2 MiB aligned) to pa (2 MiB aligned), like Map. It refuses
// a va whose level-2 entry is already valid (a table or a block).
func (pt *PageTable) MapHuge(va, pa uintptr, flags uint64, alloc func() (uintptr, bool)) bool {
	if va&(ptSize2M-1) != 0 || !leafArgsOK(va, pa, flags, pteAddr2M) {
		return false
	}
	table, ok := pt.walkCreate(va, 1, alloc)
	if !ok {
		return false
	}
	e := entryFor(table, va, 1)
	if *e&PTEValid != 0 {
		return false
	}
	*e = uint64(pa) | flags&pteLeafFlags | PTEAccessed | PTEValid
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

// Lookup translates va: the physical address it maps to (with va's offset in the page or block),
// and the descriptor's flags (everything but the address; PTETable is clear for a block).
func (pt *PageTable) Lookup(va uintptr) (pa uintptr, flags uint64, ok bool) {
	if va >= ptVAEnd || pt.Root&(ptSize4K-1) != 0 {
		return 0, 0, false
	}
	table := pt.Root
	for level := 3; level >= 0; level-- {
		e := *entryFor(table, va, level)
		switch {
		case e&PTEValid == 0:
			return 0, 0, false
		case level == 0:
			if e&PTETable == 0 { // reserved encoding at level 3
				return 0, 0, false
			}
			return uintptr(e&pteAddr) | va&(ptSize4K-1), e &^ pteAddr, true
		case e&PTETable != 0:
			table = uintptr(e & pteAddr)
		case level == 1:
			return uintptr(e&pteAddr2M) | va&(ptSize2M-1), e &^ pteAddr, true
		case level == 2:
			return uintptr(e&pteAddr1G) | va&(ptSize1G-1), e &^ pteAddr, true
		default: // a block descriptor at level 0 is invalid with a 4 KiB granule
			return 0, 0, false
		}
	}
	return 0, 0, false
}

// Protect replaces the attributes of the valid 4 KiB mapping of va (as Map takes them). It
// refuses flags with address or type bits. Only permission changes (AP, PXN/UXN) are safe on a
// live entry without break-before-make.
func (pt *PageTable) Protect(va uintptr, flags uint64) bool {
	if !flagsOK(flags) {
		return false
	}
	e, ok := pt.leaf(va)
	if !ok {
		return false
	}
	*e = *e&pteAddr | flags&pteLeafFlags | PTEAccessed | PTEValid | PTETable
	return true
}

// UnmapRange clears every valid 4 KiB mapping of a page that starts in [start, end), calls free
// with each frame (if free is not nil) and returns how many it cleared. It steps over missing
// tables a whole table at a time, so a 512 MiB reservation with a few pages populated costs a few
// hundred entry reads. Blocks in the range are left alone; so are the now empty tables.
func (pt *PageTable) UnmapRange(start, end uintptr, free func(pa uintptr)) int {
	if pt.Root&(ptSize4K-1) != 0 {
		return 0
	}
	end = min(end, ptVAEnd)
	n := 0
	va := (start + ptSize4K - 1) &^ (ptSize4K - 1)
	if va < start {
		return 0 // start rounds past the top of the address space
	}
	for va < end {
		// Find the level-3 table holding va, or how far the missing table lets us skip.
		table, skip := pt.Root, uintptr(0)
		for level := 3; level > 0 && skip == 0; level-- {
			e := *entryFor(table, va, level)
			if e&pteType != pteType {
				skip = ptSize4K << (9 * level)
			}
			table = uintptr(e & pteAddr)
		}
		if skip != 0 {
			va = (va | (skip - 1)) + 1
			continue
		}
		for i := (va >> 12) % ptEntries; i < ptEntries && va < end; i++ {
			e := entryAt(table, i)
			if *e&PTEValid != 0 {
				pa := uintptr(*e & pteAddr)
				*e = 0
				n++
				if free != nil {
					free(pa)
				}
			}
			va += ptSize4K
		}
	}
	return n
}

// walkCreate returns the table at level stop (0: the level-3 table, 1: the level-2 table) on
// va's path, creating missing tables with alloc. It fails on a block in the way or an
// allocation failure.
func (pt *PageTable) walkCreate(va uintptr, stop int, alloc func() (uintptr, bool)) (uintptr, bool) {
	if pt.Root&(ptSize4K-1) != 0 {
		return 0, false
	}
	table := pt.Root
	for level := 3; level > stop; level-- {
		e := entryFor(table, va, level)
		if *e&PTEValid == 0 {
			frame, ok := alloc()
			if !ok || frame&(ptSize4K-1) != 0 || uint64(frame)&^pteAddr != 0 {
				return 0, false
			}
			*e = uint64(frame) | PTEValid | PTETable
		} else if *e&PTETable == 0 {
			return 0, false // a block
		}
		table = uintptr(*e & pteAddr)
	}
	return table, true
}

// leaf returns the valid level-3 page descriptor that maps va.
func (pt *PageTable) leaf(va uintptr) (*uint64, bool) {
	if va >= ptVAEnd || pt.Root&(ptSize4K-1) != 0 {
		return nil, false
	}
	table := pt.Root
	for level := 3; level > 0; level-- {
		e := *entryFor(table, va, level)
		if e&pteType != pteType {
			return nil, false
		}
		table = uintptr(e & pteAddr)
	}
	e := entryFor(table, va, 0)
	return e, *e&pteType == pteType
}

// leafArgsOK checks what Map and MapHuge share: a va inside TTBR0's range, a pa that addrMask
// keeps whole (aligned, below 2^48), and acceptable flags.
func leafArgsOK(va, pa uintptr, flags, addrMask uint64) bool {
	return va < ptVAEnd && uint64(pa)&^addrMask == 0 && flagsOK(flags)
}

// flagsOK accepts leaf attributes, plus PTEValid (implied anyway).
func flagsOK(flags uint64) bool { return flags&^(pteLeafFlags|PTEValid) == 0 }

// entryFor returns the entry for va in table, a table at level (3: the root, 0: a page table).
func entryFor(table, va uintptr, level int) *uint64 {
	return entryAt(table, va>>(12+9*uint(level))%ptEntries)
}

// entryAt returns entry i of the table at physical address table.
func entryAt(table, i uintptr) *uint64 { return (*uint64)(ptr(table + directMap + i*8)) }
