package packed

import (
	"github.com/unitrace/unitrace/kernel/abi"
	"github.com/unitrace/unitrace/kernel/fs"
	"github.com/unitrace/unitrace/kernel/fs/cpio"
	"github.com/unitrace/unitrace/kernel/fs/memfs"
	"github.com/unitrace/unitrace/kernel/fs/vfs"
)

// MaxDirs is how many packed directories an archive may hold: each is an in-memory file system
// of the namespace, which has vfs.MaxMemFS, one of them its root. (A kernel that mounts other
// memfs before Mount leaves fewer; Mount then fails with ENOSPC.)
const MaxDirs = vfs.MaxMemFS - 1

// capacity bounds each packed directory's memfs by the page allocator alone, and by the inodes a
// memfs can have: the archive says what goes in, and nothing can be added later.
var capacity = memfs.Capacity{Bytes: ^uint64(0) &^ (memfs.PageSize - 1), Inodes: memfs.MaxInodes}

// Result is how Mount went.
type Result struct {
	Format cpio.Err // not OK: the archive is malformed (cpio.Check)
	Errno  int      // not 0: unpacking a record failed
	Record int      // the offset in the archive of the record at fault; -1 if none
	Dirs   int      // the packed directories mounted
}

// OK reports whether Mount succeeded.
func (r Result) OK() bool { return r.Format == cpio.OK && r.Errno == 0 }

// Mount checks archive a (cpio.Check) and unpacks it into ns: every packed directory (see the
// package documentation) becomes a memfs mounted at its path, made read-only once it holds its
// records; the directories leading to it are made where missing. Records are unpacked in
// archive order, so a directory must come before what it holds; each is a directory, a regular
// file or a symbolic link, with the archive's permission bits and modification time (as the
// access time too); ownership, inode numbers and link counts are ignored (every record is a
// file of its own), and now is the change and creation time. A record is never unpacked through
// a symbolic link (ELOOP), a record outside every packed directory that is not a directory is
// refused (EINVAL), and so are devices, FIFOs and sockets, directories with data and link
// targets holding a NUL (EINVAL); a name that exists fails with EEXIST. An empty archive
// unpacks nothing. On failure what was unpacked so far stays, writable. The caller serialises
// it with every other use of ns.
func Mount(ns *vfs.Namespace, p vfs.Pages, a []byte, now fs.Timespec) Result {
	if len(a) == 0 {
		return Result{Record: -1}
	}
	if _, at, err := cpio.Check(a); err != cpio.OK {
		return Result{Format: err, Record: at}
	}
	u := unpacker{ns: ns, p: p, a: a, now: now, root: ns.Root()}
	for off := 0; ; {
		r, _ := cpio.At(a, off) // Check has read it
		if r.IsTrailer() {
			break
		}
		if errno := u.unpack(r); errno != 0 {
			return Result{Errno: errno, Record: off, Dirs: u.ndirs}
		}
		off = r.Next()
	}
	// Directory times last: each entry unpacked into a directory changed them.
	for off := 0; ; {
		r, _ := cpio.At(a, off)
		if r.IsTrailer() {
			break
		}
		if r.Type() == fs.S_IFDIR {
			if errno := u.setTimes(r); errno != 0 {
				return Result{Errno: errno, Record: off, Dirs: u.ndirs}
			}
		}
		off = r.Next()
	}
	for i := 0; i < u.ndirs; i++ {
		if errno := ns.SetReadOnly(u.dirs[i]); errno != 0 {
			return Result{Errno: errno, Record: -1, Dirs: u.ndirs}
		}
	}
	return Result{Record: -1, Dirs: u.ndirs}
}

// unpacker is Mount's state, on its stack.
type unpacker struct {
	ns    *vfs.Namespace
	p     vfs.Pages
	a     []byte
	now   fs.Timespec
	root  vfs.Node
	dirs  [MaxDirs]vfs.Node // the roots of the packed directories' memfs
	ndirs int
}

func (u *unpacker) at(dir vfs.Node) vfs.At { return vfs.At{Root: u.root, Dir: dir} }

// inPacked reports whether n is in one of the packed directories mounted so far.
func (u *unpacker) inPacked(n vfs.Node) bool {
	for i := 0; i < u.ndirs; i++ {
		if u.dirs[i].FS == n.FS {
			return true
		}
	}
	return false
}

// unpack creates record r.
func (u *unpacker) unpack(r cpio.Record) int {
	dir, last, errno := u.parent(r.Name(u.a), r.Type() == fs.S_IFDIR)
	if errno != 0 {
		return errno
	}
	if !u.inPacked(dir) {
		return u.mountDir(r, dir, last)
	}
	at := u.at(dir)
	switch r.Type() {
	case fs.S_IFDIR:
		if r.FileSize != 0 {
			return abi.EINVAL
		}
		if errno := u.ns.Mkdir(u.p, at, last, r.Perm(), u.now); errno != 0 {
			return errno
		}
		return u.ns.Chmod(at, last, r.Perm(), fs.AT_SYMLINK_NOFOLLOW, u.now) // mkdir keeps 01777 only
	case fs.S_IFREG:
		n, _, errno := u.ns.Open(u.p, at, last, fs.O_CREAT|fs.O_EXCL|fs.O_WRONLY, r.Perm(), u.now)
		if errno != 0 {
			return errno
		}
		errno = u.write(n, r.Data(u.a))
		u.ns.Release(u.p, n)
		if errno != 0 {
			return errno
		}
	case fs.S_IFLNK:
		target := r.Data(u.a)
		for _, c := range target {
			if c == 0 {
				return abi.EINVAL
			}
		}
		if errno := u.ns.Symlink(u.p, target, at, last, u.now); errno != 0 {
			return errno
		}
	default:
		return abi.EINVAL
	}
	t := fs.Timespec{Sec: int64(r.MTime)}
	return u.ns.Utimens(at, last, t, t, fs.AT_SYMLINK_NOFOLLOW, u.now)
}

// mountDir makes directory record r, whose parent dir is in no packed directory, a packed
// directory: a memfs mounted on last in dir, which is made if missing.
func (u *unpacker) mountDir(r cpio.Record, dir vfs.Node, last []byte) int {
	switch {
	case r.Type() != fs.S_IFDIR || r.FileSize != 0:
		return abi.EINVAL
	case u.ndirs == len(u.dirs):
		return abi.ENOSPC
	}
	if errno := u.ns.Mkdir(u.p, u.at(dir), last, 0o755, u.now); errno != 0 && errno != abi.EEXIST {
		return errno
	}
	point, errno := u.child(dir, last)
	if errno != 0 {
		return errno
	}
	if u.inPacked(point) {
		return abi.EEXIST // a second record for a packed directory
	}
	root, errno := u.ns.MountMem(u.p, point, capacity, u.now)
	if errno != 0 {
		return errno
	}
	u.dirs[u.ndirs] = root
	u.ndirs++
	return u.ns.Chmod(u.at(root), nil, r.Perm(), fs.AT_EMPTY_PATH, u.now)
}

// setTimes gives directory record r, unpacked, its time from the archive.
func (u *unpacker) setTimes(r cpio.Record) int {
	dir, last, errno := u.parent(r.Name(u.a), false)
	if errno != 0 {
		return errno
	}
	t := fs.Timespec{Sec: int64(r.MTime)}
	return u.ns.Utimens(u.at(dir), last, t, t, fs.AT_SYMLINK_NOFOLLOW, u.now)
}

// parent walks from the root to the directory that holds name's last component, which it
// returns with it. It follows no symbolic link (ELOOP) and, with create, makes missing
// directories (mode 0755) on the way, but never inside a packed directory.
func (u *unpacker) parent(name []byte, create bool) (dir vfs.Node, last []byte, errno int) {
	dir = u.root
	start := 0
	for i, c := range name {
		if c != '/' {
			continue
		}
		comp := name[start:i]
		next, errno := u.child(dir, comp)
		if errno == abi.ENOENT && create && !u.inPacked(dir) {
			if errno = u.ns.Mkdir(u.p, u.at(dir), comp, 0o755, u.now); errno == 0 {
				next, errno = u.child(dir, comp)
			}
		}
		if errno != 0 {
			return vfs.Node{}, nil, errno
		}
		dir, start = next, i+1
	}
	return dir, name[start:], 0
}

// child looks up the directory name in dir, crossing into what is mounted on it. A symbolic
// link fails with ELOOP, anything else that is not a directory with ENOTDIR.
func (u *unpacker) child(dir vfs.Node, name []byte) (vfs.Node, int) {
	n, errno := u.ns.Resolve(u.root, dir, name, false, false)
	if errno != 0 {
		return vfs.Node{}, errno
	}
	st, errno := u.ns.Stat(n)
	switch {
	case errno != 0:
		return vfs.Node{}, errno
	case st.Mode&fs.S_IFMT == fs.S_IFLNK:
		return vfs.Node{}, abi.ELOOP
	case st.Mode&fs.S_IFMT != fs.S_IFDIR:
		return vfs.Node{}, abi.ENOTDIR
	}
	return n, 0
}

// write writes data into the new file n.
func (u *unpacker) write(n vfs.Node, data []byte) int {
	for off := 0; off < len(data); {
		w, errno := u.ns.Write(u.p, n, int64(off), data[off:], false, u.now)
		if errno != 0 {
			return errno
		}
		if w == 0 {
			return abi.EIO
		}
		off += w
	}
	return 0
}
