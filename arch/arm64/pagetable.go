package arm64

import "github.com/unitrace/unitrace/arch/pagetable"

// VMSAv8-64 stage 1 translation tables (Arm ARM D8.3) with a 4 KiB granule and a 48-bit VA: the
// descriptor format the walker in arch/pagetable works with, and PageTable, one tree. Four
// levels, 4 KiB pages at level 3, 2 MiB blocks at level 2, and 1 GiB blocks built by someone
// else (the boot map; resolved by Lookup, left alone otherwise). The walker counts levels from
// the root down as on amd64: its level 3 is the Arm ARM's level 0, its 0 the Arm ARM's 3.
//
// Nothing here invalidates the TLB or synchronizes with the table walker: after any change the
// caller runs SyncPageTables (new entries) or FlushTLB / FlushPage (changed or removed entries).
// Changing the output address or memory type of a live entry needs break-before-make (Arm ARM
// D8.16.1): Unmap, flush, Map. A PageTable is not safe for concurrent use.

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
	pteAddr      uint64 = 0x0000_ffff_ffff_f000 // bits 47:12: a table or a 4 KiB page (2 MiB blocks: 47:21, 1 GiB: 47:30)
	pteType      uint64 = PTEValid | PTETable
	pteLeafFlags uint64 = 0x07f0_0000_0000_0ffc // bits 58:52 (upper attributes, software) and 11:2 (lower attributes)
	ptVAEnd             = 1 << 48               // TTBR0_EL1 with T0SZ = 16 covers [0, 2^48)
)

// ptFormat is how VMSAv8-64 encodes its descriptors (TestPageTableFormat checks it).
var ptFormat = pagetable.Format{
	// Bits 1:0 (D8.3.1): 0bx0 invalid; at levels 0-2 0b11 a table and 0b01 a block (a block at
	// level 0 is invalid with a 4 KiB granule); at level 3 0b11 a page, 0b01 reserved.
	Valid:    PTEValid,
	DirMask:  pteType,
	Table:    pteType,
	Block:    PTEValid,
	PageMask: pteType,
	Page:     pteType,
	Addr:     pteAddr,

	// Callers pass the lower and upper attributes (AttrIndx, AP, SH, AF, nG, Contiguous, PXN,
	// UXN, the software bits), nothing else: not bits 51:48 (the output address's top without
	// FEAT_LPA; GP and DBM, which nothing here uses). AF is implied, as nothing here handles
	// access-flag faults.
	PageFlags:  pteLeafFlags | PTEValid,
	BlockFlags: pteLeafFlags | PTEValid,
	PageSet:    pteType | PTEAccessed,
	BlockSet:   PTEValid | PTEAccessed,

	// Table descriptors carry no restrictions (APTable, UXNTable, PXNTable and NSTable are 0,
	// D8.3.1.1): the leaf decides, so nothing needs widening.
	TableSet: pteType,

	LowEnd: ptVAEnd,
}

// PageTable is one 4-level tree, for TTBR0_EL1. Its methods are the walker's
// (pagetable.Format) in this format.
type PageTable struct {
	Root uintptr // physical address of the level-0 table, 4 KiB aligned
}

// Map maps the 4 KiB page at va to the frame at pa with the attributes in flags (AttrIndx, AP,
// SH, nG, PXN/UXN, software bits; Valid, the page type and the access flag are implied).
// Missing tables' descriptors carry no restrictions. See pagetable.Format.Map.
func (pt *PageTable) Map(va, pa uintptr, flags uint64, alloc func() (uintptr, bool)) bool {
	return ptFormat.Map(pt.Root, va, pa, flags, alloc)
}

// MapHuge maps the 2 MiB block at va to the 2 MiB frame at pa, like Map. See
// pagetable.Format.MapHuge.
func (pt *PageTable) MapHuge(va, pa uintptr, flags uint64, alloc func() (uintptr, bool)) bool {
	return ptFormat.MapHuge(pt.Root, va, pa, flags, alloc)
}

// Unmap clears the 4 KiB mapping of va and returns its frame. See pagetable.Format.Unmap.
func (pt *PageTable) Unmap(va uintptr) (pa uintptr, ok bool) { return ptFormat.Unmap(pt.Root, va) }

// Lookup translates va: the physical address and the descriptor's flags (PTETable is clear for
// a block). See pagetable.Format.Lookup.
func (pt *PageTable) Lookup(va uintptr) (pa uintptr, flags uint64, ok bool) {
	return ptFormat.Lookup(pt.Root, va)
}

// Protect replaces the attributes of the 4 KiB mapping of va (as Map takes them). Only
// permission changes (AP, PXN/UXN) are safe on a live entry without break-before-make. See
// pagetable.Format.Protect.
func (pt *PageTable) Protect(va uintptr, flags uint64) bool {
	return ptFormat.Protect(pt.Root, va, flags)
}

// UnmapRange clears the 4 KiB mappings of pages that start in [start, end), handing each frame
// to free, and returns how many it cleared. See pagetable.Format.UnmapRange.
func (pt *PageTable) UnmapRange(start, end uintptr, free func(pa uintptr)) int {
	return ptFormat.UnmapRange(pt.Root, start, end, free)
}
