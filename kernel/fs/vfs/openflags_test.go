package vfs

import (
	"syscall"
	"testing"

	"github.com/unitrace/unitrace/kernel/abi"

	"github.com/unitrace/unitrace/kernel/fs"
)

// TestOpenFlagsErrnoAsHost asks the host's Linux which flags openat refuses before it reads the
// path: with a NULL path, flags it takes give EFAULT, flags it refuses EINVAL.
func TestOpenFlagsErrnoAsHost(t *testing.T) {
	const tmpfileBit = fs.O_TMPFILE &^ fs.O_DIRECTORY
	parts := []int{fs.O_WRONLY, fs.O_RDWR, fs.O_CREAT, fs.O_DIRECTORY, fs.O_TRUNC, tmpfileBit, fs.O_PATH, fs.O_NOFOLLOW}
	for set := 0; set < 1<<len(parts); set++ {
		flags := 0
		for i, p := range parts {
			if set&(1<<i) != 0 {
				flags |= p
			}
		}
		if flags&fs.O_ACCMODE == fs.O_ACCMODE {
			continue // both access bits: not a combination the list means
		}
		_, _, e := syscall.Syscall6(syscall.SYS_OPENAT, uintptr(atFDCWDForTest), 0, uintptr(flags), 0, 0, 0)
		hostRefuses := e == syscall.EINVAL
		if e != syscall.EINVAL && e != syscall.EFAULT {
			t.Fatalf("openat(NULL, %#o): host %v, want EINVAL or EFAULT", flags, e)
		}
		if got := OpenFlagsErrno(flags) == abi.EINVAL; got != hostRefuses {
			t.Errorf("OpenFlagsErrno(%#o) refuses %v; the host's openat refuses %v", flags, got, hostRefuses)
		}
	}
}

var atFDCWDForTest = -100 // AT_FDCWD, as a variable so that it converts to uintptr
