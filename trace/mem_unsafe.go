package trace

import "unsafe"

// load and store reach stack and ring memory by address. Both only ever touch memory the
// caller has bounds-checked (a walked stack, a reserved ring slot); neither is Go heap the
// garbage collector tracks.

//go:nosplit
func load(addr uintptr) uintptr { return *(*uintptr)(ptr(addr)) }

//go:nosplit
func store(addr uintptr, v uint64) { *(*uint64)(ptr(addr)) = v }

//go:nosplit
func ptr(addr uintptr) unsafe.Pointer { return *(*unsafe.Pointer)(unsafe.Pointer(&addr)) }

//go:nosplit
func store32(addr uintptr, v uint32) { *(*uint32)(ptr(addr)) = v }

//go:nosplit
func store16(addr uintptr, v uint16) { *(*uint16)(ptr(addr)) = v }

//go:nosplit
func store8(addr uintptr, v uint8) { *(*uint8)(ptr(addr)) = v }

// addrOfWords is the address of a slice's first element, for frames' raw output pointer.
//
//go:nosplit
func addrOfWords(s []uint64) uintptr { return uintptr(unsafe.Pointer(unsafe.SliceData(s))) }
