//go:build unitrace_host && amd64

package syscalls

import (
	"testing"

	"github.com/unitrace/unitrace/kernel/abi"
	"github.com/unitrace/unitrace/kernel/core"
	"github.com/unitrace/unitrace/kernel/fs"
	"github.com/unitrace/unitrace/kernel/fs/memfs"
	"github.com/unitrace/unitrace/kernel/fs/vfs"
)

// withFiles gives the process a file system: a memfs "/" in the namespace, the working
// directory "/", as the kernel's boot makes it.
func withFiles(t *testing.T, p *proc) {
	t.Helper()
	if errno := core.RootNS.Init(&core.FSPages, memfs.Capacity{Bytes: 256 << 10, Inodes: 64}, core.FSNow()); errno != 0 {
		t.Fatalf("the namespace: errno %d", errno)
	}
	core.RootNS.Acquire(core.RootNS.Root())
	core.Cwd = core.RootNS.Root()
	t.Cleanup(func() { core.RootNS, core.Cwd = vfs.Namespace{}, vfs.Node{} })
}

// str puts a NUL-terminated string in user memory.
func (p *proc) str(s string) uint64 {
	at := p.alloc(uintptr(len(s) + 1))
	copy(p.bytes(at, uintptr(len(s))), s)
	p.bytes(at+uintptr(len(s)), 1)[0] = 0
	return uint64(at)
}

// The file calls against the real namespace, memfs and descriptor table, with Linux's errors.
func TestFileCalls(t *testing.T) {
	p := newProc(t)
	withFiles(t, p)
	const atFDCWD = ^uint64(99) // -100
	name := p.str("/notes")
	fdn := p.call(nrOpenat, atFDCWD, name, uint64(fs.O_CREAT|fs.O_RDWR), 0o644)
	if fdn < 0 {
		t.Fatalf("openat O_CREAT: %d", fdn)
	}
	msg := p.str("written")
	if r := p.call(nrWrite, uint64(fdn), msg, 7); r != 7 {
		t.Fatalf("write: %d", r)
	}
	if r := p.call(nrLseek, uint64(fdn), 0, 0); r != 0 {
		t.Fatalf("lseek: %d", r)
	}
	buf := p.alloc(16)
	if r := p.call(nrRead, uint64(fdn), uint64(buf), 16); r != 7 || string(p.bytes(buf, 7)) != "written" {
		t.Fatalf("read back: %d %q", r, p.bytes(buf, 7))
	}
	if r := p.call(nrClose, uint64(fdn)); r != 0 {
		t.Fatalf("close: %d", r)
	}
	for _, c := range []struct {
		name string
		nr   uint64
		args []uint64
		want int64
	}{
		{"openat O_EXCL of an existing file", nrOpenat, []uint64{atFDCWD, name, uint64(fs.O_CREAT | fs.O_EXCL | fs.O_RDWR), 0o644}, errno(abi.EEXIST)},
		{"openat of a missing file", nrOpenat, []uint64{atFDCWD, p.str("/missing"), uint64(fs.O_RDONLY), 0}, errno(abi.ENOENT)},
		{"openat O_DIRECTORY of a file", nrOpenat, []uint64{atFDCWD, name, uint64(fs.O_RDONLY | fs.O_DIRECTORY), 0}, errno(abi.ENOTDIR)},
		{"openat of an unmapped path", nrOpenat, []uint64{atFDCWD, 0x1000, uint64(fs.O_RDONLY), 0}, errno(abi.EFAULT)},
		{"openat relative to a closed descriptor", nrOpenat, []uint64{55, p.str("x"), uint64(fs.O_RDONLY), 0}, errno(abi.EBADF)},
		{"mkdirat of an existing name", nrMkdirat, []uint64{atFDCWD, name, 0o755}, errno(abi.EEXIST)},
		{"mkdirat", nrMkdirat, []uint64{atFDCWD, p.str("/d"), 0o755}, 0},
		{"unlinkat of a directory", nrUnlinkat, []uint64{atFDCWD, p.str("/d"), 0}, errno(abi.EISDIR)},
		{"unlinkat", nrUnlinkat, []uint64{atFDCWD, name, 0}, 0},
		{"unlinkat again", nrUnlinkat, []uint64{atFDCWD, name, 0}, errno(abi.ENOENT)},
	} {
		if r := p.call(c.nr, c.args...); r != c.want {
			t.Errorf("%s: %d, want %d", c.name, r, c.want)
		}
	}
}
