package vfs

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"os"
	"slices"
	"strings"
	"syscall"
	"testing"

	"github.com/unitrace/unitrace/kernel/abi"

	"github.com/unitrace/unitrace/kernel/fs"
	"github.com/unitrace/unitrace/kernel/fs/memfs"
	"github.com/unitrace/unitrace/kernel/fs/procfs/proctest"
	"github.com/unitrace/unitrace/kernel/sched"
)

// procSlot is the thread slot the tests' calls are made by: the fixture's main thread.
const procSlot = int32(sched.FirstThread)

// procRig is a namespace with a memfs at / and the process file system at /proc, over the
// state of a proctest fixture.
type procRig struct {
	*mem
	x    *proctest.Fixture
	root At
}

func newProcRig(t testing.TB) *procRig {
	t.Helper()
	r := &procRig{mem: newMem(t, memfs.Capacity{Bytes: 1 << 20, Inodes: 100}), x: proctest.New(t, "X=1 -- arg")}
	r.root = At{Root: r.ns.Root(), Dir: r.ns.Root()}
	must(t, r.ns.Mkdir(r.pages, r.root, []byte("proc"), 0o555, r.now()))
	at, errno := r.ns.Resolve(r.root.Root, r.root.Dir, []byte("/proc"), true, false)
	must(t, errno)
	if _, errno := r.ns.MountProc(at, &r.x.Src); errno != 0 {
		t.Fatalf("MountProc = %d", errno)
	}
	if _, errno := r.ns.MountProc(at, &r.x.Src); errno != abi.EBUSY {
		t.Fatalf("a second MountProc = %d, want EBUSY", errno)
	}
	r.x.Cwd = r.ns.Root()
	r.ns.Begin(procSlot)
	return r
}

// file opens path in the namespace and gives it a descriptor in the fixture's table.
func (r *procRig) file(t testing.TB, path string, flags int) int {
	t.Helper()
	n, _, errno := r.ns.Open(r.pages, r.root, []byte(path), flags, 0o644, r.now())
	must(t, errno)
	d, errno := r.x.FDs.OpenFile(n, flags)
	must(t, errno)
	return d
}

func (r *procRig) readlink(path string) (string, int) {
	buf := make([]byte, fs.PathMax)
	k, errno := r.ns.Readlink(r.root, []byte(path), buf)
	return string(buf[:k]), errno
}

func (r *procRig) readAll(t testing.TB, path string) string {
	t.Helper()
	n, _, errno := r.ns.Open(r.pages, r.root, []byte(path), fs.O_RDONLY, 0, r.now())
	must(t, errno)
	defer r.ns.Release(r.pages, n)
	var out []byte
	buf := make([]byte, 100)
	for {
		k, errno := r.ns.Read(n, int64(len(out)), buf, fs.Timespec{Sec: 1_700_000_003})
		must(t, errno)
		if k == 0 {
			return string(out)
		}
		out = append(out, buf[:k]...)
	}
}

func (r *procRig) list(t testing.TB, path string) []string {
	t.Helper()
	n, errno := r.ns.Resolve(r.root.Root, r.root.Dir, []byte(path), true, false)
	must(t, errno)
	buf := make([]byte, 4096)
	var names []string
	var cookie uint64
	for {
		k, next, errno := r.ns.ReadDir(n, cookie, buf, r.now())
		must(t, errno)
		if k == 0 {
			return names
		}
		for b := buf[:k]; len(b) > 0; {
			reclen := binary.LittleEndian.Uint16(b[16:])
			name := b[19:reclen]
			names = append(names, string(name[:bytes.IndexByte(name, 0)]))
			b = b[reclen:]
		}
		cookie = next
	}
}

// TestProcThroughNamespace resolves and reads /proc's files through the namespace: links
// followed, magic links jumping to the files they name, paths of open files.
func TestProcThroughNamespace(t *testing.T) {
	r := newProcRig(t)
	must(t, r.ns.Mkdir(r.pages, r.root, []byte("d"), 0o755, r.now()))
	f := r.file(t, "d/f", fs.O_CREAT|fs.O_RDWR)
	dir := r.file(t, "d", fs.O_RDONLY)
	rfd, _, errno := r.x.FDs.Pipe2(0)
	must(t, errno)

	if got := r.readAll(t, "/proc/self/cmdline"); got != "/app\x00arg\x00" {
		t.Errorf("cmdline = %q", got)
	}
	if got := r.readAll(t, "/proc/thread-self/environ"); got != "X=1\x00" {
		t.Errorf("environ = %q", got)
	}
	for path, want := range map[string]string{
		"/proc/self":                        "1",
		"/proc/thread-self":                 "1/task/1",
		"/proc/self/exe":                    "/app",
		"/proc/self/cwd":                    "/",
		"/proc/self/root":                   "/",
		fmt.Sprintf("/proc/self/fd/%d", f):  "/d/f",
		fmt.Sprintf("/proc/1/fd/%d", dir):   "/d",
		fmt.Sprintf("/proc/1/fd/%d", rfd):   "pipe:[1]",
		"/proc/1/fd/0":                      "/dev/console",
		"/proc/self/task/1/cwd":             "/",
		"/proc/../proc/./self/fd/../exe":    "/app",
		"/proc/thread-self/../../fd/../exe": "/app",
	} {
		if got, errno := r.readlink(path); errno != 0 || got != want {
			t.Errorf("readlink %s = %q, %d; want %q", path, got, errno, want)
		}
	}

	// The magic links lead to the files themselves.
	fn, errno := r.ns.Resolve(r.root.Root, r.root.Dir, []byte("/d/f"), true, false)
	must(t, errno)
	link := fmt.Sprintf("/proc/self/fd/%d", f)
	if n, _, errno := r.ns.Open(r.pages, r.root, []byte(link), fs.O_WRONLY|fs.O_APPEND, 0, r.now()); errno != 0 || n != fn {
		t.Errorf("open %s = %+v, %d; want the file %+v", link, n, errno, fn)
	} else {
		r.ns.Release(r.pages, n)
	}
	if st, errno := r.ns.StatAt(r.root, []byte(link), 0); errno != 0 || st.Mode != fs.S_IFREG|0o644 {
		t.Errorf("stat %s = %+v, %d", link, st, errno)
	}
	if st, errno := r.ns.StatAt(r.root, []byte(link), fs.AT_SYMLINK_NOFOLLOW); errno != 0 || st.Mode != fs.S_IFLNK|0o700 || st.Size != 64 {
		t.Errorf("lstat %s = %+v, %d", link, st, errno)
	}
	if n, errno := r.ns.Resolve(r.root.Root, r.root.Dir, []byte(fmt.Sprintf("/proc/self/fd/%d/f", dir)), true, false); errno != 0 || n != fn {
		t.Errorf("/proc/self/fd/%d/f = %+v, %d", dir, n, errno)
	}
	if n, errno := r.ns.Resolve(r.root.Root, r.root.Dir, []byte("/proc/self/root/d/f"), true, false); errno != 0 || n != fn {
		t.Errorf("/proc/self/root/d/f = %+v, %d", n, errno)
	}
	for _, c := range []struct {
		path  string
		flags int
		errno int
	}{
		{link + "/", fs.O_RDONLY, abi.ENOTDIR},
		{link, fs.O_RDONLY | fs.O_DIRECTORY, abi.ENOTDIR},
		{link, fs.O_RDONLY | fs.O_NOFOLLOW, abi.ELOOP},
		{link, fs.O_CREAT | fs.O_EXCL | fs.O_WRONLY, abi.EEXIST},
		{fmt.Sprintf("/proc/self/fd/%d", rfd), fs.O_RDONLY, fs.EFDLINK},
		{fmt.Sprintf("/proc/self/fd/%d", rfd), fs.O_RDONLY | fs.O_DIRECTORY, abi.ENOTDIR},
		{fmt.Sprintf("/proc/self/fd/%d/x", rfd), fs.O_RDONLY, abi.ENOTDIR},
		{"/proc/self/fd/999", fs.O_RDONLY, abi.ENOENT},
		{"/proc/self/exe", fs.O_RDONLY, abi.ENOENT},
		{"/proc/self/cmdline", fs.O_RDONLY | fs.O_DIRECTORY, abi.ENOTDIR},
		{"/proc/self", fs.O_WRONLY, abi.EISDIR},
		{"/proc/new", fs.O_CREAT | fs.O_WRONLY, abi.ENOENT},
		{"/proc/meminfo", fs.O_CREAT | fs.O_EXCL | fs.O_WRONLY, abi.EEXIST},
	} {
		n, _, errno := r.ns.Open(r.pages, r.root, []byte(c.path), c.flags, 0o644, r.now())
		if errno != c.errno {
			t.Errorf("open %s (%#x) = %d, want %d", c.path, c.flags, errno, c.errno)
		}
		if errno == 0 {
			r.ns.Release(r.pages, n)
		}
		if c.errno == fs.EFDLINK && r.ns.FDLink() != rfd {
			t.Errorf("FDLink after open %s = %d, want %d", c.path, r.ns.FDLink(), rfd)
		}
	}
	if _, errno := r.ns.StatAt(r.root, []byte(fmt.Sprintf("/proc/self/fd/%d", rfd)), 0); errno != fs.EFDLINK {
		t.Errorf("stat of a pipe's link = %d, want EFDLINK", errno)
	}
	pipeLink := []byte(fmt.Sprintf("/proc/self/fd/%d", rfd))
	if errno := r.ns.Access(r.root, pipeLink, fs.R_OK|fs.W_OK, 0); errno != 0 {
		t.Errorf("access of a pipe's link = %d", errno)
	}
	if errno := r.ns.Chmod(r.root, pipeLink, 0o600, 0, r.now()); errno != abi.ENXIO {
		t.Errorf("chmod of a pipe's link = %d, want ENXIO", errno)
	}
	if _, errno := r.ns.Resolve(r.root.Root, r.root.Dir, pipeLink, true, false); errno != abi.ENXIO {
		t.Errorf("Resolve of a pipe's link = %d, want ENXIO", errno)
	}

	// A file's path follows it; a file with no name left is deleted.
	must(t, r.ns.Mkdir(r.pages, r.root, []byte("e"), 0o755, r.now()))
	must(t, r.ns.Rename(r.pages, r.root, []byte("d/f"), r.root, []byte("e/g"), 0, r.now()))
	if got, _ := r.readlink(link); got != "/e/g" {
		t.Errorf("readlink after a rename = %q", got)
	}
	must(t, r.ns.Unlink(r.pages, r.root, []byte("e/g"), 0, r.now()))
	if got, _ := r.readlink(link); got != fmt.Sprintf("/#%d (deleted)", fn.Ino) {
		t.Errorf("readlink after unlink = %q", got)
	}
	if st, errno := r.ns.StatAt(r.root, []byte(link), 0); errno != 0 || st.Nlink != 0 {
		t.Errorf("stat of an unlinked file through its link = %+v, %d", st, errno)
	}

	// cwd follows the working directory; getcwd works inside /proc.
	r.x.Cwd, errno = r.ns.Chdir(r.root, []byte("/proc/self/fd"))
	must(t, errno)
	if got, _ := r.readlink("/proc/self/cwd"); got != "/proc/1/fd" {
		t.Errorf("cwd inside /proc = %q", got)
	}
	buf := make([]byte, 64)
	if k, errno := r.ns.Path(r.ns.Root(), r.x.Cwd, buf); errno != 0 || string(buf[:k]) != "/proc/1/fd" {
		t.Errorf("getcwd = %q, %d", buf[:k], errno)
	}
	at := At{Root: r.ns.Root(), Dir: r.x.Cwd}
	if got, errno := r.ns.Readlink(at, []byte("../exe"), buf); errno != 0 || string(buf[:got]) != "/app" {
		t.Errorf("readlink ../exe from /proc/1/fd = %q, %d", buf[:got], errno)
	}
	if got := r.list(t, "/proc/self/fd"); !slices.Equal(got, []string{".", "..", "0", "1", "2", "3", "4", "5", "6"}) {
		t.Errorf("ls /proc/self/fd = %v", got)
	}
	if got := r.list(t, "/proc"); !slices.Equal(got, []string{".", "..", "cpuinfo", "meminfo", "self", "sys", "thread-self", "uptime", "1"}) {
		t.Errorf("ls /proc = %v", got)
	}
	if got := r.readAll(t, "/proc/meminfo"); !strings.Contains(got, "\nShmem:  ") {
		t.Errorf("meminfo = %q", got)
	}
	if st, errno := r.ns.Statfs(r.x.Cwd); errno != 0 || st.Type != fs.ProcMagic || st.Blocks != 0 {
		t.Errorf("statfs in /proc = %+v, %d", st, errno)
	}
}

// TestProcLinkLoops: magic links count against the resolution's 40 links, as Linux's do (the
// host's /proc gives the same answers for the same paths).
func TestProcLinkLoops(t *testing.T) {
	r := newProcRig(t)
	d := r.file(t, "/proc", fs.O_RDONLY)
	path := strings.Repeat(fmt.Sprintf("self/fd/%d/", d), 21) + "meminfo"
	if _, errno := r.ns.StatAt(r.root, []byte("/proc/"+path), 0); errno != abi.ELOOP {
		t.Errorf("42 links = %d, want ELOOP", errno)
	}
	path = strings.Repeat(fmt.Sprintf("self/fd/%d/", d), 20) + "meminfo"
	if _, errno := r.ns.StatAt(r.root, []byte("/proc/"+path), 0); errno != 0 {
		t.Errorf("40 links = %d", errno)
	}
}

// TestProcOracle runs operations on /proc's files in the namespace and in the host's /proc and
// compares their errnos, and the modes of what both have. It runs on the host's own /proc, so
// only operations that fail there or change nothing: no chmod or utimes (Linux lets root change
// the modes and times of /proc's own files).
func TestProcOracle(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("the guest is root: the oracle must be too")
	}
	if _, err := os.Stat("/proc/self/cmdline"); err != nil {
		t.Skip(err)
	}
	r := newProcRig(t)
	// A descriptor of the directory /proc, with the same number on both sides.
	hostDir, err := syscall.Open("/proc", syscall.O_RDONLY|syscall.O_DIRECTORY|syscall.O_CLOEXEC, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer syscall.Close(hostDir)
	for d := -1; d != hostDir; {
		if d > hostDir {
			t.Skipf("descriptor %d: the fixture's table is past it", hostDir)
		}
		d = r.file(t, "/proc", fs.O_RDONLY)
	}
	dirLink := fmt.Sprintf("/proc/self/fd/%d", hostDir)
	paths := []string{
		"/proc", "/proc/self", "/proc/thread-self", "/proc/meminfo", "/proc/cpuinfo", "/proc/uptime",
		"/proc/sys", "/proc/sys/fs", "/proc/sys/fs/pipe-max-size", "/proc/self/cmdline", "/proc/self/environ",
		"/proc/self/status", "/proc/self/stat", "/proc/self/comm", "/proc/self/fd", "/proc/self/fdinfo",
		"/proc/self/task", dirLink, fmt.Sprintf("/proc/self/fdinfo/%d", hostDir), "/proc/self/cwd",
		"/proc/self/root", "/proc/self/exe", "/proc/nope", "/proc/self/nope", "/proc/self/fd/999",
		"/proc/self/fd/03", "/proc/meminfo/x", "/proc/meminfo/", "/proc/self/", dirLink + "/",
		dirLink + "/meminfo", "/proc/self/root/proc/uptime", "/proc/01", "/proc/self/fd/-1",
		"/proc/thread-self/comm", dirLink + dirLink[5:] + "/sys/.././self",
	}
	// The modes of files that differ on purpose: pipe-max-size (read-only here), comm (Linux's
	// is writable), the host's cwd and exe (another file system's files).
	modeDiffers := map[string]bool{"/proc/sys/fs/pipe-max-size": true, "/proc/self/comm": true, "/proc/thread-self/comm": true}
	type opFn struct {
		name  string
		guest func(p string) int
		host  func(p string) error
		mode  bool
	}
	ops := []opFn{
		{"stat", func(p string) int { _, e := r.ns.StatAt(r.root, []byte(p), 0); return e },
			func(p string) error { var st syscall.Stat_t; return syscall.Stat(p, &st) }, true},
		{"lstat", func(p string) int { _, e := r.ns.StatAt(r.root, []byte(p), fs.AT_SYMLINK_NOFOLLOW); return e },
			func(p string) error { var st syscall.Stat_t; return syscall.Lstat(p, &st) }, true},
		{"readlink", func(p string) int { _, e := r.readlink(p); return e },
			func(p string) error { _, err := os.Readlink(p); return unwrap(err) }, false},
		{"open", func(p string) int { return r.openClose(p, fs.O_RDONLY) },
			func(p string) error { return hostOpenClose(p, syscall.O_RDONLY) }, false},
		{"open-wronly", func(p string) int { return r.openClose(p, fs.O_WRONLY) },
			func(p string) error { return hostOpenClose(p, syscall.O_WRONLY) }, false},
		{"open-dir", func(p string) int { return r.openClose(p, fs.O_RDONLY|fs.O_DIRECTORY) },
			func(p string) error { return hostOpenClose(p, syscall.O_RDONLY|syscall.O_DIRECTORY) }, false},
		{"open-nofollow", func(p string) int { return r.openClose(p, fs.O_RDONLY|fs.O_NOFOLLOW) },
			func(p string) error { return hostOpenClose(p, syscall.O_RDONLY|syscall.O_NOFOLLOW) }, false},
		{"create-excl", func(p string) int { return r.openClose(p, fs.O_CREAT|fs.O_EXCL|fs.O_WRONLY) },
			func(p string) error { return hostOpenClose(p, syscall.O_CREAT|syscall.O_EXCL|syscall.O_WRONLY) }, false},
		{"mkdir", func(p string) int { return r.ns.Mkdir(r.pages, r.root, []byte(p), 0o755, r.now()) },
			func(p string) error { return syscall.Mkdir(p, 0o755) }, false},
		{"unlink", func(p string) int { return r.ns.Unlink(r.pages, r.root, []byte(p), 0, r.now()) },
			func(p string) error { return syscall.Unlink(p) }, false},
		{"rmdir", func(p string) int { return r.ns.Unlink(r.pages, r.root, []byte(p), fs.AT_REMOVEDIR, r.now()) },
			func(p string) error { return syscall.Rmdir(p) }, false},
		{"symlink", func(p string) int { return r.ns.Symlink(r.pages, []byte("x"), r.root, []byte(p), r.now()) },
			func(p string) error { return syscall.Symlink("x", p) }, false},
		{"rename-to-tmp", func(p string) int {
			return r.ns.Rename(r.pages, r.root, []byte(p), r.root, []byte("/tmpx"), 0, r.now())
		},
			func(p string) error { return syscall.Rename(p, "/tmp/procfs-oracle-never") }, false},
		{"rename-within", func(p string) int {
			return r.ns.Rename(r.pages, r.root, []byte(p), r.root, []byte("/proc/newname"), 0, r.now())
		},
			func(p string) error { return syscall.Rename(p, "/proc/newname") }, false},
		{"link-within", func(p string) int {
			return r.ns.Link(r.pages, r.root, []byte(p), r.root, []byte("/proc/newname"), 0, r.now())
		},
			func(p string) error { return syscall.Link(p, "/proc/newname") }, false},
		{"access-x", func(p string) int { return r.ns.Access(r.root, []byte(p), fs.X_OK, 0) },
			func(p string) error { return syscall.Faccessat(unix_AT_FDCWD, p, fs.X_OK, 0) }, false},
		{"access-w", func(p string) int { return r.ns.Access(r.root, []byte(p), fs.W_OK, 0) },
			func(p string) error { return syscall.Faccessat(unix_AT_FDCWD, p, fs.W_OK, 0) }, false},
	}
	for _, p := range paths {
		for _, o := range ops {
			if o.name == "readlink" && (p == "/proc/self/cwd" || p == "/proc/self/exe" || p == dirLink) {
				continue // the targets differ: the host's are another process's files
			}
			if (o.name == "open-wronly" || o.name == "access-w") && (p == "/proc/sys/fs/pipe-max-size") {
				continue // writable there, read-only here
			}
			if o.name == "create-excl" && p == "/proc/self/fd/999" {
				continue // Linux makes no file there either, but looks the name up by following
			}
			if strings.HasPrefix(p, "/proc/self/cwd") || strings.HasPrefix(p, "/proc/self/exe") {
				if o.name != "lstat" && o.name != "readlink" {
					continue // through the host's links: its own working directory and program
				}
			}
			want := hostErrno(o.host(p))
			got := o.guest(p)
			if got == fs.EFDLINK {
				got = -1
			}
			if got != want {
				t.Errorf("%s %s: namespace errno %d, host %d", o.name, p, got, want)
			}
		}
		if modeDiffers[p] || strings.HasPrefix(p, "/proc/self/cwd") || strings.HasPrefix(p, "/proc/self/exe") {
			continue
		}
		var hst syscall.Stat_t
		if syscall.Lstat(p, &hst) == nil {
			st, errno := r.ns.StatAt(r.root, []byte(p), fs.AT_SYMLINK_NOFOLLOW)
			if errno != 0 || st.Mode != hst.Mode {
				t.Errorf("lstat %s: mode %o (errno %d), host %o", p, st.Mode, errno, hst.Mode)
			}
		}
	}
}

// unix_AT_FDCWD is AT_FDCWD for syscall.Faccessat.
const unix_AT_FDCWD = -100

func (r *procRig) openClose(path string, flags int) int {
	n, _, errno := r.ns.Open(r.pages, r.root, []byte(path), flags, 0o644, r.now())
	if errno == 0 {
		r.ns.Release(r.pages, n)
	}
	return errno
}

func hostOpenClose(path string, flags int) error {
	fd, err := syscall.Open(path, flags|syscall.O_CLOEXEC, 0o644)
	if err == nil {
		syscall.Close(fd)
	}
	return err
}

func unwrap(err error) error {
	if pe, ok := err.(*os.PathError); ok {
		return pe.Err
	}
	return err
}

func hostErrno(err error) int {
	if err == nil {
		return 0
	}
	if e, ok := err.(syscall.Errno); ok {
		return int(e)
	}
	return -2
}

// FuzzProc resolves arbitrary paths under /proc with every operation that looks, reads or
// lists, and checks what must hold of any answer: no errno but Linux's (the kernel-internal
// EFDLINK only where a descriptor without a file is reached), a directory's listing names
// entries that look up to what it says, and stat, open and read agree on what a file is.
func FuzzProc(f *testing.F) {
	for _, s := range []string{
		"/proc/self/fd/3", "/proc/self/fd/4/x", "/proc/thread-self/../../fd", "/proc/1/task/1/status",
		"/proc/self/cwd/proc/self/root/proc/meminfo", "/proc//self///cmdline/", "/proc/self/fd/5/../..",
		"/proc/sys/fs/pipe-max-size", "/proc/1/fdinfo/0", "/proc/self/fd/3/self/fd/3/self/cwd",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, path string) {
		if len(path) > 512 {
			return
		}
		r := newProcRig(t)
		r.file(t, "/proc", fs.O_RDONLY) // 3: a directory of /proc
		r.file(t, "/proc/1", fs.O_PATH) // 4
		r.x.FDs.Pipe2(0)                // 5, 6
		r.x.AddThread(t, 2)
		p := []byte(path)
		st, serr := r.ns.StatAt(r.root, p, 0)
		n, _, oerr := r.ns.Open(r.pages, r.root, p, fs.O_RDONLY, 0, r.now())
		if serr != oerr && !(serr == 0 && oerr == abi.ELOOP) {
			t.Fatalf("%q: stat %d, open %d", path, serr, oerr)
		}
		for _, e := range []int{serr, oerr} {
			if e > 200 && e != fs.EFDLINK {
				t.Fatalf("%q: errno %d", path, e)
			}
		}
		if oerr == 0 {
			defer r.ns.Release(r.pages, n)
			if st.Ino != uint64(n.Ino) || st.Mode&fs.S_IFMT != r.ns.Mode(n)&fs.S_IFMT {
				t.Fatalf("%q: stat %+v, open %+v mode %o", path, st, n, r.ns.Mode(n))
			}
			buf := make([]byte, 64)
			_, rerr := r.ns.Read(n, 0, buf, r.now())
			switch {
			case st.Mode&fs.S_IFMT == fs.S_IFDIR && rerr == 0 && r.ns.Proc(n):
				t.Fatalf("%q: a directory reads", path)
			case st.Mode&fs.S_IFMT == fs.S_IFREG && rerr != 0 && r.ns.Proc(n):
				t.Fatalf("%q: read %d", path, rerr)
			}
			if st.Mode&fs.S_IFMT == fs.S_IFDIR {
				dirents := make([]byte, 1024)
				k, _, errno := r.ns.ReadDir(n, 0, dirents, r.now())
				if errno != 0 {
					t.Fatalf("%q: readdir %d", path, errno)
				}
				for b := dirents[:k]; len(b) > 0; {
					reclen := binary.LittleEndian.Uint16(b[16:])
					ino := binary.LittleEndian.Uint64(b)
					name := b[19:reclen]
					name = name[:bytes.IndexByte(name, 0)]
					c, errno := r.ns.lookup(n, name)
					if string(name) != "." && string(name) != ".." && (errno != 0 || uint64(c.Ino) != ino) {
						t.Fatalf("%q: entry %q (%d) looks up to %+v, %d", path, name, ino, c, errno)
					}
					b = b[reclen:]
				}
			}
		}
		buf := make([]byte, 128)
		if _, errno := r.ns.Readlink(r.root, p, buf); errno > 200 {
			t.Fatalf("%q: readlink %d", path, errno)
		}
		if errno := r.ns.Access(r.root, p, fs.R_OK, 0); errno > 200 {
			t.Fatalf("%q: access %d", path, errno)
		}
		if d, errno := r.ns.Chdir(r.root, p); errno > 200 {
			t.Fatalf("%q: chdir %d", path, errno)
		} else if errno == 0 {
			r.ns.Release(r.pages, d)
		}
	})
}
