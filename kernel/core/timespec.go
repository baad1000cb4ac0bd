package core

import "encoding/binary"

// ReadTimespec reads a struct timespec and returns it in nanoseconds, or -1 if it is invalid.
func ReadTimespec(addr uintptr) (int64, bool) {
	b, ok := UserBytes(addr, 16, false)
	if !ok {
		return 0, false
	}
	sec, nsec := int64(binary.LittleEndian.Uint64(b[0:8])), int64(binary.LittleEndian.Uint64(b[8:16]))
	if sec < 0 || nsec < 0 || nsec >= 1e9 {
		return -1, true
	}
	if sec > (1<<62)/1_000_000_000 {
		sec = (1 << 62) / 1_000_000_000 // far enough in the future
	}
	return sec*1e9 + nsec, true
}

func WriteTimespec(addr uintptr, ns int64) bool {
	b, ok := UserBytes(addr, 16, true)
	if !ok {
		return false
	}
	PutTimespec(b, ns)
	return true
}

// PutTimespec stores ns as a struct timespec in b (16 bytes).
func PutTimespec(b []byte, ns int64) {
	binary.LittleEndian.PutUint64(b[0:8], uint64(ns/1e9))
	binary.LittleEndian.PutUint64(b[8:16], uint64(ns%1e9))
}

// BootWallNanos is the wall-clock time at monotonic zero, from the CMOS clock at boot.
var BootWallNanos int64
