package vfs

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"encoding/gob"
	"fmt"
	"hash/fnv"
	"os"
	"os/exec"
	"path"
	"runtime"
	"slices"
	"sort"
	"syscall"
	"testing"
	"unsafe"

	"github.com/unitrace/unitrace/kernel/abi"

	"github.com/unitrace/unitrace/kernel/fs"
	"github.com/unitrace/unitrace/kernel/fs/fstest"
	"github.com/unitrace/unitrace/kernel/fs/memfs"
)

// The oracle: the host's Linux. A helper process (this test binary, started with
// VFS_ORACLE_ROOT set) chroots into a fresh directory on a tmpfs and runs the operations it
// reads from its standard input with raw system calls, so that its errnos, "..", absolute
// symbolic links and the root behave as they would for a program in a unitrace image. Tests run
// the same operations on a Namespace and compare.

// op is one operation of a sequence. Dir and H are handles of open files (-1: AT_FDCWD).
type op struct {
	Kind        string
	Path, Path2 string
	Flags       int
	Mode        uint32
	Dev         uint64
	Off         int64
	Data        []byte
	N           int
	Dir, Dir2   int
	H           int
	Atime       fs.Timespec
	Mtime       fs.Timespec
	Times       bool // stat: compare the access and modification times too
}

// statLite is the part of a stat both sides must agree on (not times, inode or device numbers).
type statLite struct {
	Mode   uint32
	Nlink  uint32
	Size   int64
	Blocks int64
	Rdev   uint64
}

type entry struct {
	Path   string
	St     statLite
	Target string // symbolic links
	Sum    uint64 // regular files: FNV-1a of the contents
}

type result struct {
	Errno int
	H     int
	St    statLite
	Times [2]fs.Timespec
	Data  []byte
	Names []string
	Tree  []entry
}

func (r result) String() string {
	s := fmt.Sprintf("errno %d", r.Errno)
	if r.Errno != 0 {
		return s
	}
	if r.St != (statLite{}) {
		s += fmt.Sprintf(" st %+v", r.St)
	}
	if r.Data != nil {
		s += fmt.Sprintf(" data %q", r.Data)
	}
	if r.Names != nil {
		s += fmt.Sprintf(" names %v", r.Names)
	}
	return s
}

// side runs operations: the oracle or the Namespace.
type side interface{ do(op) result }

func TestMain(m *testing.M) {
	if root := os.Getenv("VFS_ORACLE_ROOT"); root != "" {
		os.Exit(serveOracle(root))
	}
	os.Exit(m.Run())
}

// oracle is the test's end of the helper process.
type oracle struct {
	cmd *exec.Cmd
	enc *gob.Encoder
	dec *gob.Decoder
	out *bufio.Writer
}

// tmpfsMagic is TMPFS_MAGIC (include/uapi/linux/magic.h).
const tmpfsMagic = 0x01021994

// newOracle starts a helper in a fresh directory on /dev/shm, or returns nil if it cannot: it
// needs root (to chroot) and a tmpfs there.
func newOracle(t testing.TB) *oracle {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Log("no Linux oracle: it needs root to chroot")
		return nil
	}
	var sfs syscall.Statfs_t
	if err := syscall.Statfs("/dev/shm", &sfs); err != nil || sfs.Type != tmpfsMagic {
		t.Log("no Linux oracle: it needs a tmpfs at /dev/shm")
		return nil
	}
	dir, err := os.MkdirTemp("/dev/shm", "vfs-oracle-")
	if err != nil {
		t.Logf("no Linux oracle: %v", err)
		return nil
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	if err := os.Chmod(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), "VFS_ORACLE_ROOT="+dir)
	cmd.Stderr = os.Stderr
	in, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatalf("start the oracle: %v", err)
	}
	o := &oracle{cmd: cmd, out: bufio.NewWriter(in), dec: gob.NewDecoder(bufio.NewReader(out))}
	o.enc = gob.NewEncoder(o.out)
	t.Cleanup(func() {
		in.Close()
		cmd.Wait()
	})
	return o
}

func (o *oracle) do(x op) result {
	var r result
	if err := o.enc.Encode(x); err != nil {
		panic(fmt.Sprintf("oracle: send: %v", err))
	}
	o.out.Flush()
	if err := o.dec.Decode(&r); err != nil {
		panic(fmt.Sprintf("oracle: receive: %v", err))
	}
	return r
}

// serveOracle is the helper process's main.
func serveOracle(root string) int {
	// A mount namespace of its own, private so that nothing mounted in it reaches the host, lets
	// the tests mount tmpfs instances like memfs ones. Without it (no CAP_SYS_ADMIN), "mount"
	// fails with errno -1 and the tests skip the comparison.
	runtime.LockOSThread()
	canMount := syscall.Unshare(syscall.CLONE_NEWNS) == nil &&
		syscall.Mount("none", "/", "", syscall.MS_REC|syscall.MS_PRIVATE, "") == nil
	if err := syscall.Chroot(root); err != nil {
		fmt.Fprintln(os.Stderr, "oracle: chroot:", err)
		return 1
	}
	syscall.Chdir("/")
	syscall.Umask(0)
	h := &host{fds: map[int]int{}, canMount: canMount}
	dec := gob.NewDecoder(bufio.NewReader(os.Stdin))
	w := bufio.NewWriter(os.Stdout)
	enc := gob.NewEncoder(w)
	for {
		var x op
		if err := dec.Decode(&x); err != nil {
			return 0
		}
		if err := enc.Encode(h.do(x)); err != nil {
			return 1
		}
		w.Flush()
	}
}

// host runs operations with raw system calls.
type host struct {
	fds      map[int]int // handle -> descriptor
	next     int
	canMount bool
}

func errnoOf(e syscall.Errno) int { return int(e) }

func cstr(s string) uintptr {
	b := append([]byte(s), 0)
	return uintptr(unsafe.Pointer(&b[0]))
}

func (h *host) dirfd(handle int) uintptr {
	if handle < 0 {
		fdcwd := int64(fs.AT_FDCWD)
		return uintptr(fdcwd)
	}
	if fd, ok := h.fds[handle]; ok {
		return uintptr(fd)
	}
	return 1 << 20 // a descriptor that is not open: EBADF
}

func (h *host) sys(n uintptr, a ...uintptr) (uintptr, int) {
	var args [6]uintptr
	copy(args[:], a)
	r, _, e := syscall.Syscall6(n, args[0], args[1], args[2], args[3], args[4], args[5])
	return r, errnoOf(e)
}

func liteOf(st *syscall.Stat_t) statLite {
	l := statLite{Mode: st.Mode, Nlink: uint32(st.Nlink), Size: st.Size, Blocks: st.Blocks, Rdev: st.Rdev}
	return l
}

func (h *host) do(x op) result {
	var r result
	switch x.Kind {
	case "open":
		fd, e := h.sys(syscall.SYS_OPENAT, h.dirfd(x.Dir), cstr(x.Path), uintptr(x.Flags|fs.O_CLOEXEC), uintptr(x.Mode))
		if r.Errno = e; e == 0 {
			h.next++
			h.fds[h.next] = int(fd)
			r.H = h.next
		}
	case "close":
		if fd, ok := h.fds[x.H]; ok {
			syscall.Close(fd)
			delete(h.fds, x.H)
		} else {
			r.Errno = abi.EBADF
		}
	case "read":
		buf := make([]byte, x.N)
		n, e := h.sys(syscall.SYS_PREAD64, h.dirfd(x.H), uintptr(unsafe.Pointer(unsafe.SliceData(buf))), uintptr(x.N), uintptr(x.Off))
		if r.Errno = e; e == 0 {
			r.Data = buf[:n]
		}
	case "write":
		data := append(append([]byte{0}, x.Data...), 0) // never empty, so &data[1] exists
		n, e := h.sys(syscall.SYS_PWRITE64, h.dirfd(x.H), uintptr(unsafe.Pointer(&data[1])), uintptr(len(x.Data)), uintptr(x.Off))
		if r.Errno = e; e == 0 {
			r.Data = []byte(fmt.Sprint(n))
		}
	case "ftruncate":
		_, r.Errno = h.sys(syscall.SYS_FTRUNCATE, h.dirfd(x.H), uintptr(x.Off))
	case "fstat":
		var st syscall.Stat_t
		if _, r.Errno = h.sys(syscall.SYS_FSTAT, h.dirfd(x.H), uintptr(unsafe.Pointer(&st))); r.Errno == 0 {
			r.St = liteOf(&st)
		}
	case "getdents":
		fd := h.dirfd(x.H)
		h.sys(syscall.SYS_LSEEK, fd, 0, 0)
		buf := make([]byte, 4096)
		for {
			n, e := h.sys(syscall.SYS_GETDENTS64, fd, uintptr(unsafe.Pointer(&buf[0])), uintptr(len(buf)))
			if e != 0 {
				r.Errno, r.Names = e, nil
				break
			}
			if n == 0 {
				break
			}
			r.Names = append(r.Names, parseDirents(buf[:n])...)
		}
		sort.Strings(r.Names)
	case "mkdir":
		_, r.Errno = h.sys(syscall.SYS_MKDIRAT, h.dirfd(x.Dir), cstr(x.Path), uintptr(x.Mode))
	case "mknod":
		_, r.Errno = h.sys(syscall.SYS_MKNODAT, h.dirfd(x.Dir), cstr(x.Path), uintptr(x.Mode), uintptr(x.Dev))
	case "symlink":
		_, r.Errno = h.sys(syscall.SYS_SYMLINKAT, cstr(x.Path2), h.dirfd(x.Dir), cstr(x.Path))
	case "link":
		_, r.Errno = h.sys(syscall.SYS_LINKAT, h.dirfd(x.Dir), cstr(x.Path), h.dirfd(x.Dir2), cstr(x.Path2), uintptr(x.Flags))
	case "unlink":
		_, r.Errno = h.sys(syscall.SYS_UNLINKAT, h.dirfd(x.Dir), cstr(x.Path), uintptr(x.Flags))
	case "rename":
		_, r.Errno = h.sys(sysRenameat2, h.dirfd(x.Dir), cstr(x.Path), h.dirfd(x.Dir2), cstr(x.Path2), uintptr(x.Flags))
	case "readlink":
		buf := make([]byte, x.N+1)
		n, e := h.sys(syscall.SYS_READLINKAT, h.dirfd(x.Dir), cstr(x.Path), uintptr(unsafe.Pointer(&buf[0])), uintptr(x.N))
		if r.Errno = e; e == 0 {
			r.Data = buf[:n]
		}
	case "stat":
		var st syscall.Stat_t
		if _, r.Errno = h.sys(sysFstatat, h.dirfd(x.Dir), cstr(x.Path), uintptr(unsafe.Pointer(&st)), uintptr(x.Flags)); r.Errno == 0 {
			r.St = liteOf(&st)
			r.Times = [2]fs.Timespec{{Sec: st.Atim.Sec, Nsec: st.Atim.Nsec}, {Sec: st.Mtim.Sec, Nsec: st.Mtim.Nsec}}
		}
	case "stattimes":
		var st syscall.Stat_t
		if _, r.Errno = h.sys(sysFstatat, h.dirfd(x.Dir), cstr(x.Path), uintptr(unsafe.Pointer(&st)), uintptr(x.Flags)); r.Errno == 0 {
			r.Times = [2]fs.Timespec{{Sec: st.Mtim.Sec, Nsec: st.Mtim.Nsec}, {Sec: st.Ctim.Sec, Nsec: st.Ctim.Nsec}}
		}
	case "access":
		_, r.Errno = h.sys(sysFaccessat2, h.dirfd(x.Dir), cstr(x.Path), uintptr(x.Mode), uintptr(x.Flags))
	case "chmod":
		_, r.Errno = h.sys(sysFchmodat2, h.dirfd(x.Dir), cstr(x.Path), uintptr(x.Mode), uintptr(x.Flags))
	case "truncate":
		_, r.Errno = h.sys(syscall.SYS_TRUNCATE, cstr(x.Path), uintptr(x.Off))
	case "utimens":
		ts := [2]syscall.Timespec{{Sec: x.Atime.Sec, Nsec: x.Atime.Nsec}, {Sec: x.Mtime.Sec, Nsec: x.Mtime.Nsec}}
		_, r.Errno = h.sys(syscall.SYS_UTIMENSAT, h.dirfd(x.Dir), cstr(x.Path), uintptr(unsafe.Pointer(&ts[0])), uintptr(x.Flags))
	case "mount":
		if !h.canMount {
			r.Errno = -1
			break
		}
		if err := syscall.Mount("tmpfs", x.Path, "tmpfs", 0, ""); err != nil {
			r.Errno = errnoOf(err.(syscall.Errno))
		}
	case "statfsflags": // statfs's ST_RDONLY bit for Path
		var st syscall.Statfs_t
		if err := syscall.Statfs(x.Path, &st); err != nil {
			r.Errno = errnoOf(err.(syscall.Errno))
		} else {
			r.Data = []byte{byte(st.Flags & fs.ST_RDONLY)}
		}
	case "rdonly": // make the mount at Path read-only
		if !h.canMount {
			r.Errno = -1
			break
		}
		if err := syscall.Mount("none", x.Path, "", syscall.MS_REMOUNT|syscall.MS_BIND|syscall.MS_RDONLY, ""); err != nil {
			r.Errno = errnoOf(err.(syscall.Errno))
		}
	case "dump":
		r.Tree = hostTree()
	case "reset": // back to an empty root, no descriptors open
		for hd, fd := range h.fds {
			syscall.Close(fd)
			delete(h.fds, hd)
		}
		h.next = 0
		names, _ := os.ReadDir("/")
		for _, n := range names {
			os.RemoveAll("/" + n.Name())
		}
		os.Chmod("/", 0o755)
	default:
		panic("unknown op " + x.Kind)
	}
	return r
}

// hostTree lists every file below "/".
func hostTree() []entry {
	var out []entry
	var walk func(dir string)
	walk = func(dir string) {
		f, err := os.Open(dir)
		if err != nil {
			return
		}
		names, _ := f.Readdirnames(-1)
		f.Close()
		for _, n := range names {
			p := path.Join(dir, n)
			var st syscall.Stat_t
			if syscall.Lstat(p, &st) != nil {
				continue
			}
			e := entry{Path: p, St: liteOf(&st)}
			switch st.Mode & syscall.S_IFMT {
			case syscall.S_IFLNK:
				e.Target, _ = os.Readlink(p)
			case syscall.S_IFREG:
				b, _ := os.ReadFile(p)
				e.Sum = sum(b)
			}
			out = append(out, e)
			if st.Mode&syscall.S_IFMT == syscall.S_IFDIR {
				walk(p)
			}
		}
	}
	var st syscall.Stat_t
	syscall.Lstat("/", &st)
	out = append(out, entry{Path: "/", St: liteOf(&st)})
	walk("/")
	return out
}

func sum(b []byte) uint64 {
	h := fnv.New64a()
	h.Write(b)
	return h.Sum64()
}

// parseDirents returns "name type" for each linux_dirent64 record in b.
func parseDirents(b []byte) []string {
	var out []string
	for len(b) >= 19 {
		reclen := int(binary.LittleEndian.Uint16(b[16:18]))
		if reclen < 20 || reclen > len(b) {
			return append(out, "<bad record>")
		}
		name := b[19:reclen]
		name = name[:bytes.IndexByte(name, 0)]
		out = append(out, fmt.Sprintf("%s %d", name, b[18]))
		b = b[reclen:]
	}
	return out
}

// mem runs operations on a Namespace, with the checks the system call layer will make on
// descriptors (access modes, O_PATH) done here.
type mem struct {
	t     testing.TB
	ns    *Namespace
	pages *fstest.Pages
	files map[int]*memFile
	next  int
	clock int64
}

type memFile struct {
	n      Node
	flags  int
	cookie uint64
}

func newMem(t testing.TB, c memfs.Capacity) *mem {
	m := &mem{t: t, ns: new(Namespace), pages: fstest.NewPages(t, 1<<16), files: map[int]*memFile{}}
	if errno := m.ns.Init(m.pages, c, m.now()); errno != 0 {
		t.Fatalf("Init = %d", errno)
	}
	return m
}

func (m *mem) now() fs.Timespec {
	m.clock += 1000
	return fs.Timespec{Sec: 1_700_000_000 + m.clock/1e9, Nsec: m.clock % 1e9}
}

func (m *mem) at(handle int) (At, int) {
	root := m.ns.Root()
	if handle < 0 {
		return At{Root: root, Dir: root}, 0
	}
	f, ok := m.files[handle]
	if !ok {
		return At{}, abi.EBADF
	}
	return At{Root: root, Dir: f.n}, 0
}

func (m *mem) file(handle int) (*memFile, int) {
	if f, ok := m.files[handle]; ok {
		return f, 0
	}
	return nil, abi.EBADF
}

func memLite(st fs.Stat) statLite {
	return statLite{Mode: st.Mode, Nlink: st.Nlink, Size: st.Size, Blocks: st.Blocks, Rdev: st.Rdev}
}

func (m *mem) do(x op) result {
	var r result
	p := m.pages
	at, e1 := m.at(x.Dir)
	at2, e2 := m.at(x.Dir2)
	switch x.Kind {
	case "open":
		if r.Errno = e1; r.Errno != 0 {
			break
		}
		n, _, errno := m.ns.Open(p, at, []byte(x.Path), x.Flags, x.Mode, m.now())
		if r.Errno = errno; errno == 0 {
			m.next++
			m.files[m.next] = &memFile{n: n, flags: x.Flags}
			r.H = m.next
		}
	case "close":
		f, errno := m.file(x.H)
		if r.Errno = errno; errno == 0 {
			m.ns.Release(p, f.n)
			delete(m.files, x.H)
		}
	case "read":
		f, errno := m.file(x.H)
		if errno == 0 && (f.flags&fs.O_PATH != 0 || f.flags&fs.O_ACCMODE == fs.O_WRONLY) {
			errno = abi.EBADF
		}
		if r.Errno = errno; errno != 0 {
			break
		}
		buf := make([]byte, x.N)
		n, errno := m.ns.Read(f.n, x.Off, buf, m.now())
		if r.Errno = errno; errno == 0 {
			r.Data = buf[:n]
		}
	case "write":
		f, errno := m.file(x.H)
		if errno == 0 && (f.flags&fs.O_PATH != 0 || f.flags&fs.O_ACCMODE == fs.O_RDONLY) {
			errno = abi.EBADF
		}
		if r.Errno = errno; errno != 0 {
			break
		}
		n, errno := m.ns.Write(p, f.n, x.Off, x.Data, f.flags&fs.O_APPEND != 0, m.now())
		if r.Errno = errno; errno == 0 {
			r.Data = []byte(fmt.Sprint(n))
		}
	case "ftruncate":
		f, errno := m.file(x.H)
		switch {
		case errno != 0:
		case f.flags&fs.O_PATH != 0:
			errno = abi.EBADF
		case f.flags&fs.O_ACCMODE == fs.O_RDONLY || m.ns.mode(f.n)&fs.S_IFMT != fs.S_IFREG:
			errno = abi.EINVAL
		default:
			errno = m.ns.Ftruncate(p, f.n, x.Off, m.now())
		}
		r.Errno = errno
	case "fstat":
		f, errno := m.file(x.H)
		if r.Errno = errno; errno == 0 {
			st, errno := m.ns.Stat(f.n)
			r.Errno, r.St = errno, memLite(st)
		}
	case "getdents":
		f, errno := m.file(x.H)
		if errno == 0 && f.flags&fs.O_PATH != 0 {
			errno = abi.EBADF
		}
		if r.Errno = errno; errno != 0 {
			break
		}
		buf := make([]byte, 64) // small, so that iteration resumes from cookies
		for cookie := uint64(0); ; {
			n, next, errno := m.ns.ReadDir(f.n, cookie, buf, m.now())
			if errno == abi.EINVAL && n == 0 {
				buf = make([]byte, 2*len(buf))
				continue
			}
			if errno != 0 {
				r.Errno, r.Names = errno, nil
				break
			}
			if n == 0 {
				break
			}
			r.Names = append(r.Names, parseDirents(buf[:n])...)
			cookie = next
		}
		sort.Strings(r.Names)
	case "mkdir":
		if r.Errno = e1; r.Errno == 0 {
			r.Errno = m.ns.Mkdir(p, at, []byte(x.Path), x.Mode, m.now())
		}
	case "mknod":
		if r.Errno = e1; r.Errno == 0 {
			r.Errno = m.ns.Mknod(p, at, []byte(x.Path), x.Mode, x.Dev, m.now())
		}
	case "symlink":
		if r.Errno = e1; r.Errno == 0 {
			r.Errno = m.ns.Symlink(p, []byte(x.Path2), at, []byte(x.Path), m.now())
		}
	case "link":
		if r.Errno = max(e1, e2); r.Errno == 0 {
			r.Errno = m.ns.Link(p, at, []byte(x.Path), at2, []byte(x.Path2), x.Flags, m.now())
		}
	case "unlink":
		if r.Errno = e1; r.Errno == 0 {
			r.Errno = m.ns.Unlink(p, at, []byte(x.Path), x.Flags, m.now())
		}
	case "rename":
		if r.Errno = max(e1, e2); r.Errno == 0 {
			r.Errno = m.ns.Rename(p, at, []byte(x.Path), at2, []byte(x.Path2), uint32(x.Flags), m.now())
		}
	case "readlink":
		if r.Errno = e1; r.Errno != 0 {
			break
		}
		buf := make([]byte, x.N)
		n, errno := m.ns.Readlink(at, []byte(x.Path), buf)
		if r.Errno = errno; errno == 0 {
			r.Data = buf[:n]
		}
	case "stat":
		if r.Errno = e1; r.Errno != 0 {
			break
		}
		st, errno := m.ns.StatAt(at, []byte(x.Path), x.Flags)
		if r.Errno = errno; errno == 0 {
			r.St = memLite(st)
			r.Times = [2]fs.Timespec{st.Atime, st.Mtime}
		}
	case "stattimes":
		if r.Errno = e1; r.Errno != 0 {
			break
		}
		st, errno := m.ns.StatAt(at, []byte(x.Path), x.Flags)
		if r.Errno = errno; errno == 0 {
			r.Times = [2]fs.Timespec{st.Mtime, st.Ctime}
		}
	case "access":
		if r.Errno = e1; r.Errno == 0 {
			r.Errno = m.ns.Access(at, []byte(x.Path), x.Mode, x.Flags)
		}
	case "chmod":
		if r.Errno = e1; r.Errno == 0 {
			r.Errno = m.ns.Chmod(at, []byte(x.Path), x.Mode, x.Flags, m.now())
		}
	case "truncate":
		r.Errno = m.ns.Truncate(p, At{Root: m.ns.Root(), Dir: m.ns.Root()}, []byte(x.Path), x.Off, m.now())
	case "utimens":
		if r.Errno = e1; r.Errno == 0 {
			r.Errno = m.ns.Utimens(at, []byte(x.Path), x.Atime, x.Mtime, x.Flags, m.now())
		}
	case "mount":
		n, errno := m.ns.Resolve(m.ns.Root(), m.ns.Root(), []byte(x.Path), true, false)
		if errno == 0 {
			_, errno = m.ns.MountMem(p, n, memfs.Capacity{Bytes: 16 << 20, Inodes: 100}, m.now())
		}
		r.Errno = errno
	case "statfsflags":
		st, errno := m.ns.StatfsAt(At{Root: m.ns.Root(), Dir: m.ns.Root()}, []byte(x.Path))
		if r.Errno = errno; errno == 0 {
			r.Data = []byte{byte(st.Flags & fs.ST_RDONLY)}
		}
	case "rdonly":
		n, errno := m.ns.Resolve(m.ns.Root(), m.ns.Root(), []byte(x.Path), true, false)
		if errno == 0 {
			errno = m.ns.SetReadOnly(n)
		}
		r.Errno = errno
	case "dump":
		r.Tree = m.tree()
	default:
		panic("unknown op " + x.Kind)
	}
	return r
}

// tree lists every file below the root, as hostTree does.
func (m *mem) tree() []entry {
	root := m.ns.Root()
	st, _ := m.ns.Stat(root)
	out := []entry{{Path: "/", St: memLite(st)}}
	var walk func(dir Node, name string)
	walk = func(dir Node, name string) {
		buf := make([]byte, 4096)
		for cookie := uint64(0); ; {
			n, next, errno := m.ns.ReadDir(dir, cookie, buf, m.now())
			if errno != 0 || n == 0 {
				return
			}
			cookie = next
			for _, rec := range parseDirents(buf[:n]) {
				child := rec[:len(rec)-len(" 0")]
				if rec[len(rec)-2] != ' ' {
					child = rec[:len(rec)-len(" 00")]
				}
				if child == "." || child == ".." {
					continue
				}
				n, errno := m.ns.lookup(dir, []byte(child))
				if errno != 0 {
					m.t.Fatalf("entry %s/%s from ReadDir: lookup = %d", name, child, errno)
				}
				n = m.ns.cross(n)
				st, _ := m.ns.Stat(n)
				p := path.Join(name, child)
				e := entry{Path: p, St: memLite(st)}
				switch st.Mode & fs.S_IFMT {
				case fs.S_IFLNK:
					b := make([]byte, fs.PathMax)
					k, _ := m.ns.readlink(n, b)
					e.Target = string(b[:k])
				case fs.S_IFREG:
					b := make([]byte, st.Size)
					m.ns.Read(n, 0, b, m.now())
					e.Sum = sum(b)
				}
				out = append(out, e)
				if st.Mode&fs.S_IFMT == fs.S_IFDIR {
					walk(n, p)
				}
			}
		}
	}
	walk(root, "/")
	return out
}

// compareTrees reports the first difference between two listings, ignoring what memfs
// legitimately does differently from tmpfs: the blocks of short symbolic links, which tmpfs
// keeps inside the inode.
func compareTrees(got, want []entry) string {
	norm := func(es []entry) []entry {
		es = slices.Clone(es)
		for i := range es {
			if es[i].St.Mode&fs.S_IFMT == fs.S_IFLNK {
				es[i].St.Blocks = 0
			}
		}
		sort.Slice(es, func(i, j int) bool { return es[i].Path < es[j].Path })
		return es
	}
	got, want = norm(got), norm(want)
	for i := 0; i < len(got) || i < len(want); i++ {
		switch {
		case i >= len(got):
			return fmt.Sprintf("memfs lacks %+v", want[i])
		case i >= len(want):
			return fmt.Sprintf("memfs has extra %+v", got[i])
		case got[i] != want[i]:
			return fmt.Sprintf("memfs has %+v, Linux %+v", got[i], want[i])
		}
	}
	return ""
}

// sameResult compares two results of one operation.
func sameResult(x op, got, want result) bool {
	if got.Errno != want.Errno {
		return false
	}
	if got.Errno != 0 {
		return true
	}
	g, w := got.St, want.St
	if g.Mode&fs.S_IFMT == fs.S_IFLNK {
		g.Blocks, w.Blocks = 0, 0
	}
	if g != w || !bytes.Equal(got.Data, want.Data) || !slices.Equal(got.Names, want.Names) {
		return false
	}
	if x.Times {
		return got.Times == want.Times
	}
	return true
}
