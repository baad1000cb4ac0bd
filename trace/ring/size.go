package ring

import "github.com/unitrace/unitrace/boot"

// ParseSize reads a ring size as the kernel's unitrace.ring= boot option and the launcher's -ring
// flag write it: a decimal byte count with an optional K, M or G suffix (powers of 1024) that
// comes to a power of two from MinSize to MaxSize. It allocates nothing (the kernel calls it
// before the Go runtime starts).
func ParseSize(s string) (uint64, bool) {
	v, ok := boot.ParseByteSize(s)
	if !ok || v < MinSize || v > MaxSize || v&(v-1) != 0 {
		return 0, false
	}
	return v, true
}
