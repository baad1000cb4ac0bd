package trace

import "unsafe"

// The store functions reach ring memory by address. They only ever touch memory the caller has
// bounds-checked (a reserved ring slot), never Go heap the garbage collector tracks.

//go:nosplit
func store(addr uintptr, v uint64) { *(*uint64)(ptr(addr)) = v }

// words views the n words at addr (a reserved ring slot) as a slice, for a walk to store into.
//
//go:nosplit
func words(addr uintptr, n int) []uint64 { return unsafe.Slice((*uint64)(ptr(addr)), n) }

//go:nosplit
func ptr(addr uintptr) unsafe.Pointer { return *(*unsafe.Pointer)(unsafe.Pointer(&addr)) }

//go:nosplit
func store32(addr uintptr, v uint32) { *(*uint32)(ptr(addr)) = v }

//go:nosplit
func store16(addr uintptr, v uint16) { *(*uint16)(ptr(addr)) = v }

//go:nosplit
func store8(addr uintptr, v uint8) { *(*uint8)(ptr(addr)) = v }
