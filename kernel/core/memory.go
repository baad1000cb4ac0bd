package core

import (
	"github.com/unitrace/unitrace/boot"
	"github.com/unitrace/unitrace/kernel/klog"
	"github.com/unitrace/unitrace/kernel/mm"
	"github.com/unitrace/unitrace/kernel/options"
	"github.com/unitrace/unitrace/kernel/sysvshm"
)

// shootdowns counts TLB flushes that had to reach every CPU (FlushTLB, under the kernel lock).
var shootdowns uint64

// Memory: one address space shared by the kernel and the Go program (one process).
//
//	[0, 64 KiB)            unmapped: nil dereferences fault
//	[64 KiB, identEnd)     identity map of RAM and MMIO, kernel only (never handed to mmap)
//	[userLo, userHi)       the program's mappings (mmap), populated on demand with zeroed frames
//	[stackLo, userHi)      the main thread's stack (part of the user range)
//
// The identity map covers at least the low 4 GiB so all MMIO (LAPIC, IOAPIC, virtio-mmio) is
// reachable at its physical address.

const (
	PageSize  = mm.PageSize
	nullGuard = 64 << 10
	UserHi    = 0x7fff_ffff_f000
	StackSize = 8 << 20
	StackLo   = UserHi - StackSize
	MmapBase  = StackLo - (1 << 30)
	minIdent  = 4 << 30
	hugePage  = 2 << 20
	gib       = 1 << 30
)

var (
	Frames   mm.Frames
	Space    mm.Space
	IdentEnd uintptr // end of the identity map; user space starts here
	ramEnd   uintptr
)

// AllocFrame hands a zeroed frame to the page-table code.
func AllocFrame() (uintptr, bool) { return Frames.Alloc() }

func FreeFrame(pa uintptr) { Frames.Free(pa) }

// InitMemory sets up the frame allocator from the firmware memory map, builds the kernel's
// page tables (identity map plus an empty user half), switches to them, and prepares the user
// address space. kernelEnd is the first byte after the image and the boot kernel stacks.
// InitMemory also carves carveSize bytes of physically contiguous memory right after the frame
// bitmap (devices and trace rings need contiguous blocks; the frame allocator hands out single
// frames) and returns its address.
func InitMemory(kernelEnd, carveSize uintptr) (carved uintptr) {
	for i := 0; i < options.Boot.Memory.Len(); i++ {
		e := options.Boot.Memory.At(i)
		if e.Type == boot.MemoryRAM && uintptr(e.Addr+e.Size) > ramEnd {
			ramEnd = uintptr(e.Addr + e.Size)
		}
	}
	meta := (kernelEnd + PageSize - 1) &^ (PageSize - 1)
	metaLen := mm.MetaSize(ramEnd)
	Frames.Init(meta, metaLen)
	carved = (meta + metaLen + PageSize - 1) &^ (PageSize - 1)
	firstFree := carved + PageUp(carveSize)
	for i := 0; i < options.Boot.Memory.Len(); i++ {
		e := options.Boot.Memory.At(i)
		if e.Type != boot.MemoryRAM {
			continue
		}
		start, end := uintptr(e.Addr), uintptr(e.Addr+e.Size)
		if start < firstFree {
			start = firstFree // low memory, the image, kernel stacks and the frame bitmap stay ours
		}
		if start < end {
			Frames.AddFree(start, end)
		}
	}

	IdentEnd = (ramEnd + gib - 1) &^ (gib - 1)
	if IdentEnd < minIdent {
		IdentEnd = minIdent
	}
	if !buildKernelPageTables() {
		klog.BootFault("cannot build the kernel page tables: out of frames")
	}
	Space.Init(IdentEnd, UserHi, MmapBase)
	if !options.Kernel.Verbose {
		return carved
	}
	st := Frames.Stats()
	klog.Log().S("memory: ").U(uint64(ramEnd >> 20)).S(" MiB RAM, ").U(st.Free * PageSize >> 20).S(" MiB free, identity map to ").X(uint64(IdentEnd)).NL()
	return carved
}

// ArchUnmapRange removes the pages of [start, end), frees their frames (but a shared memory
// segment's: freeUnmapped) and flushes the TLB.
func ArchUnmapRange(start, end uintptr) int {
	n := ptUnmapRange(start, end)
	UserPages -= min(uint64(n), UserPages)
	if n > 0 {
		FlushTLB()
	}
	return n
}

// ArchProtectRange applies prot to the present pages of [start, end).
func ArchProtectRange(start, end uintptr, prot uint32) {
	changed := false
	for va := start; va < end; va += PageSize {
		if _, _, ok := ArchLookup(va); ok {
			ptProtect(va, prot)
			changed = true
		}
	}
	if changed {
		FlushTLB()
	}
}

// Shms are the SysV shared memory segments, whose frames outlive their mappings.
var Shms sysvshm.Table

// freeUnmapped frees a frame whose page was unmapped, unless a segment owns it.
func freeUnmapped(pa uintptr) {
	if Shms.Owns(pa) {
		return
	}
	Frames.Free(pa)
}

// shmFrame is the frame behind page of region r, a shared one.
func shmFrame(r mm.Region, page uintptr) (uintptr, bool) {
	return Shms.Frame(int(r.Shared-1), r.Off+(page-r.Start))
}

// PageUp rounds n up to a whole page.
func PageUp(n uintptr) uintptr { return (n + PageSize - 1) &^ (PageSize - 1) }
