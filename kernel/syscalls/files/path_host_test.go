//go:build unitrace_host && amd64

package files

import (
	"testing"

	"github.com/unitrace/unitrace/kernel/abi"
	"github.com/unitrace/unitrace/kernel/core"
	"github.com/unitrace/unitrace/kernel/core/coretest"
	"github.com/unitrace/unitrace/kernel/fs"
)

// userPath copies a path out of the program's memory: up to its NUL, page by page, so a path
// that ends just before an unmapped page is read, and one that runs into it is EFAULT; PATH_MAX
// bytes without a NUL are ENAMETOOLONG.
func TestUserPath(t *testing.T) {
	coretest.Fresh(t)
	user := coretest.UserMemory(t, 4)
	const P = core.PageSize
	if core.Space.Unmap(user+2*P, 2*P) != 0 {
		t.Fatal("unmapping the upper half failed")
	}
	end := user + 2*P // the first unmapped byte

	put := func(at uintptr, s string) {
		b, ok := core.UserBytes(at, uintptr(len(s)), true)
		if !ok {
			t.Fatalf("writing %q at %#x", s, at)
		}
		copy(b, s)
	}
	put(end-5, "/tmp\x00")
	if p, errno := userPath(0, end-5); errno != 0 || string(p) != "/tmp" {
		t.Fatalf("a path ending at the last mapped byte: %q errno %d", p, errno)
	}
	put(end-3, "/ab")
	if _, errno := userPath(0, end-3); errno != abi.EFAULT {
		t.Fatalf("a path running into unmapped memory: errno %d, want EFAULT", errno)
	}
	long := make([]byte, fs.PathMax)
	for i := range long {
		long[i] = 'a'
	}
	put(user, string(long))
	put(user+fs.PathMax, "\x00")
	if _, errno := userPath(1, user); errno != abi.ENAMETOOLONG {
		t.Fatalf("PATH_MAX bytes without a NUL: errno %d, want ENAMETOOLONG", errno)
	}
	put(user+fs.PathMax-1, "\x00")
	if p, errno := userPath(1, user); errno != 0 || len(p) != fs.PathMax-1 {
		t.Fatalf("the longest path: %d bytes, errno %d", len(p), errno)
	}
	if _, errno := userPath(0, 0); errno != abi.EFAULT {
		t.Fatalf("a NULL path: errno %d, want EFAULT", errno)
	}
}
