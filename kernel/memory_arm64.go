package kernel

import (
	"github.com/unitrace/unitrace/arch/arm64"
	"github.com/unitrace/unitrace/kernel/mm"
)

// The arm64 page tables: one 4-level tree (TTBR0_EL1) for the whole machine, as on amd64.

var kpt arm64.PageTable

const (
	pteKernel = arm64.PTEValid | arm64.PTEKernel
	pteMMIO   = arm64.PTEValid | arm64.PTEMMIO
	ramStart  = 1 << 30 // QEMU virt: MMIO below 1 GiB, RAM from there
)

// buildKernelPageTables identity-maps [nullGuard, identEnd): device memory below RAM (4 KiB
// pages in the first 2 MiB, so [0, nullGuard) stays unmapped, then 2 MiB blocks), normal
// write-back memory from RAM's start. Then it switches to the tables.
func buildKernelPageTables() bool {
	root, ok := frames.Alloc()
	if !ok {
		return false
	}
	kpt.Root = root
	for va := uintptr(nullGuard); va < hugePage; va += pageSize {
		if !kpt.Map(va, va, pteMMIO, allocFrame) {
			return false
		}
	}
	for va := uintptr(hugePage); va < identEnd; va += hugePage {
		flags := uint64(pteKernel)
		if va < ramStart {
			flags = pteMMIO
		}
		if !kpt.MapHuge(va, va, flags, allocFrame) {
			return false
		}
	}
	arm64.SyncPageTables()
	arm64.LoadPageTable(kpt.Root)
	arm64.FlushTLB()
	return true
}

// pteFor returns the leaf flags of a user page with protection prot. The program runs at EL1,
// so the privileged bits bind it: read-only is AP[2], no-execute is PXN.
func pteFor(prot uint32) uint64 {
	f := uint64(pteKernel)
	if prot&mm.ProtWrite == 0 {
		f |= arm64.PTEReadOnly
	}
	if prot&mm.ProtExec == 0 {
		f |= arm64.PTENoExec
	}
	return f
}

func archMapUser(va, pa uintptr, prot uint32) bool {
	if !kpt.Map(va, pa, pteFor(prot), allocFrame) {
		return false
	}
	arm64.SyncPageTables()
	return true
}

func archLookup(va uintptr) (pa uintptr, flags uint64, ok bool) { return kpt.Lookup(va) }

func archWritable(flags uint64) bool { return flags&arm64.PTEReadOnly == 0 }

// ptUnmapRange, ptProtect and flushTLB are the page-table steps memory.go's archUnmapRange and
// archProtectRange take.
func ptUnmapRange(start, end uintptr) int { return kpt.UnmapRange(start, end, freeFrame) }
func ptProtect(va uintptr, prot uint32)   { kpt.Protect(va, pteFor(prot)) }

// flushTLB drops stale translations after mappings were removed or narrowed, on every CPU: the
// TLBI is broadcast to the inner-shareable domain, so no IPI is needed.
func flushTLB() {
	arm64.FlushTLB()
	if onlineCPUs() > 1 {
		shootdowns++
	}
}
