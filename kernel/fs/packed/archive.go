package packed

import "unsafe"

// Archive returns the archive of the files packed into the image: empty if there are none, or
// after Release. It is the image's read-only data: never write to it.
func Archive() []byte { return unsafe.Slice(unsafe.StringData(archive), len(archive)) }

// Release forgets the archive and returns the memory it occupies, [start, end) (empty when there
// is none), for the kernel to give its whole pages to the frame allocator once Mount has copied
// the files out: from then on those bytes are no longer the archive. The variable is cleared as
// two words rather than as a string, which needs no write barrier.
func Release() (start, end uintptr) {
	if len(archive) == 0 {
		return 0, 0
	}
	start = uintptr(unsafe.Pointer(unsafe.StringData(archive)))
	end = start + uintptr(len(archive))
	*(*[2]uintptr)(unsafe.Pointer(&archive)) = [2]uintptr{}
	return start, end
}
