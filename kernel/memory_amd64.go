package kernel

import (
	"github.com/unitrace/unitrace/arch/amd64"
	"github.com/unitrace/unitrace/kernel/mm"
)

// The amd64 page tables: one 4-level tree for the whole machine.

var kpt amd64.PageTable

const (
	pteKernel = amd64.PTEPresent | amd64.PTEWrite | amd64.PTEGlobal
	pteMMIO   = pteKernel | amd64.PTECacheDisable | amd64.PTEWriteThrough
	mmioStart = 0xe000_0000 // PCI hole: MMIO only, never RAM, on pc, q35 and microvm
	mmioEnd   = 0x1_0000_0000
)

// buildKernelPageTables identity-maps [nullGuard, identEnd): 4 KiB pages in the first 2 MiB
// (so [0, nullGuard) can stay unmapped), 2 MiB pages above, uncached over the MMIO hole. Then it
// loads CR3.
func buildKernelPageTables() bool {
	root, ok := frames.Alloc()
	if !ok {
		return false
	}
	kpt.Root = root
	for va := uintptr(nullGuard); va < hugePage; va += pageSize {
		if !kpt.Map(va, va, pteKernel, allocFrame) {
			return false
		}
	}
	for va := uintptr(hugePage); va < identEnd; va += hugePage {
		flags := uint64(pteKernel)
		if va >= mmioStart && va < mmioEnd {
			flags = pteMMIO
		}
		if !kpt.MapHuge(va, va, flags, allocFrame) {
			return false
		}
	}
	amd64.LoadPageTable(kpt.Root)
	return true
}

// pteFor returns the leaf flags of a user page with protection prot. Ring 0 ignores the U/S
// bit; CR0.WP makes the R/W bit bind the kernel too, and EFER.NXE the NX bit.
func pteFor(prot uint32) uint64 {
	f := uint64(amd64.PTEPresent)
	if prot&mm.ProtWrite != 0 {
		f |= amd64.PTEWrite
	}
	if prot&mm.ProtExec == 0 {
		f |= amd64.PTENoExec
	}
	return f
}

func archMapUser(va, pa uintptr, prot uint32) bool { return kpt.Map(va, pa, pteFor(prot), allocFrame) }

func archLookup(va uintptr) (pa uintptr, flags uint64, ok bool) { return kpt.Lookup(va) }

func archWritable(flags uint64) bool { return flags&amd64.PTEWrite != 0 }

// ptUnmapRange, ptProtect and flushTLB are the page-table steps memory.go's archUnmapRange and
// archProtectRange take.
func ptUnmapRange(start, end uintptr) int { return kpt.UnmapRange(start, end, freeFrame) }
func ptProtect(va uintptr, prot uint32)   { kpt.Protect(va, pteFor(prot)) }

// flushTLB drops stale translations after mappings were removed or narrowed: on this CPU, and
// on every other CPU by a cross-CPU request (an x86 TLB flush is local), which returns once each
// has flushed. The caller holds the kernel lock; freed frames are handed out again only under
// it, so none is reused while another CPU may still reach it.
func flushTLB() {
	amd64.FlushTLB()
	if onlineCPUs() > 1 {
		crossCall(xcallFlushTLB, 0)
		shootdowns++
	}
}
