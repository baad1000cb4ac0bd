// Package pagetable is the one page-table walker of both architectures: 4-level translation
// tables with a 4 KiB granule (x86-64 4-level paging, Intel SDM vol. 3A §4.5; VMSAv8-64 stage 1
// with a 48-bit VA, Arm ARM D8), 512 8-byte entries a table, 4 KiB pages, 2 MiB blocks, and
// 1 GiB blocks built by someone else (resolved by Lookup, left alone otherwise).
//
// What differs between the architectures is how an entry is encoded: which bit makes it valid,
// how a table is told from a block or a page, where the output address sits, which attributes a
// leaf may carry and what the tables above a leaf need so that they do not restrict it. A Format
// says that with masks, and the walker is Format's methods: each arch package holds its Format,
// every bit naming its source, and wraps the methods in its PageTable type.
//
// The format is data rather than a type parameter: methods called on a type parameter compile
// to indirect calls through the instantiation's dictionary, which would make every entry test a
// call; reading masks from a Format costs a few loads per walk, and Lookup stays a leaf function
// with no stack check (arch Readable, which checks pointers in interrupt context, calls it).
//
// Levels count down from the root, the same on both architectures: 3 is the root (the PML4;
// the Arm ARM's level 0), 2 holds 1 GiB blocks (PDPT; level 1), 1 holds 2 MiB blocks (PD;
// level 2), 0 is the page table (PT; level 3).
//
// The walker reaches the tables through physical memory (physmem.go), allocates only through
// the alloc function callers pass, and never flushes a TLB or synchronizes with the hardware's
// table walker: that is the arch packages' business. Tables are not safe for concurrent use;
// every entry is written with a single 8-byte store, so the hardware's own updates (accessed
// and dirty bits) are the only concurrent writers they tolerate.
//
// This is kernel-mode code: no allocation, no write barriers, pointer-free state.
package pagetable

// Table geometry, the same for both formats (4 KiB granule).
const (
	Entries = 512     // entries in a table
	Size4K  = 1 << 12 // a page, and a table
	Size2M  = 1 << 21 // a level-1 block
	Size1G  = 1 << 30 // a level-2 block
)
