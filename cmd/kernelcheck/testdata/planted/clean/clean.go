// Package clean follows the kernel-mode rules: pointer-free fixed-size data,
// no allocation, errors as negative numbers.
package clean

var counters [16]uint64

// Add adds v to counter i, or returns -22 (EINVAL) for a bad index.
//
//go:noinline
func Add(i int, v uint64) int {
	if i < 0 || i >= len(counters) {
		return -22
	}
	counters[i] += v
	return 0
}
