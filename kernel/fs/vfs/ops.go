package vfs

import (
	"github.com/unitrace/unitrace/kernel/abi"
	"github.com/unitrace/unitrace/kernel/fs"

	"github.com/unitrace/unitrace/decimal"
)

// The path-level operations, one per system call family. Each checks in the order its Linux
// counterpart in fs/namei.c, fs/open.c, fs/stat.c or fs/utimes.c does, so that a path with
// several faults fails as it would on Linux. Modes are as the program gave them; the caller has
// applied its umask to the modes of the calls that create files.

// At is where a path starts: Dir for a relative path (the working directory, or a dirfd's
// directory), Root for an absolute one and as the limit of "..".
type At struct {
	Root, Dir Node
}

// Acquire takes a reference on n that keeps it alive after its last name goes (an open file, a
// working directory); Release drops it.
func (ns *Namespace) Acquire(n Node) int { return ns.acquire(n) }

// Release drops a reference taken by Acquire, Open or Chdir.
func (ns *Namespace) Release(p Pages, n Node) { ns.release(p, n) }

func (ns *Namespace) start(w *walk, at At, path []byte, emptyOK bool) (empty bool, errno int) {
	return ns.begin(w, at.Root, at.Dir, path, emptyOK)
}

// lookupAt resolves a whole path for the operations that take AT_SYMLINK_NOFOLLOW and
// AT_EMPTY_PATH in flags. A /proc link to a descriptor without a file is ENXIO
// (lookupAtFD leaves it fs.EFDLINK).
func (ns *Namespace) lookupAt(at At, path []byte, flags int) (Node, int) {
	return noFDLink(ns.lookupAtFD(at, path, flags))
}

func (ns *Namespace) lookupAtFD(at At, path []byte, flags int) (Node, int) {
	w := &ns.walks[0]
	empty, errno := ns.start(w, at, path, flags&fs.AT_EMPTY_PATH != 0)
	if errno != 0 {
		return Node{}, errno
	}
	if empty {
		return at.Dir, 0
	}
	lf := follow
	if flags&fs.AT_SYMLINK_NOFOLLOW != 0 {
		lf = 0
	}
	return ns.resolve(w, lf)
}

// OpenFlagsErrno is EINVAL for the open flags Linux's build_open_flags refuses before it looks
// at the path: O_DIRECTORY with O_CREAT, and __O_TMPFILE but as O_TMPFILE (with O_DIRECTORY,
// without O_CREAT) and a writing access mode. With O_PATH, open drops the other flags first
// (build_open_how), so none of them is refused.
func OpenFlagsErrno(flags int) int {
	const tmpfileBit = fs.O_TMPFILE &^ fs.O_DIRECTORY // __O_TMPFILE
	if flags&fs.O_PATH != 0 {
		flags &= fs.O_PATH | fs.O_DIRECTORY | fs.O_NOFOLLOW | fs.O_CLOEXEC
	}
	switch {
	case flags&(fs.O_DIRECTORY|fs.O_CREAT) == fs.O_DIRECTORY|fs.O_CREAT:
		return abi.EINVAL
	case flags&tmpfileBit == 0:
		return 0
	case flags&(fs.O_TMPFILE|fs.O_CREAT) != fs.O_TMPFILE, flags&fs.O_ACCMODE == fs.O_RDONLY:
		return abi.EINVAL
	}
	return 0
}

// Open opens the file path names (openat): it returns the file, with a reference the caller
// drops with Release when the descriptor closes, and whether Open created it. Access mode,
// O_CREAT, O_EXCL, O_TRUNC, O_DIRECTORY, O_NOFOLLOW and O_PATH change what it does; O_APPEND,
// O_NONBLOCK and O_CLOEXEC are the caller's to keep; other flags are ignored, as open ignores
// unknown ones. O_TMPFILE is not supported (EOPNOTSUPP). A path that ends at a /proc link to
// a descriptor without a file (a pipe, a socket, the console) fails with fs.EFDLINK, FDLink
// naming the descriptor: opening it is the caller's.
func (ns *Namespace) Open(p Pages, at At, path []byte, flags int, mode uint32, now fs.Timespec) (n Node, created bool, errno int) {
	if errno := OpenFlagsErrno(flags); errno != 0 {
		return Node{}, false, errno
	}
	switch {
	case flags&fs.O_PATH != 0:
		flags &= fs.O_PATH | fs.O_DIRECTORY | fs.O_NOFOLLOW | fs.O_CLOEXEC
	case flags&fs.O_TMPFILE == fs.O_TMPFILE:
		return Node{}, false, abi.EOPNOTSUPP
	}
	lf := follow
	if flags&fs.O_NOFOLLOW != 0 || flags&(fs.O_CREAT|fs.O_EXCL) == fs.O_CREAT|fs.O_EXCL {
		lf = 0
	}
	if flags&fs.O_DIRECTORY != 0 {
		lf |= wantDir
	}
	w := &ns.walks[0]
	if _, errno := ns.start(w, at, path, false); errno != 0 {
		return Node{}, false, errno
	}
	if flags&fs.O_PATH != 0 {
		n, errno := ns.resolve(w, lf)
		if errno == 0 {
			errno = ns.acquire(n)
		}
		return n, false, errno
	}
	for {
		last, typ, slash, errno := ns.parent(w)
		if errno != 0 {
			return Node{}, false, errno
		}
		switch {
		case typ == lastRoot || typ == lastDot:
			n = w.cur
		case typ == lastDotDot:
			if n, errno = ns.step(w, last, typ); errno != 0 {
				return Node{}, false, errno
			}
		case flags&fs.O_CREAT == 0:
			if slash {
				lf |= follow | wantDir
			}
			if n, errno = ns.step(w, last, typ); errno != 0 {
				return Node{}, false, errno
			}
		default:
			if slash {
				return Node{}, false, abi.EISDIR
			}
			n, errno = ns.lookup(w.cur, last)
			if errno == abi.ENOENT && ns.ReadOnly(w.cur) {
				return Node{}, false, abi.EROFS
			}
			if errno == abi.ENOENT {
				n, errno = ns.create(p, w.cur, last, fs.S_IFREG|mode&fs.PermMask, 0, now)
				created = errno == 0
			} else if errno == 0 {
				if n = ns.cross(n); w.scope&ResolveNoXdev != 0 && n.FS != w.cur.FS {
					errno = abi.EXDEV
				}
			}
			if errno != 0 {
				return Node{}, false, errno
			}
		}
		if !created && ns.isLink(n) && lf&follow != 0 {
			t, magic, errno := ns.jump(w, n)
			if !magic {
				if errno := ns.follow(w, n); errno != 0 {
					return Node{}, false, errno
				}
				continue
			}
			if errno == fs.EFDLINK && lf&wantDir != 0 {
				errno = abi.ENOTDIR
			}
			if errno != 0 {
				return Node{}, false, errno
			}
			n = t
		}
		break
	}
	return ns.finishOpen(p, n, created, flags, lf, now)
}

// finishOpen is Linux's do_open and may_open: the checks on the file found or made, and
// O_TRUNC.
func (ns *Namespace) finishOpen(p Pages, n Node, created bool, flags, lf int, now fs.Timespec) (Node, bool, int) {
	typ := ns.mode(n) & fs.S_IFMT
	if flags&fs.O_CREAT != 0 {
		if flags&fs.O_EXCL != 0 && !created {
			return Node{}, false, abi.EEXIST
		}
		if typ == fs.S_IFDIR {
			return Node{}, false, abi.EISDIR
		}
	}
	if lf&wantDir != 0 && typ != fs.S_IFDIR {
		return Node{}, false, abi.ENOTDIR
	}
	writes := flags&fs.O_ACCMODE != fs.O_RDONLY || flags&fs.O_TRUNC != 0
	switch typ {
	case fs.S_IFLNK:
		return Node{}, false, abi.ELOOP
	case fs.S_IFDIR:
		if writes {
			return Node{}, false, abi.EISDIR
		}
	case fs.S_IFREG:
		if writes && ns.ReadOnly(n) {
			return Node{}, false, abi.EROFS
		}
		if writes && ns.kindOf(n) == kindProc {
			if errno := ns.proc.WriteDenied(n.Ino); errno != 0 {
				return Node{}, false, errno
			}
		}
		if flags&fs.O_TRUNC != 0 && !created {
			if errno := ns.truncate(p, n, 0, true, now); errno != 0 {
				return Node{}, false, errno
			}
		}
	}
	if errno := ns.acquire(n); errno != 0 {
		return Node{}, false, errno
	}
	return n, created, 0
}

// createAt resolves the parent of a name to create (Linux's filename_create): "/", "." and ".."
// and names that exist fail with EEXIST; a trailing slash on a missing name fails with ENOENT
// unless the call makes a directory; then a read-only parent fails with EROFS.
func (ns *Namespace) createAt(w *walk, at At, path []byte, dir bool) (Node, []byte, int) {
	if _, errno := ns.start(w, at, path, false); errno != 0 {
		return Node{}, nil, errno
	}
	last, typ, slash, errno := ns.parent(w)
	if errno != 0 {
		return Node{}, nil, errno
	}
	if typ != lastNorm {
		return Node{}, nil, abi.EEXIST
	}
	_, errno = ns.lookup(w.cur, last)
	switch {
	case errno == 0:
		return Node{}, nil, abi.EEXIST
	case errno != abi.ENOENT:
		return Node{}, nil, errno
	case slash && !dir:
		return Node{}, nil, abi.ENOENT
	case ns.ReadOnly(w.cur):
		return Node{}, nil, abi.EROFS
	}
	return w.cur, last, 0
}

// Mkdir makes a directory (mkdirat); mode keeps its permission and sticky bits.
func (ns *Namespace) Mkdir(p Pages, at At, path []byte, mode uint32, now fs.Timespec) int {
	dir, name, errno := ns.createAt(&ns.walks[0], at, path, true)
	if errno != 0 {
		return errno
	}
	return ns.mkdir(p, dir, name, mode&(0o777|fs.S_ISVTX), now)
}

// Mknod makes a regular file, device, FIFO or socket (mknodat): mode's type bits say which (0
// is a regular file; S_IFDIR fails with EPERM, other types with EINVAL, before the path is
// looked at).
func (ns *Namespace) Mknod(p Pages, at At, path []byte, mode uint32, dev uint64, now fs.Timespec) int {
	switch mode & fs.S_IFMT {
	case 0:
		mode |= fs.S_IFREG
	case fs.S_IFREG, fs.S_IFCHR, fs.S_IFBLK, fs.S_IFIFO, fs.S_IFSOCK:
	case fs.S_IFDIR:
		return abi.EPERM
	default:
		return abi.EINVAL
	}
	dir, name, errno := ns.createAt(&ns.walks[0], at, path, false)
	if errno != 0 {
		return errno
	}
	_, errno = ns.create(p, dir, name, mode&(fs.S_IFMT|fs.PermMask), dev, now)
	return errno
}

// Symlink makes a symbolic link at path whose target is target (symlinkat).
func (ns *Namespace) Symlink(p Pages, target []byte, at At, path []byte, now fs.Timespec) int {
	switch {
	case len(target) == 0:
		return abi.ENOENT
	case len(target) >= fs.PathMax:
		return abi.ENAMETOOLONG
	}
	dir, name, errno := ns.createAt(&ns.walks[0], at, path, false)
	if errno != 0 {
		return errno
	}
	return ns.symlink(p, dir, name, target, now)
}

// Link gives the file oldpath names the further name newpath (linkat; flags AT_SYMLINK_FOLLOW,
// AT_EMPTY_PATH).
func (ns *Namespace) Link(p Pages, oldAt At, oldpath []byte, newAt At, newpath []byte, flags int, now fs.Timespec) int {
	if flags&^(fs.AT_SYMLINK_FOLLOW|fs.AT_EMPTY_PATH) != 0 {
		return abi.EINVAL
	}
	w := &ns.walks[0]
	empty, errno := ns.start(w, oldAt, oldpath, flags&fs.AT_EMPTY_PATH != 0)
	if errno != 0 {
		return errno
	}
	old := oldAt.Dir
	if !empty {
		lf := 0
		if flags&fs.AT_SYMLINK_FOLLOW != 0 {
			lf = follow
		}
		if old, errno = noFDLink(ns.resolve(w, lf)); errno != 0 {
			return errno
		}
	}
	dir, name, errno := ns.createAt(&ns.walks[1], newAt, newpath, false)
	if errno != 0 {
		return errno
	}
	if dir.FS != old.FS {
		return abi.EXDEV
	}
	return ns.link(p, dir, name, old, now)
}

// Unlink removes a name (unlinkat; with AT_REMOVEDIR it removes a directory, as rmdir).
func (ns *Namespace) Unlink(p Pages, at At, path []byte, flags int, now fs.Timespec) int {
	if flags&^fs.AT_REMOVEDIR != 0 {
		return abi.EINVAL
	}
	w := &ns.walks[0]
	if _, errno := ns.start(w, at, path, false); errno != 0 {
		return errno
	}
	last, typ, slash, errno := ns.parent(w)
	if errno != 0 {
		return errno
	}
	if flags&fs.AT_REMOVEDIR != 0 {
		switch typ {
		case lastDotDot:
			return abi.ENOTEMPTY
		case lastDot:
			return abi.EINVAL
		case lastRoot:
			return abi.EBUSY
		}
		if ns.ReadOnly(w.cur) {
			return abi.EROFS
		}
		return ns.rmdir(p, w.cur, last, now)
	}
	if typ != lastNorm {
		return abi.EISDIR
	}
	if ns.ReadOnly(w.cur) {
		return abi.EROFS
	}
	n, errno := ns.lookup(w.cur, last)
	switch {
	case errno == abi.ENOENT:
		return abi.ENOENT
	case errno != 0:
		return errno
	case slash && ns.isDir(n):
		return abi.EISDIR
	case slash:
		return abi.ENOTDIR
	}
	return ns.unlink(p, w.cur, last, now)
}

// Rename moves oldpath to newpath (renameat2; flags RENAME_NOREPLACE, RENAME_EXCHANGE;
// RENAME_WHITEOUT, which only overlay file systems use, fails with EINVAL).
func (ns *Namespace) Rename(p Pages, oldAt At, oldpath []byte, newAt At, newpath []byte, flags uint32, now fs.Timespec) int {
	if flags&^(fs.RENAME_NOREPLACE|fs.RENAME_EXCHANGE|fs.RENAME_WHITEOUT) != 0 ||
		flags&(fs.RENAME_NOREPLACE|fs.RENAME_WHITEOUT) != 0 && flags&fs.RENAME_EXCHANGE != 0 ||
		flags&fs.RENAME_WHITEOUT != 0 {
		return abi.EINVAL
	}
	ow, nw := &ns.walks[0], &ns.walks[1]
	if _, errno := ns.start(ow, oldAt, oldpath, false); errno != 0 {
		return errno
	}
	oname, otyp, oslash, errno := ns.parent(ow)
	if errno != 0 {
		return errno
	}
	if _, errno := ns.start(nw, newAt, newpath, false); errno != 0 {
		return errno
	}
	nname, ntyp, nslash, errno := ns.parent(nw)
	if errno != 0 {
		return errno
	}
	switch {
	case ow.cur.FS != nw.cur.FS:
		return abi.EXDEV
	case otyp != lastNorm:
		return abi.EBUSY
	case ntyp != lastNorm && flags&fs.RENAME_NOREPLACE != 0:
		return abi.EEXIST
	case ntyp != lastNorm:
		return abi.EBUSY
	case ns.ReadOnly(ow.cur):
		return abi.EROFS
	}
	old, errno := ns.lookup(ow.cur, oname)
	if errno != 0 {
		return errno
	}
	target, errno := ns.lookup(nw.cur, nname)
	if errno != 0 && errno != abi.ENOENT {
		return errno
	}
	if errno == abi.ENOENT && ns.kindOf(nw.cur) == kindProc {
		return abi.ENOENT // /proc has no negative entries: a new name fails to look up
	}
	exists := errno == 0
	exchange := flags&fs.RENAME_EXCHANGE != 0
	switch {
	case flags&fs.RENAME_NOREPLACE != 0 && exists:
		return abi.EEXIST
	case exchange && !exists:
		return abi.ENOENT
	case exchange && nslash && !ns.isDir(target):
		return abi.ENOTDIR
	case !ns.isDir(old) && (oslash || !exchange && nslash):
		return abi.ENOTDIR
	}
	return ns.rename(p, ow.cur, oname, nw.cur, nname, flags, now)
}

// Readlink copies the target of the symbolic link path names into dst and returns its length
// (readlinkat: an empty dst fails with EINVAL, and so does a file that is not a link). An empty
// path names at.Dir if that is a symbolic link (a descriptor opened with O_PATH|O_NOFOLLOW), and
// fails with ENOENT otherwise, as Linux does.
func (ns *Namespace) Readlink(at At, path []byte, dst []byte) (int, int) {
	if len(dst) == 0 {
		return 0, abi.EINVAL
	}
	var n Node
	if len(path) == 0 {
		if !ns.isLink(at.Dir) {
			return 0, abi.ENOENT
		}
		n = at.Dir
	} else {
		var errno int
		if n, errno = ns.lookupAt(at, path, fs.AT_SYMLINK_NOFOLLOW); errno != 0 {
			return 0, errno
		}
	}
	if !ns.isLink(n) {
		return 0, abi.EINVAL
	}
	return ns.readlink(n, dst)
}

// atStatxSyncType is statx's AT_STATX_SYNC_TYPE mask, which fstatat accepts too.
const atStatxSyncType = 0x6000

// StatAt returns the attributes of the file path names (fstatat, statx; flags
// AT_SYMLINK_NOFOLLOW, AT_EMPTY_PATH, AT_NO_AUTOMOUNT, AT_STATX_*). A path that ends at a /proc
// link to a descriptor without a file fails with fs.EFDLINK, FDLink naming the descriptor,
// whose attributes are the caller's.
func (ns *Namespace) StatAt(at At, path []byte, flags int) (fs.Stat, int) {
	if flags&^(fs.AT_SYMLINK_NOFOLLOW|fs.AT_NO_AUTOMOUNT|fs.AT_EMPTY_PATH|atStatxSyncType) != 0 {
		return fs.Stat{}, abi.EINVAL
	}
	n, errno := ns.lookupAtFD(at, path, flags)
	if errno != 0 {
		return fs.Stat{}, errno
	}
	return ns.Stat(n)
}

// Access checks that the file path names exists and allows mode (faccessat2; flags AT_EACCESS,
// AT_SYMLINK_NOFOLLOW, AT_EMPTY_PATH). The caller is root, for whom only X_OK on a file that is
// not a directory and has no execute bit can fail (EACCES), and W_OK on a read-only file system
// (EROFS) unless the file is special.
func (ns *Namespace) Access(at At, path []byte, mode uint32, flags int) int {
	if mode&^(fs.R_OK|fs.W_OK|fs.X_OK) != 0 || flags&^(fs.AT_EACCESS|fs.AT_SYMLINK_NOFOLLOW|fs.AT_EMPTY_PATH) != 0 {
		return abi.EINVAL
	}
	n, errno := ns.lookupAtFD(at, path, flags)
	if errno == fs.EFDLINK {
		// A pipe's, socket's or console's inode: root may read and write it, and it has no
		// execute bit.
		if mode&fs.X_OK != 0 {
			return abi.EACCES
		}
		return 0
	}
	if errno != 0 {
		return errno
	}
	m := ns.mode(n)
	if mode&fs.X_OK != 0 && m&fs.S_IFMT != fs.S_IFDIR && m&0o111 == 0 {
		return abi.EACCES
	}
	if mode&fs.W_OK != 0 && !special(m) && ns.ReadOnly(n) {
		return abi.EROFS
	}
	if mode&fs.W_OK != 0 && ns.kindOf(n) == kindProc {
		return ns.proc.WriteDenied(n.Ino)
	}
	return 0
}

// special reports whether mode is a device's, a FIFO's or a socket's: writing one does not change
// the file system it is on, so a read-only one allows it.
func special(mode uint32) bool {
	switch mode & fs.S_IFMT {
	case fs.S_IFCHR, fs.S_IFBLK, fs.S_IFIFO, fs.S_IFSOCK:
		return true
	}
	return false
}

// Chmod sets the permission bits of the file path names (fchmodat2; flags AT_SYMLINK_NOFOLLOW,
// AT_EMPTY_PATH). A symbolic link's mode cannot change (EOPNOTSUPP).
func (ns *Namespace) Chmod(at At, path []byte, mode uint32, flags int, now fs.Timespec) int {
	if flags&^(fs.AT_SYMLINK_NOFOLLOW|fs.AT_EMPTY_PATH) != 0 {
		return abi.EINVAL
	}
	n, errno := ns.lookupAt(at, path, flags)
	if errno != 0 {
		return errno
	}
	if ns.ReadOnly(n) {
		return abi.EROFS
	}
	if ns.isLink(n) {
		return abi.EOPNOTSUPP
	}
	return ns.chmod(n, mode, now)
}

// Utimens sets the access and modification times of the file path names (utimensat; flags
// AT_SYMLINK_NOFOLLOW, AT_EMPTY_PATH). A time whose Nsec is UTIME_NOW becomes now, one whose Nsec
// is UTIME_OMIT stays; the caller passes UTIME_NOW for both when the program passed no times.
func (ns *Namespace) Utimens(at At, path []byte, atime, mtime fs.Timespec, flags int, now fs.Timespec) int {
	if atime.Nsec == fs.UTIME_OMIT && mtime.Nsec == fs.UTIME_OMIT {
		return 0
	}
	if !nsecValid(atime.Nsec) || !nsecValid(mtime.Nsec) || flags&^(fs.AT_SYMLINK_NOFOLLOW|fs.AT_EMPTY_PATH) != 0 {
		return abi.EINVAL
	}
	n, errno := ns.lookupAt(at, path, flags)
	if errno != 0 {
		return errno
	}
	if ns.ReadOnly(n) {
		return abi.EROFS
	}
	if atime.Nsec == fs.UTIME_NOW {
		atime = now
	}
	if mtime.Nsec == fs.UTIME_NOW {
		mtime = now
	}
	return ns.setTimes(n, atime, mtime, atime.Nsec != fs.UTIME_OMIT, mtime.Nsec != fs.UTIME_OMIT, now)
}

func nsecValid(ns int64) bool {
	return ns >= 0 && ns < 1e9 || ns == fs.UTIME_NOW || ns == fs.UTIME_OMIT
}

// Truncate sets the size of the file path names (truncate): a directory fails with EISDIR, other
// files that are not regular with EINVAL.
func (ns *Namespace) Truncate(p Pages, at At, path []byte, size int64, now fs.Timespec) int {
	if size < 0 {
		return abi.EINVAL
	}
	n, errno := ns.lookupAt(at, path, 0)
	if errno != 0 {
		return errno
	}
	switch ns.mode(n) & fs.S_IFMT {
	case fs.S_IFDIR:
		return abi.EISDIR
	case fs.S_IFREG:
		if ns.ReadOnly(n) {
			return abi.EROFS
		}
		return ns.truncate(p, n, size, false, now)
	}
	return abi.EINVAL
}

// Chdir resolves the directory path names (chdir, chroot) and takes a reference on it that the
// caller drops with Release when it moves away.
func (ns *Namespace) Chdir(at At, path []byte) (Node, int) {
	w := &ns.walks[0]
	if _, errno := ns.start(w, at, path, false); errno != 0 {
		return Node{}, errno
	}
	n, errno := ns.resolve(w, follow|wantDir)
	if errno == 0 {
		errno = ns.acquire(n)
	}
	return n, errno
}

// StatfsAt returns the statistics of the file system holding the file path names (statfs).
func (ns *Namespace) StatfsAt(at At, path []byte) (fs.Statfs, int) {
	n, errno := ns.lookupAt(at, path, 0)
	if errno != 0 {
		return fs.Statfs{}, errno
	}
	return ns.Statfs(n)
}

// devNodes are the character devices MakeDev makes, all mode 0666 as on Linux.
var devNodes = [...]struct {
	name [7]byte
	len  uint8
	rdev uint64
}{
	{[7]byte{'n', 'u', 'l', 'l'}, 4, fs.DevNull},
	{[7]byte{'z', 'e', 'r', 'o'}, 4, fs.DevZero},
	{[7]byte{'f', 'u', 'l', 'l'}, 4, fs.DevFull},
	{[7]byte{'r', 'a', 'n', 'd', 'o', 'm'}, 6, fs.DevRandom},
	{[7]byte{'u', 'r', 'a', 'n', 'd', 'o', 'm'}, 7, fs.DevURandom},
	{[7]byte{'t', 't', 'y'}, 3, fs.DevTTY},
}

// MakeDev makes the directory /dev (if it is not there) and in it the character devices the
// kernel serves: null, zero, full, random and urandom, and tty (which opens the console).
func (ns *Namespace) MakeDev(p Pages, now fs.Timespec) int {
	root := At{Root: ns.Root(), Dir: ns.Root()}
	dev := [4]byte{'/', 'd', 'e', 'v'}
	if errno := ns.Mkdir(p, root, dev[:], 0o755, now); errno != 0 && errno != abi.EEXIST {
		return errno
	}
	d, errno := ns.Resolve(root.Root, root.Dir, dev[:], true, false)
	if errno != 0 {
		return errno
	}
	for i := range devNodes {
		n := &devNodes[i]
		errno := ns.Mknod(p, At{Root: root.Root, Dir: d}, n.name[:n.len], fs.S_IFCHR|0o666, n.rdev, now)
		if errno != 0 && errno != abi.EEXIST {
			return errno
		}
	}
	return 0
}

// Path writes into dst the absolute path of directory n as seen from root, with no terminating
// NUL, and returns its length (getcwd). It walks up through "..", finding each directory's name
// in its parent, and from a mounted file system's root on through the directory it is mounted
// on. A directory that was removed fails with ENOENT, a dst too small with ERANGE.
func (ns *Namespace) Path(root, n Node, dst []byte) (int, int) {
	st, errno := ns.Stat(n)
	switch {
	case errno != 0:
		return 0, errno
	case st.Nlink == 0:
		return 0, abi.ENOENT
	}
	var name [fs.NameMax]byte
	pos := len(dst)
	// Each step up writes at least "/x": a path that long cannot fit any dst.
	for steps := 0; n != root; steps++ {
		if steps > len(dst)/2 {
			return 0, abi.ERANGE
		}
		named := n // the directory whose entry in its parent names n
		for ns.isRoot(named) && named != root {
			m := &ns.mounts[named.FS%MaxMounts]
			if m.point == (Node{}) {
				break // the namespace's root
			}
			named = m.point
		}
		if named == root || ns.isRoot(named) {
			break
		}
		up, errno := ns.lookup(named, dotdotName[:])
		if errno != 0 {
			return 0, errno
		}
		k, errno := ns.nameOf(up, named, name[:])
		if errno != 0 {
			return 0, errno
		}
		if pos < k+1 {
			return 0, abi.ERANGE
		}
		pos -= k + 1
		dst[pos] = '/'
		copy(dst[pos+1:], name[:k])
		n = up
	}
	if pos == len(dst) { // the root itself
		if len(dst) == 0 {
			return 0, abi.ERANGE
		}
		pos--
		dst[pos] = '/'
	}
	return copy(dst, dst[pos:]), 0
}

// pathOf writes into dst the path of file n, as /proc's links to open files show it: a
// directory's path (Path); for another file the path of a directory that holds a name of it,
// and that name. A file with no name left (unlinked while open) is "/#<ino> (deleted)": Linux
// shows the path the file had, which nothing here keeps. A dst too small is ENAMETOOLONG.
func (ns *Namespace) pathOf(n Node, dst []byte) (int, int) {
	if ns.isDir(n) {
		k, errno := ns.Path(ns.Root(), n, dst)
		if errno == abi.ENOENT {
			return deletedName(n, dst), 0
		}
		return k, errno
	}
	dir, errno := ns.dirOf(n)
	if errno == abi.ENOENT {
		return deletedName(n, dst), 0
	}
	if errno != 0 {
		return 0, errno
	}
	var name [fs.NameMax]byte
	k, errno := ns.nameOf(dir, n, name[:])
	if errno == abi.ENOENT {
		return deletedName(n, dst), 0
	}
	if errno != 0 {
		return 0, errno
	}
	p, errno := ns.Path(ns.Root(), dir, dst)
	if errno != 0 {
		return 0, errno
	}
	if p == 1 { // the root: no second slash
		p = 0
	}
	if p+1+k > len(dst) {
		return 0, abi.ENAMETOOLONG
	}
	dst[p] = '/'
	return p + 1 + copy(dst[p+1:], name[:k]), 0
}

// deletedName writes "/#<ino> (deleted)" (cut to fit dst) and returns its length.
func deletedName(n Node, dst []byte) int {
	var b [32]byte
	i := copy(b[:], "/#")
	var d decimal.Digits
	i += copy(b[i:], d.Uint(uint64(n.Ino)))
	i += copy(b[i:], " (deleted)")
	return copy(dst, b[:i])
}
