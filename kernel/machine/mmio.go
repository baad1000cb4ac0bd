package machine

import "sync/atomic"

// MMIOBus is the kernel's virtio.Bus: 32-bit device-register accesses through the identity map.
// Atomic loads and stores are single, untorn, never-elided accesses (a plain MOV on amd64), which
// is what device registers need.
//
// Drivers receive it as &Bus, a pointer to a global: an interface holding that pointer needs no
// allocation (an interface method call makes its receiver escape, which a global already has).
type mmioBus struct{}

var Bus mmioBus

func (*mmioBus) Read32(addr uintptr) uint32 { return atomic.LoadUint32((*uint32)(Ptr(addr))) }

func (*mmioBus) Write32(addr uintptr, v uint32) { atomic.StoreUint32((*uint32)(Ptr(addr)), v) }

// Read8 reads one byte of a device's configuration space (virtio.ConfigBus): a single byte
// load, since QEMU answers wider reads past the end of a configuration field with all ones.
func (*mmioBus) Read8(addr uintptr) uint8 { return *(*uint8)(Ptr(addr)) }
