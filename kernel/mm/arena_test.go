package mm

import (
	"reflect"
	"syscall"
	"testing"
)

// arena is fake physical memory for host tests: size bytes, mmap'ed outside the Go heap (so the
// garbage collector and -d=checkptr ignore it), seen by the package at physical addresses
// [base, base+size) through DirectMap.
type arena struct {
	mem  []byte
	base uintptr
}

// newArena maps the arena and points DirectMap at it until the test ends. noReserve asks the host
// kernel not to reserve backing memory, for arenas much larger than the pages a test touches.
func newArena(t testing.TB, base, size uintptr, noReserve bool) *arena {
	t.Helper()
	flags := syscall.MAP_ANON | syscall.MAP_PRIVATE
	if noReserve {
		flags |= syscall.MAP_NORESERVE
	}
	mem, err := syscall.Mmap(-1, 0, int(size), syscall.PROT_READ|syscall.PROT_WRITE, flags)
	if err != nil {
		if noReserve {
			t.Skipf("cannot map a %d-byte arena: %v", size, err)
		}
		t.Fatalf("mmap arena: %v", err)
	}
	old := DirectMap
	DirectMap = reflect.ValueOf(mem).Pointer() - base
	t.Cleanup(func() {
		DirectMap = old
		syscall.Munmap(mem)
	})
	return &arena{mem: mem, base: base}
}

// bytes returns the arena's bytes at physical [pa, pa+n).
func (a *arena) bytes(pa, n uintptr) []byte { return a.mem[pa-a.base : pa-a.base+n] }

// fill sets every byte of physical [pa, pa+n) to b.
func (a *arena) fill(pa, n uintptr, b byte) {
	s := a.bytes(pa, n)
	for i := range s {
		s[i] = b
	}
}
