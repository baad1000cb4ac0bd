package trace

import "unsafe"

// addrOfPoint and pointAt convert between a registered Point and its address. Points never move
// (package variables, or heap objects a package variable keeps alive), so keeping the address as
// a uintptr is safe and keeps the registry free of pointers.
func addrOfPoint(p *Point) uintptr { return uintptr(unsafe.Pointer(p)) }

func pointAt(addr uintptr) *Point { return *(**Point)(unsafe.Pointer(&addr)) }

// bytesOf views a string's bytes without copying; the caller only reads them.
func bytesOf(s string) []byte { return unsafe.Slice(unsafe.StringData(s), len(s)) }
