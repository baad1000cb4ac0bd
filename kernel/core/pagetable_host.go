//go:build unitrace_host

package core

import "github.com/unitrace/unitrace/kernel/mm"

// The page tables in a host process (the unitrace_host build), for host tests: there is no MMU
// to program, and the program's memory is the test's own memory at its own addresses. The
// stand-in records which pages are mapped, with which access and frame, so that the kernel's
// paths over user memory (FaultIn, UserBytes, the system calls' copies) run unchanged; a
// mapping's frame is allocated and freed as in the guest, and its bytes are not the page's.

// hostPage is one mapped page.
type hostPage struct {
	va, pa uintptr
	flags  uint64
}

const (
	hostPresent = 1 << 0
	hostWrite   = 1 << 1
	hostMaxPage = 4096
)

// HostPages are the mapped pages of the host process's stand-in tables.
var HostPages struct {
	pages [hostMaxPage]hostPage
	n     int
}

func hostFind(va uintptr) int {
	for i := 0; i < HostPages.n; i++ {
		if HostPages.pages[i].va == va {
			return i
		}
	}
	return -1
}

func buildKernelPageTables() bool { return true }

func switchPageTables() {}

func pteFor(prot uint32) uint64 {
	f := uint64(hostPresent)
	if prot&mm.ProtWrite != 0 {
		f |= hostWrite
	}
	return f
}

// ArchLookup reports whether page va is mapped, and its frame and flags.
func ArchLookup(va uintptr) (pa uintptr, flags uint64, ok bool) {
	if i := hostFind(va &^ (PageSize - 1)); i >= 0 {
		return HostPages.pages[i].pa, HostPages.pages[i].flags, true
	}
	return 0, 0, false
}

// ArchMapUser records page va as mapped with prot, on frame pa.
func ArchMapUser(va, pa uintptr, prot uint32) bool {
	if i := hostFind(va); i >= 0 {
		HostPages.pages[i].pa, HostPages.pages[i].flags = pa, pteFor(prot)
		return true
	}
	if HostPages.n == hostMaxPage {
		return false
	}
	HostPages.pages[HostPages.n] = hostPage{va, pa, pteFor(prot)}
	HostPages.n++
	return true
}

func ArchWritable(flags uint64) bool { return flags&hostWrite != 0 }

func ptUnmapRange(start, end uintptr) int {
	n := 0
	for i := 0; i < HostPages.n; {
		if p := HostPages.pages[i]; p.va >= start && p.va < end {
			freeUnmapped(p.pa)
			HostPages.n--
			HostPages.pages[i] = HostPages.pages[HostPages.n]
			n++
			continue
		}
		i++
	}
	return n
}

func ptProtect(va uintptr, prot uint32) {
	if i := hostFind(va); i >= 0 {
		HostPages.pages[i].flags = pteFor(prot)
	}
}

// PtUnmap removes page va and returns its frame, which the caller frees.
func PtUnmap(va uintptr) (pa uintptr, ok bool) {
	i := hostFind(va)
	if i < 0 {
		return 0, false
	}
	pa = HostPages.pages[i].pa
	HostPages.n--
	HostPages.pages[i] = HostPages.pages[HostPages.n]
	return pa, true
}

// FlushTLB: the host has no TLB to flush.
func FlushTLB() {}

// HostUnmapAll forgets every mapping (a host test's fresh start); the frames are not freed.
func HostUnmapAll() { HostPages.n = 0 }
