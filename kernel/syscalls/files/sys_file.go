package files

import (
	"math"

	"github.com/unitrace/unitrace/kernel/abi"
	"github.com/unitrace/unitrace/kernel/core"
	"github.com/unitrace/unitrace/kernel/machine"

	"github.com/unitrace/unitrace/kernel/fd"
	"github.com/unitrace/unitrace/kernel/fs"
	"github.com/unitrace/unitrace/kernel/fs/vfs"
)

// Open files: reads, writes and the calls on a descriptor of the file system (fd.KindFile), with
// the checks on the descriptor that Linux makes before the file system is asked (the access
// mode, O_PATH) and the character devices served here (package fs's device semantics).

// maxDirents bounds the buffer one getdents64 fills: a shorter read is allowed, and only the
// pages it can fill are made present.
const maxDirents = 64 << 10

func canRead(f *fd.File) bool {
	acc := f.Flags & (fs.O_ACCMODE | fs.O_PATH)
	return acc == fs.O_RDONLY || acc == fs.O_RDWR
}

func canWrite(f *fd.File) bool {
	acc := f.Flags & (fs.O_ACCMODE | fs.O_PATH)
	return acc == fs.O_WRONLY || acc == fs.O_RDWR
}

// fileOf returns the open file of descriptor n for the calls that need one: EBADF if n is not
// open or names a file only (O_PATH); other kinds of descriptor are notFile.
func fileOf(n int, notFile int) (*fd.File, int) {
	f, ok := core.FDs.File(n)
	switch {
	case !ok && core.FDs.Kind(n) == fd.KindNone:
		return nil, abi.EBADF
	case !ok:
		return nil, notFile
	case f.Flags&fs.O_PATH != 0:
		return nil, abi.EBADF
	}
	return f, 0
}

// fileRead reads up to count bytes at off into buf (read, pread64 and the vector forms): a
// regular file's bytes, a device's, a directory EISDIR. It copies into user memory only what the
// file has, so a read at the end touches no page of buf. seekable says whether the position
// moves (not for devices).
func fileRead(f *fd.File, off int64, buf, count uintptr) (n int, seekable bool, errno int) {
	switch {
	case !canRead(f):
		return 0, false, abi.EBADF
	case !core.AccessOK(buf, count): // as Linux's vfs_read, before anything is looked at
		return 0, false, abi.EFAULT
	}
	count = min(count, core.MaxRW)
	st, errno := readStat(f.Node)
	if errno != 0 {
		return 0, false, errno
	}
	switch st.Mode & fs.S_IFMT {
	case fs.S_IFCHR:
		n, errno := charDeviceRead(st.Rdev, buf, count)
		return n, false, errno
	case fs.S_IFDIR:
		return 0, false, abi.EISDIR
	case fs.S_IFREG:
	default:
		return 0, false, abi.EINVAL
	}
	if off < 0 {
		return 0, true, abi.EINVAL
	}
	if off >= st.Size {
		count = 0
	} else {
		count = uintptr(min(int64(count), st.Size-off))
	}
	// A buffer that runs into an unmapped page takes the bytes that fit before it, as Linux's
	// copy to user memory stops at the fault: EFAULT only when not even one does.
	dst := core.UserPrefixBytes(buf, count, true)
	if count > 0 && len(dst) == 0 {
		return 0, true, abi.EFAULT
	}
	n, errno = core.RootNS.Read(f.Node, off, dst, core.FSNow())
	return n, true, errno
}

// readStat is what fileRead needs of a file: its type, and its size, so that a read copies only
// what the file has. A shared directory's file gives its type as last seen and no size: asking
// the host would double every read's round trips (testing/fstest reads files a few bytes at a
// time), and the host's reply says how much there was. A file of /proc has no size (stat says
// 0, as Linux's): its contents are made as it is read.
func readStat(n vfs.Node) (fs.Stat, int) {
	if core.RootNS.Remote(n) || core.RootNS.Proc(n) {
		return fs.Stat{Mode: core.RootNS.Mode(n), Size: math.MaxInt64}, 0
	}
	return core.RootNS.Stat(n)
}

// charDeviceRead reads from character device rdev: /dev/null at its end without looking at buf.
func charDeviceRead(rdev uint64, buf, count uintptr) (int, int) {
	if !fs.KnownDevice(rdev) {
		return 0, abi.ENXIO
	}
	if rdev == fs.DevNull || count == 0 {
		return 0, 0
	}
	dst, ok := core.UserBytes(buf, count, true)
	if !ok {
		return 0, abi.EFAULT
	}
	n, random, errno := fs.ReadDevice(rdev, dst)
	if random {
		fillRandom(dst)
	}
	return n, errno
}

// fileWrite writes count bytes from buf at off (write, pwrite64 and the vector forms), or at the
// end of the file with O_APPEND (pwrite too, as on Linux); end is where the write ended, the
// position a write moves to. Devices take the bytes as package fs says, without reading them.
func fileWrite(f *fd.File, off int64, buf, count uintptr) (n int, end int64, seekable bool, errno int) {
	switch {
	case !canWrite(f):
		return 0, 0, false, abi.EBADF
	case !core.AccessOK(buf, count): // as Linux's vfs_write
		return 0, 0, false, abi.EFAULT
	}
	count = min(count, core.MaxRW)
	// The size matters only to O_APPEND: a shared directory's file is not asked for it
	// otherwise (readStat says why).
	st := fs.Stat{Mode: core.RootNS.Mode(f.Node)}
	if !core.RootNS.Remote(f.Node) || f.Flags&fs.O_APPEND != 0 {
		if st, errno = core.RootNS.Stat(f.Node); errno != 0 {
			return 0, 0, false, errno
		}
	}
	switch st.Mode & fs.S_IFMT {
	case fs.S_IFCHR:
		n, errno := fs.WriteDevice(st.Rdev, int(count))
		return n, 0, false, errno
	case fs.S_IFREG:
	default:
		return 0, 0, false, abi.EINVAL
	}
	if f.Flags&fs.O_APPEND != 0 {
		off = st.Size
	}
	if off < 0 {
		return 0, 0, true, abi.EINVAL
	}
	src := core.UserPrefixBytes(buf, count, false) // the bytes before a fault, as for a read
	if count > 0 && len(src) == 0 {
		return 0, 0, true, abi.EFAULT
	}
	n, errno = core.RootNS.Write(&core.FSPages, f.Node, off, src, false, core.FSNow())
	return n, off + int64(n), true, errno
}

// readFile is read(2) of an open file, at and moving its position.
func readFile(n int, buf, count uintptr) uint64 {
	f, errno := fileOf(n, abi.EINVAL)
	if errno != 0 {
		return abi.Neg(errno)
	}
	got, seekable, errno := fileRead(f, f.Pos, buf, count)
	if errno != 0 {
		return abi.Neg(errno)
	}
	if seekable {
		f.Pos += int64(got)
	}
	return uint64(got)
}

// writeFile is write(2) of an open file, at and moving its position.
func writeFile(n int, buf, count uintptr) uint64 {
	f, errno := fileOf(n, abi.EINVAL)
	if errno != 0 {
		return abi.Neg(errno)
	}
	got, end, seekable, errno := fileWrite(f, f.Pos, buf, count)
	if errno != 0 {
		return abi.Neg(errno)
	}
	if seekable {
		f.Pos = end
	}
	return uint64(got)
}

// Pread64 and Pwrite64 are pread64 and pwrite64: at off, leaving the position. A
// descriptor that is not a file cannot seek (ESPIPE), as Linux's console and eventfds.
func Pread64(_ *machine.Frame, a machine.SyscallArgs) (uint64, bool) {
	f, off, errno := positioned(a)
	if errno != 0 {
		return abi.Neg(errno), true
	}
	got, _, errno := fileRead(f, off, uintptr(a[1]), uintptr(a[2]))
	return abi.ErrnoOr(errno, uint64(got)), true
}

func Pwrite64(_ *machine.Frame, a machine.SyscallArgs) (uint64, bool) {
	f, off, errno := positioned(a)
	if errno != 0 {
		return abi.Neg(errno), true
	}
	got, _, _, errno := fileWrite(f, off, uintptr(a[1]), uintptr(a[2]))
	return abi.ErrnoOr(errno, uint64(got)), true
}

// positioned checks a pread64's or pwrite64's offset (a[3]), before the descriptor (a[0]) as
// Linux, and returns the descriptor's file.
func positioned(a machine.SyscallArgs) (*fd.File, int64, int) {
	off := int64(a[3])
	if off < 0 {
		return nil, 0, abi.EINVAL
	}
	f, errno := fileOf(int(a[0]), abi.ESPIPE)
	return f, off, errno
}

// VectorIO is readv, writev, preadv and pwritev: the buffers of the iovec array at iov in turn,
// through one read or write each, stopping at the first that moves fewer bytes than it asked.
// pos < 0 means the file position (readv, writev), which moves; else the offset to start at.
// An error after some bytes moved ends the call with the bytes, as Linux does. The console
// writes every buffer and reads end of file; other descriptors that are not files are EINVAL
// (ESPIPE with an offset).
func VectorIO(n int, iov uintptr, cnt int, pos int64, write bool) uint64 {
	// The descriptor and its access mode before the iovecs, as Linux's vfs_readv and
	// vfs_writev.
	console := core.FDs.Kind(n) == fd.KindConsole && pos < 0 && write // readv: console.Call
	var f *fd.File
	if !console {
		notFile := abi.EINVAL
		if pos >= 0 {
			notFile = abi.ESPIPE
		}
		var errno int
		if f, errno = fileOf(n, notFile); errno != 0 {
			return abi.Neg(errno)
		}
		if write && !canWrite(f) || !write && !canRead(f) {
			return abi.Neg(abi.EBADF)
		}
	}
	if cnt < 0 {
		return abi.Neg(abi.EINVAL)
	}
	vec, total, errno := core.ImportIovec(iov, uintptr(cnt))
	if errno != 0 {
		return abi.Neg(errno)
	}
	if console {
		for i := 0; i < cnt; i++ {
			b, ok := core.UserBytes(uintptr(core.LE64(vec[i*core.IovecSize:])), uintptr(core.LE64(vec[i*core.IovecSize+8:])), false)
			if !ok {
				return abi.Neg(abi.EFAULT)
			}
			machine.ConsoleWrite(b)
		}
		return total
	}
	off := pos
	if pos < 0 {
		off = f.Pos
	}
	var done uint64
	for i := 0; i < cnt; i++ {
		base, size := uintptr(core.LE64(vec[i*core.IovecSize:])), uintptr(core.LE64(vec[i*core.IovecSize+8:]))
		size = min(size, uintptr(core.MaxRW-done))
		var got int
		var seekable bool
		if write {
			var end int64
			got, end, seekable, errno = fileWrite(f, off, base, size)
			off = end
		} else {
			got, seekable, errno = fileRead(f, off, base, size)
			off += int64(got)
		}
		if errno != 0 {
			if done > 0 {
				break
			}
			return abi.Neg(errno)
		}
		done += uint64(got)
		if pos < 0 && seekable {
			f.Pos = off
		}
		if uintptr(got) < size || done >= core.MaxRW {
			break
		}
	}
	return done
}

// Whence values of lseek (linux/fs.h).
const (
	seekSet  = 0
	seekCur  = 1
	seekEnd  = 2
	seekData = 3
	seekHole = 4
)

// Lseek moves an open file's position: a regular file anywhere from 0 on (SEEK_DATA and
// SEEK_HOLE see the file as all data, with the one hole at its end, as Linux's generic code
// does), a directory to a getdents64 cookie (SEEK_SET and SEEK_CUR only, as tmpfs), a device
// nowhere (0). A file of /proc, which has no end to seek from, takes SEEK_SET and SEEK_CUR only,
// as Linux's seq files. Other descriptors cannot seek (ESPIPE).
func Lseek(_ *machine.Frame, a machine.SyscallArgs) (uint64, bool) {
	n := int(a[0])
	off := int64(a[1])
	whence := int(int32(a[2]))
	// As Linux: whence is checked before the descriptor's kind; eventfds, epoll instances and
	// timerfds "seek" without moving (noop_llseek: their position, always 0).
	if core.FDs.Kind(n) != fd.KindNone && uint32(whence) > seekHole {
		return abi.Neg(abi.EINVAL), true
	}
	switch core.FDs.Kind(n) {
	case fd.KindEventfd, fd.KindEpoll, fd.KindTimerfd:
		return 0, true
	}
	f, errno := fileOf(n, abi.ESPIPE)
	if errno != 0 {
		return abi.Neg(errno), true
	}
	st, errno := core.RootNS.Stat(f.Node)
	if errno != 0 {
		return abi.Neg(errno), true
	}
	pos := int64(-1)
	switch st.Mode & fs.S_IFMT {
	case fs.S_IFCHR:
		return 0, true
	case fs.S_IFDIR:
		switch whence {
		case seekSet:
			pos = off
		case seekCur:
			pos = addPos(f.Pos, off)
		}
	default:
		proc := core.RootNS.Proc(f.Node)
		switch {
		case whence == seekSet:
			pos = off
		case whence == seekCur:
			pos = addPos(f.Pos, off)
		case proc: // the rest: EINVAL
		case whence == seekEnd:
			pos = addPos(st.Size, off)
		case whence == seekData || whence == seekHole:
			if off < 0 || off >= st.Size {
				return abi.Neg(abi.ENXIO), true
			}
			pos = off
			if whence == seekHole {
				pos = st.Size
			}
		}
	}
	if pos < 0 {
		return abi.Neg(abi.EINVAL), true
	}
	f.Pos = pos
	return uint64(pos), true
}

// addPos adds an offset to a position, -1 (invalid) if the sum overflows.
func addPos(a, b int64) int64 {
	if b > 0 && a > (1<<63-1)-b {
		return -1
	}
	return a + b
}

// direntProbe holds one directory record (the largest: a 255-byte name), for getdents64 to
// tell a record that does not fit (EINVAL) from one that faults (EFAULT).
var direntProbe [280]byte

// Getdents64 reads directory entries from an open directory's position on.
func Getdents64(_ *machine.Frame, a machine.SyscallArgs) (uint64, bool) {
	n := int(a[0])
	dirp := uintptr(a[1])
	count := uintptr(uint32(a[2]))
	f, errno := fileOf(n, abi.ENOTDIR)
	if errno != 0 {
		return abi.Neg(errno), true
	}
	if st, errno := core.RootNS.Stat(f.Node); errno != 0 || st.Mode&fs.S_IFMT != fs.S_IFDIR {
		return abi.Neg(max(errno, abi.ENOTDIR)), true
	}
	// Linux copies the records one by one: a buffer that runs into unmapped memory gets the
	// records that fit before it, and EFAULT only if the first one that fits in count does not.
	want := min(count, maxDirents)
	p := core.UserPrefix(dirp, want, true)
	var dst []byte
	if p > 0 {
		dst = machine.BytesAt(dirp, p)
	}
	got, next, errno := core.RootNS.ReadDir(f.Node, uint64(f.Pos), dst, core.FSNow())
	if errno == abi.EINVAL && p < want {
		// The first record does not fit in the mapped part: would it in count?
		if _, _, e := core.RootNS.ReadDir(f.Node, uint64(f.Pos), direntProbe[:min(want, uintptr(len(direntProbe)))], core.FSNow()); e == 0 {
			errno = abi.EFAULT
		}
	}
	if errno != 0 {
		return abi.Neg(errno), true
	}
	f.Pos = int64(next)
	return uint64(got), true
}

// descStat is what fstat reports about descriptor n: its file's attributes, and for the other
// kinds what Linux shows of their inodes: the console a character device (as /dev/console, 5:1),
// eventfds, epoll instances and the trace ports anonymous inodes (mode 0600, no type).
func descStat(n int) (fs.Stat, int) {
	if f, ok := core.FDs.File(n); ok {
		return core.RootNS.Stat(f.Node)
	}
	switch core.FDs.Kind(n) {
	case fd.KindNone:
		return fs.Stat{}, abi.EBADF
	case fd.KindConsole:
		return fs.Stat{Dev: fs.Mkdev(0, 5), Ino: 1, Mode: fs.S_IFCHR | 0o620, Nlink: 1, Rdev: fs.Mkdev(5, 1), Blksize: 1024}, 0
	case fd.KindPipe: // on Linux's pipefs (0:12), an inode per pipe, as /proc's fd links name it
		return fs.Stat{Dev: fs.Mkdev(0, 12), Ino: core.FDs.Inode(n), Mode: fs.S_IFIFO | 0o600, Nlink: 1, Blksize: 4096}, 0
	case fd.KindSocket, fd.KindPair: // on Linux's sockfs (0:8), an inode per socket
		return fs.Stat{Dev: fs.Mkdev(0, 8), Ino: core.FDs.Inode(n), Mode: fs.S_IFSOCK | 0o777, Nlink: 1, Blksize: 4096}, 0
	}
	return fs.Stat{Dev: fs.Mkdev(0, 14), Ino: 1, Mode: 0o600, Nlink: 1, Blksize: 4096}, 0
}

// putStat and putStatx copy a stat to user memory.
func putStat(buf uintptr, st *fs.Stat) int {
	b, ok := core.UserBytes(buf, fs.StatSize, true)
	if !ok {
		return abi.EFAULT
	}
	fs.PutStat(b, st)
	return 0
}

func putStatx(buf uintptr, st *fs.Stat) int {
	b, ok := core.UserBytes(buf, fs.StatxSize, true)
	if !ok {
		return abi.EFAULT
	}
	fs.PutStatx(b, st)
	return 0
}

func Fstat(_ *machine.Frame, a machine.SyscallArgs) (uint64, bool) {
	n := int(a[0])
	buf := uintptr(a[1])
	st, errno := descStat(n)
	if errno == 0 {
		errno = putStat(buf, &st)
	}
	return abi.ErrnoOr(errno, 0), true
}

// Ftruncate sets an open file's size: it must be a regular file open for writing (else
// EINVAL, as for the other kinds of descriptor).
func Ftruncate(_ *machine.Frame, a machine.SyscallArgs) (uint64, bool) {
	n := int(a[0])
	size := int64(a[1])
	if size < 0 {
		return abi.Neg(abi.EINVAL), true
	}
	f, errno := fileOf(n, abi.EINVAL)
	if errno != 0 {
		return abi.Neg(errno), true
	}
	st, errno := core.RootNS.Stat(f.Node)
	switch {
	case errno != 0:
		return abi.Neg(errno), true
	case !canWrite(f) || st.Mode&fs.S_IFMT != fs.S_IFREG:
		return abi.Neg(abi.EINVAL), true
	}
	return abi.ErrnoOr(core.RootNS.Ftruncate(&core.FSPages, f.Node, size, core.FSNow()), 0), true
}

// DoFsync is fsync and fdatasync: files live in memory, so there is nothing to write back;
// descriptors that are not files cannot sync (EINVAL), as on Linux.
func DoFsync(n int) uint64 {
	_, errno := fileOf(n, abi.EINVAL)
	return abi.ErrnoOr(errno, 0)
}

// SyncFileRange is sync_file_range: nothing to write back once the arguments pass
// Linux's checks (flags, a negative offset or length, a range past the largest offset: EINVAL;
// a descriptor that is no file: ESPIPE).
func SyncFileRange(_ *machine.Frame, a machine.SyscallArgs) (uint64, bool) {
	n := int(int32(a[0]))
	off := int64(a[1])
	nbytes := int64(a[2])
	flags := uint32(a[3])
	const valid = 1 | 2 | 4              // SYNC_FILE_RANGE_WAIT_BEFORE, _WRITE, _WAIT_AFTER
	if core.FDs.Kind(n) == fd.KindNone { // the descriptor first, as Linux
		return abi.Neg(abi.EBADF), true
	}
	if flags&^valid != 0 || off < 0 || nbytes < 0 || off+nbytes < off {
		return abi.Neg(abi.EINVAL), true
	}
	if _, errno := fileOf(n, abi.ESPIPE); errno != 0 {
		return abi.Neg(errno), true
	}
	return 0, true
}

// Fchmod changes an open file's permission bits; other descriptors are EPERM.
func Fchmod(_ *machine.Frame, a machine.SyscallArgs) (uint64, bool) {
	n := int(a[0])
	mode := uint32(a[1])
	f, errno := fileOf(n, abi.EPERM)
	if errno != 0 {
		return abi.Neg(errno), true
	}
	at := vfs.At{Root: core.RootNS.Root(), Dir: f.Node}
	return abi.ErrnoOr(core.RootNS.Chmod(at, nil, mode, fs.AT_EMPTY_PATH, core.FSNow()), 0), true
}

// Fchown: the program is root and files have no owner but root, so a change of owner is
// accepted and changes nothing.
func Fchown(_ *machine.Frame, a machine.SyscallArgs) (uint64, bool) {
	n := int(a[0])
	if core.FDs.Kind(n) == fd.KindNone {
		return abi.Neg(abi.EBADF), true
	}
	if f, ok := core.FDs.File(n); ok && f.Flags&fs.O_PATH != 0 {
		return abi.Neg(abi.EBADF), true
	}
	return 0, true
}

// putStatfs copies the statistics of n's file system to user memory.
func putStatfs(buf uintptr, n vfs.Node) int {
	st, errno := core.RootNS.Statfs(n)
	if errno != 0 {
		return errno
	}
	b, ok := core.UserBytes(buf, fs.StatfsSize, true)
	if !ok {
		return abi.EFAULT
	}
	dev := core.RootNS.Dev(n)
	fs.PutStatfs(b, &st, uint64(fs.Major(dev))<<32|uint64(fs.Minor(dev)))
	return 0
}

// Fstatfs reports the file system of an open file (O_PATH too); other descriptors are
// EINVAL.
func Fstatfs(_ *machine.Frame, a machine.SyscallArgs) (uint64, bool) {
	n := int(a[0])
	buf := uintptr(a[1])
	f, ok := core.FDs.File(n)
	if !ok {
		if core.FDs.Kind(n) == fd.KindNone {
			return abi.Neg(abi.EBADF), true
		}
		return abi.Neg(abi.EINVAL), true
	}
	return abi.ErrnoOr(putStatfs(buf, f.Node), 0), true
}

// Fchdir makes an open directory (O_PATH too) the working directory.
func Fchdir(_ *machine.Frame, a machine.SyscallArgs) (uint64, bool) {
	n := int(a[0])
	f, ok := core.FDs.File(n)
	if !ok {
		if core.FDs.Kind(n) == fd.KindNone {
			return abi.Neg(abi.EBADF), true
		}
		return abi.Neg(abi.ENOTDIR), true
	}
	st, errno := core.RootNS.Stat(f.Node)
	switch {
	case errno != 0:
		return abi.Neg(errno), true
	case st.Mode&fs.S_IFMT != fs.S_IFDIR:
		return abi.Neg(abi.ENOTDIR), true
	}
	return abi.ErrnoOr(SetCwd(f.Node, core.RootNS.Acquire(f.Node)), 0), true
}

// SetCwd makes n, whose reference the caller took (errno 0), the working directory.
func SetCwd(n vfs.Node, errno int) int {
	if errno != 0 {
		return errno
	}
	core.ReleaseNode(core.Cwd)
	core.Cwd = n
	return 0
}

// CloseFD closes descriptor n, releasing its file's node when it was the last descriptor.
func CloseFD(n int) uint64 {
	rp, readsPipe := core.FDs.PipeFor(n, false)
	wp, writesPipe := core.FDs.PipeFor(n, true)
	sock, _, isSocket := core.FDs.Socket(n)
	closeTimerfd(n)
	key, d, isFile := locksBeforeClose(n)
	last, errno := core.FDs.Close(n)
	if isFile {
		locksAfterClose(key, d, last != (fs.Node{}))
	}
	core.ReleaseNode(last)
	if readsPipe {
		afterPipeClose(n, rp)
	}
	if writesPipe {
		afterPipeClose(n, wp)
	}
	if isSocket {
		afterSocketClose(n, sock)
	}
	closeOrphans()
	return abi.ErrnoOr(errno, 0)
}
