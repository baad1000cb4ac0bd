package files

import (
	"github.com/unitrace/unitrace/kernel/abi"
	"github.com/unitrace/unitrace/kernel/core"
	"github.com/unitrace/unitrace/kernel/fd"
	"github.com/unitrace/unitrace/kernel/fs"
	"github.com/unitrace/unitrace/kernel/fs/vfs"
	"github.com/unitrace/unitrace/kernel/machine"
)

// The system calls that take paths: each copies its paths (sys_path.go), finds where they start,
// and runs package vfs's operation of the same name, which checks in Linux's order. The calls
// only amd64 has (open, mkdir, rename, ...) are these with AT_FDCWD (syscall_handlers_amd64.go).

// DoOpenat opens a file (openat): the lowest free descriptor, or EMFILE once the path is
// copied and before it is looked at, as Linux takes the descriptor. Of the special files, the
// character devices the kernel serves open, and FIFOs (openFIFO); other devices and sockets have
// nothing behind them here (ENXIO). done is false while the thread waits for a FIFO's other end.
func DoOpenat(f *machine.Frame, dirfd int32, pathAddr uintptr, flags int, mode uint32) (uint64, bool) {
	ret, fifo := openPath(dirfd, pathAddr, flags, mode)
	if fifo == (vfs.Node{}) {
		return ret, true
	}
	return openFIFO(f, fifo, flags)
}

// openPath is DoOpenat but for a FIFO, which it returns (its reference released) for the
// caller to open.
func openPath(dirfd int32, pathAddr uintptr, flags int, mode uint32) (ret uint64, fifo vfs.Node) {
	if errno := vfs.OpenFlagsErrno(flags); errno != 0 { // the flags before the path, as Linux
		return abi.Neg(errno), fifo
	}
	path, errno := userPath(0, pathAddr)
	if errno != 0 {
		return abi.Neg(errno), fifo
	}
	if core.FDs.Full() {
		return abi.Neg(abi.EMFILE), fifo
	}
	at, errno := pathAt(dirfd, path, false)
	if scoped {
		at = vfs.At{Root: openStart, Dir: openStart} // openat2's RESOLVE_BENEATH and RESOLVE_IN_ROOT
	}
	if errno != 0 {
		return abi.Neg(errno), fifo
	}
	n, _, errno := core.RootNS.Open(&core.FSPages, at, path, flags, mode&^core.Umask, core.FSNow())
	if errno == fs.EFDLINK {
		return reopenDescriptor(core.RootNS.FDLink(), flags), fifo
	}
	if errno != 0 {
		return abi.Neg(errno), fifo
	}
	if errno := openable(n, flags); errno != 0 {
		core.ReleaseNode(n)
		if errno == errFIFO {
			return 0, n
		}
		if errno == errTTY {
			r, errno := core.FDs.OpenConsole(flags)
			return abi.ErrnoOr(errno, uint64(r)), fifo
		}
		return abi.Neg(errno), fifo
	}
	fdFlags := flags
	if flags&fs.O_PATH != 0 {
		fdFlags &= fs.O_PATH | fs.O_DIRECTORY | fs.O_NOFOLLOW | fs.O_CLOEXEC // as Linux keeps them
	}
	r, errno := core.FDs.OpenFile(n, fdFlags)
	if errno != 0 {
		core.ReleaseNode(n)
		return abi.Neg(errno), fifo
	}
	return uint64(r), fifo
}

// openable is the check of what vfs opened that belongs to the kernel: which special files have
// something behind them.
func openable(n vfs.Node, flags int) int {
	if flags&fs.O_PATH != 0 {
		return 0
	}
	st, errno := core.RootNS.Stat(n)
	if errno != 0 {
		return errno
	}
	switch st.Mode & fs.S_IFMT {
	case fs.S_IFCHR:
		if st.Rdev == fs.DevTTY {
			return errTTY
		}
		if !fs.KnownDevice(st.Rdev) {
			return abi.ENXIO
		}
	case fs.S_IFIFO:
		return errFIFO
	case fs.S_IFBLK, fs.S_IFSOCK:
		return abi.ENXIO
	}
	return 0
}

func DoMkdirat(dirfd int32, pathAddr uintptr, mode uint32) uint64 {
	at, path, errno := PathArg(0, dirfd, pathAddr, false)
	if errno != 0 {
		return abi.Neg(errno)
	}
	return abi.ErrnoOr(core.RootNS.Mkdir(&core.FSPages, at, path, mode&^core.Umask, core.FSNow()), 0)
}

// DoMknodat makes a file, device node, FIFO or socket; dev is the 32-bit device number the
// call takes (the Mkdev encoding, as stat reports it).
func DoMknodat(dirfd int32, pathAddr uintptr, mode uint32, dev uint32) uint64 {
	// The type before the path, as Linux's may_mknod: a directory EPERM, no known type EINVAL.
	switch mode & fs.S_IFMT {
	case 0, fs.S_IFREG, fs.S_IFCHR, fs.S_IFBLK, fs.S_IFIFO, fs.S_IFSOCK:
	case fs.S_IFDIR:
		return abi.Neg(abi.EPERM)
	default:
		return abi.Neg(abi.EINVAL)
	}
	at, path, errno := PathArg(0, dirfd, pathAddr, false)
	if errno != 0 {
		return abi.Neg(errno)
	}
	mode = mode&fs.S_IFMT | mode&fs.PermMask&^core.Umask
	return abi.ErrnoOr(core.RootNS.Mknod(&core.FSPages, at, path, mode, uint64(dev), core.FSNow()), 0)
}

func DoUnlinkat(dirfd int32, pathAddr uintptr, flags int) uint64 {
	if flags&^fs.AT_REMOVEDIR != 0 { // before the path, as Linux
		return abi.Neg(abi.EINVAL)
	}
	at, path, errno := PathArg(0, dirfd, pathAddr, false)
	if errno != 0 {
		return abi.Neg(errno)
	}
	return abi.ErrnoOr(core.RootNS.Unlink(&core.FSPages, at, path, flags, core.FSNow()), 0)
}

func DoRenameat2(olddirfd int32, oldAddr uintptr, newdirfd int32, newAddr uintptr, flags uint32) uint64 {
	// The flags before the paths, as Linux.
	if flags&^(fs.RENAME_NOREPLACE|fs.RENAME_EXCHANGE|fs.RENAME_WHITEOUT) != 0 ||
		flags&fs.RENAME_EXCHANGE != 0 && flags&(fs.RENAME_NOREPLACE|fs.RENAME_WHITEOUT) != 0 {
		return abi.Neg(abi.EINVAL)
	}
	oldAt, oldpath, errno := PathArg(0, olddirfd, oldAddr, false)
	if errno != 0 {
		return abi.Neg(errno)
	}
	newAt, newpath, errno := PathArg(1, newdirfd, newAddr, false)
	if errno != 0 {
		return abi.Neg(errno)
	}
	return abi.ErrnoOr(core.RootNS.Rename(&core.FSPages, oldAt, oldpath, newAt, newpath, flags, core.FSNow()), 0)
}

func DoLinkat(olddirfd int32, oldAddr uintptr, newdirfd int32, newAddr uintptr, flags int) uint64 {
	if flags&^(fs.AT_SYMLINK_FOLLOW|fs.AT_EMPTY_PATH) != 0 { // before the paths, as Linux
		return abi.Neg(abi.EINVAL)
	}
	oldAt, oldpath, errno := PathArg(0, olddirfd, oldAddr, flags&fs.AT_EMPTY_PATH != 0)
	if errno != 0 {
		return abi.Neg(errno)
	}
	newAt, newpath, errno := PathArg(1, newdirfd, newAddr, false)
	if errno != 0 {
		// Linux copies both names, then looks the old one up before the new one's error
		// (its copy, or its directory) counts.
		how := flags&fs.AT_EMPTY_PATH | fs.AT_SYMLINK_NOFOLLOW
		if flags&fs.AT_SYMLINK_FOLLOW != 0 {
			how &^= fs.AT_SYMLINK_NOFOLLOW
		}
		if _, oldErr := core.RootNS.StatAt(oldAt, oldpath, how); oldErr != 0 && oldErr != fs.EFDLINK {
			return abi.Neg(oldErr)
		}
		return abi.Neg(errno)
	}
	return abi.ErrnoOr(core.RootNS.Link(&core.FSPages, oldAt, oldpath, newAt, newpath, flags, core.FSNow()), 0)
}

// DoSymlinkat makes a symbolic link at path to target, which is copied as a path is.
func DoSymlinkat(targetAddr uintptr, dirfd int32, pathAddr uintptr) uint64 {
	target, errno := userPath(1, targetAddr)
	if errno == 0 && len(target) == 0 {
		errno = abi.ENOENT // an empty target, before the link's directory and path, as Linux
	}
	if errno != 0 {
		return abi.Neg(errno)
	}
	at, path, errno := PathArg(0, dirfd, pathAddr, false)
	if errno != 0 {
		return abi.Neg(errno)
	}
	return abi.ErrnoOr(core.RootNS.Symlink(&core.FSPages, target, at, path, core.FSNow()), 0)
}

// DoReadlinkat copies a symbolic link's target, cut to bufsiz, to buf. An empty path names
// dirfd itself (a link opened with O_PATH|O_NOFOLLOW), as Linux allows.
func DoReadlinkat(dirfd int32, pathAddr, buf uintptr, bufsiz int) uint64 {
	if bufsiz <= 0 {
		return abi.Neg(abi.EINVAL)
	}
	at, path, errno := PathArg(0, dirfd, pathAddr, true)
	if errno != 0 {
		return abi.Neg(errno)
	}
	target := PathBufs[1][:min(bufsiz, fs.PathMax)]
	n, errno := core.RootNS.Readlink(at, path, target)
	if errno != 0 {
		return abi.Neg(errno)
	}
	dst, ok := core.UserBytes(buf, uintptr(n), true)
	if !ok {
		return abi.Neg(abi.EFAULT)
	}
	copy(dst, target[:n])
	return uint64(n)
}

// statFlags are the flags newfstatat and statx take (AT_STATX_SYNC_TYPE's two bits among them).
const statFlags = fs.AT_SYMLINK_NOFOLLOW | fs.AT_NO_AUTOMOUNT | fs.AT_EMPTY_PATH | 0x6000

// statAt is the lookup of newfstatat and statx: with AT_EMPTY_PATH and an empty path, dirfd's
// own attributes, whatever kind of descriptor it is; through a /proc link to a descriptor with
// no file, that descriptor's.
func statAt(dirfd int32, pathAddr uintptr, flags int) (fs.Stat, int) {
	if flags&^statFlags != 0 {
		return fs.Stat{}, abi.EINVAL
	}
	at, path, errno := PathArg(0, dirfd, pathAddr, flags&fs.AT_EMPTY_PATH != 0)
	if errno == abi.ENOTDIR && len(path) == 0 {
		return descStat(int(dirfd))
	}
	if errno != 0 {
		return fs.Stat{}, errno
	}
	st, errno := core.RootNS.StatAt(at, path, flags)
	if errno == fs.EFDLINK {
		return descStat(core.RootNS.FDLink())
	}
	return st, errno
}

func DoNewfstatat(dirfd int32, pathAddr, buf uintptr, flags int) uint64 {
	st, errno := statAt(dirfd, pathAddr, flags)
	if errno == 0 {
		errno = putStat(buf, &st)
	}
	return abi.ErrnoOr(errno, 0)
}

// statx's mask bit that is reserved for a future struct statx, and its sync flags' value that
// means nothing (include/uapi/linux/stat.h, fcntl.h).
const (
	statxReserved    = 0x8000_0000
	atStatxSyncTypes = 0x6000
)

// Statx fills struct statx with everything memfs knows, whatever mask asks.
func Statx(_ *machine.Frame, a machine.SyscallArgs) (uint64, bool) {
	dirfd := int32(DirFDArg(a[0]))
	pathAddr := uintptr(a[1])
	flags := int(int32(a[2]))
	mask := uint32(a[3])
	buf := uintptr(a[4])
	if mask&statxReserved != 0 || flags&atStatxSyncTypes == atStatxSyncTypes {
		return abi.Neg(abi.EINVAL), true
	}
	st, errno := statAt(dirfd, pathAddr, flags)
	if errno == 0 {
		errno = putStatx(buf, &st)
	}
	return abi.ErrnoOr(errno, 0), true
}

func DoFaccessat(dirfd int32, pathAddr uintptr, mode uint32, flags int) uint64 {
	// The mode and the flags before the path, as Linux.
	if mode&^(fs.R_OK|fs.W_OK|fs.X_OK) != 0 || flags&^(fs.AT_EACCESS|fs.AT_SYMLINK_NOFOLLOW|fs.AT_EMPTY_PATH) != 0 {
		return abi.Neg(abi.EINVAL)
	}
	at, path, errno := PathArg(0, dirfd, pathAddr, flags&fs.AT_EMPTY_PATH != 0)
	if errno != 0 {
		return abi.Neg(errno)
	}
	return abi.ErrnoOr(core.RootNS.Access(at, path, mode, flags), 0)
}

func DoFchmodat(dirfd int32, pathAddr uintptr, mode uint32, flags int) uint64 {
	if flags&^(fs.AT_SYMLINK_NOFOLLOW|fs.AT_EMPTY_PATH) != 0 { // before the path, as Linux
		return abi.Neg(abi.EINVAL)
	}
	at, path, errno := PathArg(0, dirfd, pathAddr, flags&fs.AT_EMPTY_PATH != 0)
	if errno != 0 {
		return abi.Neg(errno)
	}
	return abi.ErrnoOr(core.RootNS.Chmod(at, path, mode, flags, core.FSNow()), 0)
}

// DoFchownat: as fchown, a change of owner is accepted and changes nothing, once the file
// is found.
func DoFchownat(dirfd int32, pathAddr uintptr, flags int) uint64 {
	if flags&^(fs.AT_SYMLINK_NOFOLLOW|fs.AT_EMPTY_PATH) != 0 {
		return abi.Neg(abi.EINVAL)
	}
	_, errno := statAt(dirfd, pathAddr, flags)
	return abi.ErrnoOr(errno, 0)
}

func Truncate(_ *machine.Frame, a machine.SyscallArgs) (uint64, bool) {
	pathAddr := uintptr(a[0])
	size := int64(a[1])
	if size < 0 { // before the path, as Linux's do_sys_truncate
		return abi.Neg(abi.EINVAL), true
	}
	at, path, errno := PathArg(0, AtFDCWD, pathAddr, false)
	if errno != 0 {
		return abi.Neg(errno), true
	}
	return abi.ErrnoOr(core.RootNS.Truncate(&core.FSPages, at, path, size, core.FSNow()), 0), true
}

// Utimensat sets a file's access and modification times from the two timespecs at times
// (none: both now). A NULL path names dirfd's own file (futimens), as Linux allows.
func Utimensat(_ *machine.Frame, a machine.SyscallArgs) (uint64, bool) {
	dirfd := int32(DirFDArg(a[0]))
	pathAddr := uintptr(a[1])
	times := uintptr(a[2])
	flags := int(int32(a[3]))
	atime := fs.Timespec{Nsec: fs.UTIME_NOW}
	mtime := atime
	if times != 0 {
		b, ok := core.UserBytes(times, 32, false)
		if !ok {
			return abi.Neg(abi.EFAULT), true
		}
		atime = fs.Timespec{Sec: int64(core.LE64(b[0:])), Nsec: int64(core.LE64(b[8:]))}
		mtime = fs.Timespec{Sec: int64(core.LE64(b[16:])), Nsec: int64(core.LE64(b[24:]))}
		if atime.Nsec == fs.UTIME_OMIT && mtime.Nsec == fs.UTIME_OMIT {
			return 0, true // Linux does not even look the path up
		}
	}
	if flags&^(fs.AT_SYMLINK_NOFOLLOW|fs.AT_EMPTY_PATH) != 0 { // before the path, as Linux
		return abi.Neg(abi.EINVAL), true
	}
	return setTimes(dirfd, pathAddr, atime, mtime, flags), true
}

// DoFutimesat is utimes and futimesat: two timevals at times (none: both now), each
// tv_usec in [0, 1000000) (else EINVAL), as Linux's do_futimesat.
func DoFutimesat(dirfd int32, pathAddr, times uintptr) uint64 {
	atime := fs.Timespec{Nsec: fs.UTIME_NOW}
	mtime := atime
	if times != 0 {
		b, ok := core.UserBytes(times, 32, false)
		if !ok {
			return abi.Neg(abi.EFAULT)
		}
		au, mu := int64(core.LE64(b[8:])), int64(core.LE64(b[24:]))
		if au < 0 || au >= 1e6 || mu < 0 || mu >= 1e6 {
			return abi.Neg(abi.EINVAL)
		}
		atime = fs.Timespec{Sec: int64(core.LE64(b[0:])), Nsec: au * 1000}
		mtime = fs.Timespec{Sec: int64(core.LE64(b[16:])), Nsec: mu * 1000}
	}
	return setTimes(dirfd, pathAddr, atime, mtime, 0)
}

// Utime is utime: a struct utimbuf (access and modification seconds) at times, or none
// for now.
func Utime(_ *machine.Frame, a machine.SyscallArgs) (uint64, bool) {
	pathAddr := uintptr(a[0])
	times := uintptr(a[1])
	atime := fs.Timespec{Nsec: fs.UTIME_NOW}
	mtime := atime
	if times != 0 {
		b, ok := core.UserBytes(times, 16, false)
		if !ok {
			return abi.Neg(abi.EFAULT), true
		}
		atime = fs.Timespec{Sec: int64(core.LE64(b[0:]))}
		mtime = fs.Timespec{Sec: int64(core.LE64(b[8:]))}
	}
	return setTimes(AtFDCWD, pathAddr, atime, mtime, 0), true
}

// setTimes is the common end of utimensat, futimesat, utimes and utime.
func setTimes(dirfd int32, pathAddr uintptr, atime, mtime fs.Timespec, flags int) uint64 {
	if pathAddr == 0 && dirfd != AtFDCWD {
		if flags != 0 {
			return abi.Neg(abi.EINVAL)
		}
		f, errno := fileOf(int(dirfd), abi.EPERM)
		if errno != 0 {
			return abi.Neg(errno)
		}
		at := vfs.At{Root: core.RootNS.Root(), Dir: f.Node}
		return abi.ErrnoOr(core.RootNS.Utimens(at, nil, atime, mtime, fs.AT_EMPTY_PATH, core.FSNow()), 0)
	}
	at, path, errno := PathArg(0, dirfd, pathAddr, flags&fs.AT_EMPTY_PATH != 0)
	if errno != 0 {
		return abi.Neg(errno)
	}
	return abi.ErrnoOr(core.RootNS.Utimens(at, path, atime, mtime, flags, core.FSNow()), 0)
}

func Statfs(_ *machine.Frame, a machine.SyscallArgs) (uint64, bool) {
	pathAddr := uintptr(a[0])
	buf := uintptr(a[1])
	at, path, errno := PathArg(0, AtFDCWD, pathAddr, false)
	if errno != 0 {
		return abi.Neg(errno), true
	}
	n, errno := core.RootNS.Resolve(at.Root, at.Dir, path, true, false)
	if errno != 0 {
		return abi.Neg(errno), true
	}
	return abi.ErrnoOr(putStatfs(buf, n), 0), true
}

func Chdir(_ *machine.Frame, a machine.SyscallArgs) (uint64, bool) {
	pathAddr := uintptr(a[0])
	at, path, errno := PathArg(0, AtFDCWD, pathAddr, false)
	if errno != 0 {
		return abi.Neg(errno), true
	}
	return abi.ErrnoOr(SetCwd(core.RootNS.Chdir(at, path)), 0), true
}

// Getcwd copies the working directory's path and its NUL to buf: ERANGE if size has no
// room for both, ENOENT if the directory was removed. It returns the length with the NUL.
func Getcwd(_ *machine.Frame, a machine.SyscallArgs) (uint64, bool) {
	buf := uintptr(a[0])
	size := uintptr(a[1])
	path := PathBufs[0][:]
	n, errno := core.RootNS.Path(core.RootNS.Root(), core.Cwd, path[:len(path)-1])
	if errno != 0 {
		return abi.Neg(errno), true
	}
	if uintptr(n)+1 > size {
		return abi.Neg(abi.ERANGE), true
	}
	path[n] = 0
	dst, ok := core.UserBytes(buf, uintptr(n)+1, true)
	if !ok {
		return abi.Neg(abi.EFAULT), true
	}
	copy(dst, path[:n+1])
	return uint64(n) + 1, true
}

func Umask(_ *machine.Frame, a machine.SyscallArgs) (uint64, bool) {
	mask := uint32(a[0])
	old := core.Umask
	core.Umask = mask & 0o777
	return uint64(old), true
}

// reopenDescriptor is open(2) of /proc/self/fd/d where descriptor d has no file behind it
// (vfs's fs.EFDLINK), as Linux opens the object d refers to: the console again, as a console
// descriptor of its own; a pipe at the end the access mode asks for (O_RDWR: d's own end), as
// a FIFO opens. Sockets, eventfds, epoll instances and the trace ports cannot be opened that way
// (ENXIO, Linux's answer for them), nor can O_PATH name any of them here.
func reopenDescriptor(d int, flags int) uint64 {
	if flags&fs.O_PATH != 0 {
		return abi.Neg(abi.ENXIO)
	}
	switch core.FDs.Kind(d) {
	case fd.KindConsole:
		n, errno := core.FDs.Dup(d, 0, flags&fs.O_CLOEXEC != 0)
		if errno != 0 {
			return abi.Neg(errno)
		}
		core.FDs.Fcntl(n, fd.F_SETFL, uintptr(flags&fs.O_NONBLOCK))
		return uint64(n)
	case fd.KindPipe:
		_, write, _ := core.FDs.Pipe(d)
		switch flags & fs.O_ACCMODE {
		case fs.O_RDONLY:
			write = false
		case fs.O_WRONLY:
			write = true
		}
		n, errno := core.FDs.ReopenPipe(d, write, flags)
		if errno != 0 {
			return abi.Neg(errno)
		}
		return uint64(n)
	}
	return abi.Neg(abi.ENXIO)
}
