package main

// The register patterns smokeThread (entry_arm64.s) loads before its first system call.

// xPattern is the value smokeThread puts in x<i>.
func xPattern(i int) uint64 { return 0x5a5a000000000000 | uint64(i)*0x010101 }

// vPattern is the value smokeThread puts in both halves of v<i>.
func vPattern(i int) uint64 { return 0xf00d000000000000 | uint64(i)*0x0303 }

// xChecked reports whether smokeThread loads a pattern into x<i>: x1-x27 but x8 (the call
// number) and x18 (the platform register).
func xChecked(i int) bool { return i >= 1 && i <= 27 && i != 8 && i != 18 }
