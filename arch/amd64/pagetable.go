package amd64

import "github.com/unitrace/unitrace/arch/pagetable"

// 4-level x86-64 paging (Intel SDM vol. 3A §4.5): the entry format the walker in arch/pagetable
// works with, and PageTable, one tree. 4 KiB pages, 2 MiB pages, and 1 GiB pages built by
// someone else (resolved by Lookup, left alone otherwise).
//
// Nothing here flushes the TLB or loads CR3: after Unmap, Protect or UnmapRange the caller
// invalidates the changed addresses. A PageTable is not safe for concurrent use; the hardware's
// own A/D-bit updates are the only concurrent writers it tolerates (entries are written with
// single 8-byte stores).

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

// pteAddr is the address field of every entry, bits 51:12 (M = 52, the architectural maximum
// physical-address width; SDM vol. 3A tables 4-15 to 4-20): a table or a 4 KiB frame. A 2 MiB
// page uses bits 51:21 of it (bit 12 is its PAT bit), a 1 GiB page bits 51:30.
const pteAddr uint64 = 0x000f_ffff_ffff_f000

// ptFormat is how 4-level paging encodes its entries (TestPageTableFormat checks it).
var ptFormat = pagetable.Format{
	// P (bit 0) makes every entry present; in a PML4E it must point to a PDPT (PS is reserved
	// there), in a PDPTE or PDE PS (bit 7) tells a page from a table (SDM tables 4-15 to 4-19).
	Valid:   PTEPresent,
	DirMask: PTEPresent | PTEHuge,
	Table:   PTEPresent,
	Block:   PTEPresent | PTEHuge,
	// In a PTE bit 7 is PAT: every present PTE maps a page (table 4-20).
	PageMask: PTEPresent,
	Page:     PTEPresent,
	Addr:     pteAddr,

	// Callers pass any attribute bits (R/W, U/S, PWT, PCD, A, D, G, PAT, XD, the ignored bits);
	// PS is the walker's: a page must not have it, a 2 MiB page gets it.
	PageFlags:  ^(pteAddr | PTEHuge),
	BlockFlags: ^pteAddr,
	PageSet:    PTEPresent,
	BlockSet:   PTEPresent | PTEHuge,

	// Access is the most restrictive of all levels' R/W, U/S and XD (SDM §4.6), so the tables
	// above a leaf are writable, user-accessible if the leaf is, and executable if it is: the
	// leaf decides.
	TableSet:   PTEPresent | PTEWrite,
	TableCopy:  PTEUser,
	TableClear: PTENoExec,

	// Canonical 48-bit addresses: bits 63:47 all equal (SDM vol. 1 §3.3.7.1).
	LowEnd:    1 << 47,
	HighStart: 0xffff_8000_0000_0000,
}

// PageTable is one 4-level tree. Its methods are the walker's (pagetable.Format) in this format.
type PageTable struct {
	Root uintptr // physical address of the PML4, 4 KiB aligned
}

// Map maps the 4 KiB page at va to the frame at pa with flags (Present is implied; PTEHuge is
// refused). Missing tables get Present|Write, plus User if flags has it; existing ones on the
// way gain Write and User and lose NoExec as the leaf needs. See pagetable.Format.Map.
func (pt *PageTable) Map(va, pa uintptr, flags uint64, alloc func() (uintptr, bool)) bool {
	return ptFormat.Map(pt.Root, va, pa, flags, alloc)
}

// MapHuge maps the 2 MiB page at va to the 2 MiB frame at pa with flags (Present and PTEHuge are
// implied). See pagetable.Format.MapHuge.
func (pt *PageTable) MapHuge(va, pa uintptr, flags uint64, alloc func() (uintptr, bool)) bool {
	return ptFormat.MapHuge(pt.Root, va, pa, flags, alloc)
}

// Unmap clears the 4 KiB mapping of va and returns its frame. See pagetable.Format.Unmap.
func (pt *PageTable) Unmap(va uintptr) (pa uintptr, ok bool) { return ptFormat.Unmap(pt.Root, va) }

// Lookup translates va: the physical address and the entry's flags (PTEHuge set for 2 MiB and
// 1 GiB pages). See pagetable.Format.Lookup.
func (pt *PageTable) Lookup(va uintptr) (pa uintptr, flags uint64, ok bool) {
	return ptFormat.Lookup(pt.Root, va)
}

// Protect replaces the flags of the 4 KiB mapping of va (Present is implied; Accessed and Dirty
// are replaced too), widening the tables above it as Map does. See pagetable.Format.Protect.
func (pt *PageTable) Protect(va uintptr, flags uint64) bool {
	return ptFormat.Protect(pt.Root, va, flags)
}

// UnmapRange clears the 4 KiB mappings of pages that start in [start, end), handing each frame
// to free, and returns how many it cleared. See pagetable.Format.UnmapRange.
func (pt *PageTable) UnmapRange(start, end uintptr, free func(pa uintptr)) int {
	return ptFormat.UnmapRange(pt.Root, start, end, free)
}
