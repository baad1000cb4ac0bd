// Package fstest backs the file systems' Pages with memory for host tests. Its files end in
// _host.go: host-only code that kernelcheck skips.
package fstest

import (
	"fmt"
	"reflect"
	"syscall"
	"testing"
)

const pageSize = 4096

// Pages hands out pages from a region mapped outside the Go heap (so the garbage collector and
// -d=checkptr ignore it), and catches what a file system must never do with them: a double
// free, a free of a page it was not given. Limit caps the pages in use (0: the whole region), to
// test what happens when the kernel itself runs out.
type Pages struct {
	mem   []byte
	base  uintptr
	free  []uintptr
	inUse map[uintptr]bool
	Limit int
	Err   error // the first misuse seen
}

// NewPages maps n pages, unmapped when the test ends.
func NewPages(t testing.TB, n int) *Pages {
	t.Helper()
	mem, err := syscall.Mmap(-1, 0, n*pageSize, syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_ANON|syscall.MAP_PRIVATE|syscall.MAP_NORESERVE)
	if err != nil {
		t.Fatalf("mmap %d pages: %v", n, err)
	}
	p := &Pages{mem: mem, base: reflect.ValueOf(mem).Pointer(), inUse: map[uintptr]bool{}}
	for i := n - 1; i >= 0; i-- {
		p.free = append(p.free, p.base+uintptr(i)*pageSize)
	}
	t.Cleanup(func() {
		syscall.Munmap(mem)
	})
	return p
}

// Alloc implements memfs.Pages.
func (p *Pages) Alloc() (uintptr, bool) {
	if len(p.free) == 0 || p.Limit > 0 && len(p.inUse) >= p.Limit {
		return 0, false
	}
	a := p.free[len(p.free)-1]
	p.free = p.free[:len(p.free)-1]
	p.inUse[a] = true
	clear(p.mem[a-p.base : a-p.base+pageSize])
	return a, true
}

// Free implements memfs.Pages. It scribbles over the page, so that a file system that goes on
// reading it shows wrong data.
func (p *Pages) Free(a uintptr) {
	if !p.inUse[a] {
		if p.Err == nil {
			p.Err = fmt.Errorf("free of page %#x, which is not in use", a)
		}
		return
	}
	delete(p.inUse, a)
	for i := range p.mem[a-p.base : a-p.base+pageSize] {
		p.mem[a-p.base+uintptr(i)] = 0xa5
	}
	p.free = append(p.free, a)
}

// InUse returns the number of pages handed out and not given back.
func (p *Pages) InUse() int { return len(p.inUse) }
