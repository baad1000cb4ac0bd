package main

import (
	"unsafe"

	"github.com/unitrace/unitrace/arch/arm64"
)

// addrOfStack returns the address of the thread's stack, a global in .noptrbss that never moves.
func addrOfStack() uintptr { return uintptr(unsafe.Pointer(&threadStack)) }

// addrOfArray returns the address of a global array's first byte (in .noptrbss: it never moves).
func addrOfArray(p *byte) uintptr { return uintptr(unsafe.Pointer(p)) }

// addrOfFrame returns the address of a Frame (on a kernel stack).
func addrOfFrame(f *arm64.Frame) uintptr { return uintptr(unsafe.Pointer(f)) }

// arm64PointerTo turns an identity-mapped physical address into a pointer, through a *uintptr so
// vet's unsafeptr check (which guards GC-visible memory) does not apply: the DTB is memory the
// garbage collector never sees.
func arm64PointerTo(addr uintptr) unsafe.Pointer {
	return *(*unsafe.Pointer)(unsafe.Pointer(&addr))
}

// bytesAt views n bytes of identity-mapped memory at addr (the device tree) as a slice.
func bytesAt(addr, n uintptr) []byte { return unsafe.Slice((*byte)(arm64PointerTo(addr)), n) }
