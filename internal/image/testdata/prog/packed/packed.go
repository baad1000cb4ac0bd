// Package packed plays the part of the kernel's kernel/fs/packed in the image builder's tests.
package packed

// Size is how many bytes were packed.
func Size() int { return len(archive) }
