//go:build !unitrace_host

package core

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

// identFlags are the identity map's flags at va: uncached over the MMIO hole, cached elsewhere.
func identFlags(va uintptr) uint64 {
	if va >= mmioStart && va < mmioEnd {
		return pteMMIO
	}
	return pteKernel
}

// switchPageTables makes the tables just built the CPU's.
func switchPageTables() { amd64.LoadPageTable(kpt.Root) }

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

func ArchMapUser(va, pa uintptr, prot uint32) bool { return kpt.Map(va, pa, pteFor(prot), AllocFrame) }

func ArchWritable(flags uint64) bool { return flags&amd64.PTEWrite != 0 }

// FlushTLB drops stale translations after mappings were removed or narrowed: on this CPU, and
// on every other CPU by a cross-CPU request (an x86 TLB flush is local), which returns once each
// has flushed. The caller holds the kernel lock; freed frames are handed out again only under
// it, so none is reused while another CPU may still reach it.
func FlushTLB() {
	amd64.FlushTLB()
	if OnlineCPUs() > 1 {
		CrossCall(xcallFlushTLB, 0)
		shootdowns++
	}
}
