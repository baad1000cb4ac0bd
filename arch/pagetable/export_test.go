package pagetable

// SetDirectMap points the walker's view of physical memory at off (physical address pa is read
// at pa+off) and returns the previous offset, for tests that keep their tables in a buffer.
func SetDirectMap(off uintptr) (old uintptr) {
	old, directMap = directMap, off
	return old
}
