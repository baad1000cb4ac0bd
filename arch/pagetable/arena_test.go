package pagetable_test

import (
	"syscall"
	"testing"
	"unsafe"

	"github.com/unitrace/unitrace/arch/pagetable"
)

// arenaBase is the physical address at which an arena's memory appears to the walker.
const arenaBase = 0x100000

// arena is fake physical memory for page-table tests: mmap'ed outside the Go heap, seen at
// physical addresses [arenaBase, arenaBase+size) through the walker's direct map, with a bump
// allocator of zeroed frames starting at arenaBase (the first frame is usually the root).
type arena struct {
	mem  []byte
	next uintptr // next frame to hand out
	end  uintptr
	n    int // frames handed out
}

func newArena(tb testing.TB, frames int) *arena {
	tb.Helper()
	size := frames * pagetable.Size4K
	mem, err := syscall.Mmap(-1, 0, size, syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_ANON|syscall.MAP_PRIVATE)
	if err != nil {
		tb.Fatalf("mmap: %v", err)
	}
	old := pagetable.SetDirectMap(uintptr(unsafe.Pointer(&mem[0])) - arenaBase)
	tb.Cleanup(func() {
		pagetable.SetDirectMap(old)
		syscall.Munmap(mem)
	})
	return &arena{mem: mem, next: arenaBase, end: arenaBase + uintptr(size)}
}

func (a *arena) alloc() (uintptr, bool) {
	if a.next >= a.end {
		return 0, false
	}
	pa := a.next
	a.next += pagetable.Size4K
	a.n++
	return pa, true
}

// reset zeroes the frames handed out and starts handing them out again.
func (a *arena) reset() {
	clear(a.mem[:a.next-arenaBase])
	a.next, a.n = arenaBase, 0
}

// at reads the entry at physical address pa; set writes it.
func (a *arena) at(pa uintptr) uint64     { return *a.word(pa) }
func (a *arena) set(pa uintptr, v uint64) { *a.word(pa) = v }

// slot is the physical address of the entry for va in table, a table at level (3: the root).
func slot(table, va uintptr, level int) uintptr { return table + va>>(12+9*level)%pagetable.Entries*8 }

// down returns the table that the entry for va in table, a table at level, points to (either
// format: their table addresses are bits 47:12 here).
func (a *arena) down(table, va uintptr, level int) uintptr {
	return uintptr(a.at(slot(table, va, level)) & 0xffff_ffff_f000)
}

// word is the arena's 8 bytes at physical address pa (indexing checks that they are inside).
func (a *arena) word(pa uintptr) *uint64 {
	return (*uint64)(unsafe.Pointer(&a.mem[pa-arenaBase : pa-arenaBase+8][0]))
}

// newTable returns an empty tree in ar's format whose root is the next free frame.
func (a *arena) newTable(tb testing.TB, ar arch) table {
	tb.Helper()
	root, ok := a.alloc()
	if !ok {
		tb.Fatal("no frame for the root")
	}
	return ar.table(root)
}

func noAlloc() (uintptr, bool) { return 0, false }
