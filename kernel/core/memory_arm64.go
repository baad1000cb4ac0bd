//go:build !unitrace_host

package core

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

// identFlags are the identity map's flags at va: device memory below RAM (so also the first
// 2 MiB, which buildKernelPageTables maps with 4 KiB pages), normal write-back memory from RAM's
// start.
func identFlags(va uintptr) uint64 {
	if va < ramStart {
		return pteMMIO
	}
	return pteKernel
}

// switchPageTables makes the tables just built the CPU's: stores visible to the walker first,
// then TTBR0, then no stale translation.
func switchPageTables() {
	arm64.SyncPageTables()
	arm64.LoadPageTable(kpt.Root)
	arm64.FlushTLB()
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

func ArchMapUser(va, pa uintptr, prot uint32) bool {
	if !kpt.Map(va, pa, pteFor(prot), AllocFrame) {
		return false
	}
	arm64.SyncPageTables()
	return true
}

func ArchWritable(flags uint64) bool { return flags&arm64.PTEReadOnly == 0 }

// FlushTLB drops stale translations after mappings were removed or narrowed, on every CPU: the
// TLBI is broadcast to the inner-shareable domain, so no IPI is needed.
func FlushTLB() {
	arm64.FlushTLB()
	if OnlineCPUs() > 1 {
		shootdowns++
	}
}
