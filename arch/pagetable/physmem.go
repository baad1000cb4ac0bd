package pagetable

import "unsafe"

// directMap is the offset at which the walker reaches physical memory: physical address pa is
// read and written at pa+directMap. The kernel identity-maps RAM, so it is 0 there; tests point
// it at a buffer.
var directMap uintptr

// entry returns the entry for va in table, a table at level (3: the root, 0: a page table). The
// shift is masked so that the compiler emits no oversized-shift check.
func entry(table, va uintptr, level int) *uint64 {
	return entryAt(table, va>>((12+9*uint(level))&63)%Entries)
}

// entryAt returns entry i of the table at physical address table.
func entryAt(table, i uintptr) *uint64 { return (*uint64)(ptr(table + directMap + i*8)) }

// ptr turns a physical (identity-mapped) address into a pointer. Written through a *uintptr so
// vet's unsafeptr check, which guards GC-visible memory, does not apply: these addresses are
// kernel memory the garbage collector never sees.
func ptr(addr uintptr) unsafe.Pointer { return *(*unsafe.Pointer)(unsafe.Pointer(&addr)) }
