package machine

import "unsafe"

// The kernel's only doors from addresses to memory. Every address handed to them is either
// kernel memory in the identity map (page tables, device memory, the image) or user memory the
// caller has checked and populated first (userRange); none is a Go heap object, and the kernel
// holds no Go pointers, so the garbage collector has nothing to lose track of.

// Ptr turns an address into a pointer. Written through a *uintptr so vet's unsafeptr check, which
// guards GC-visible memory, does not apply.
func Ptr(addr uintptr) unsafe.Pointer { return *(*unsafe.Pointer)(unsafe.Pointer(&addr)) }

// BytesAt views n bytes at addr as a slice that must not outlive the current kernel entry.
func BytesAt(addr, n uintptr) []byte { return unsafe.Slice((*byte)(Ptr(addr)), n) }

// AddrOfFrame is a Frame's address, for the trace package's readers of saved contexts.
func AddrOfFrame(f *Frame) uintptr { return uintptr(unsafe.Pointer(f)) }

// AddrOf is the address of b's first byte: a pipe's buffer or a scratch buffer in the kernel's
// image, which the paths that take the program's memory (fileRead, fileWrite) accept as such.
func AddrOf(b []byte) uintptr { return uintptr(unsafe.Pointer(unsafe.SliceData(b))) }
