//go:build !unitrace_host

package core

// The page-table steps of the guest: the arch's tables (kpt, memory_<arch>.go) through
// arch/pagetable's walker. A host process has none: pagetable_host.go stands in.

// buildKernelPageTables identity-maps [nullGuard, identEnd) with the arch's flags (identFlags):
// 4 KiB pages in the first 2 MiB, so [0, nullGuard) stays unmapped and nil dereferences fault,
// 2 MiB pages above. Then it switches to the tables. kpt is each arch's PageTable; both have
// the same methods.
func buildKernelPageTables() bool {
	root, ok := Frames.Alloc()
	if !ok {
		return false
	}
	kpt.Root = root
	for va := uintptr(nullGuard); va < hugePage; va += PageSize {
		if !kpt.Map(va, va, identFlags(va), AllocFrame) {
			return false
		}
	}
	for va := uintptr(hugePage); va < IdentEnd; va += hugePage {
		if !kpt.MapHuge(va, va, identFlags(va), AllocFrame) {
			return false
		}
	}
	switchPageTables()
	return true
}

// ArchLookup, ptUnmapRange and ptProtect are the page-table steps of FaultIn, ArchUnmapRange
// and ArchProtectRange (FlushTLB, per arch, follows the last two).
func ArchLookup(va uintptr) (pa uintptr, flags uint64, ok bool) { return kpt.Lookup(va) }
func ptUnmapRange(start, end uintptr) int                       { return kpt.UnmapRange(start, end, freeUnmapped) }
func ptProtect(va uintptr, prot uint32)                         { kpt.Protect(va, pteFor(prot)) }
func PtUnmap(va uintptr) (pa uintptr, ok bool)                  { return kpt.Unmap(va) }
