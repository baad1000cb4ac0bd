package procfs

import (
	"unsafe"

	"github.com/unitrace/unitrace/kernel/abi"

	"github.com/unitrace/unitrace/kernel/fd"
	"github.com/unitrace/unitrace/kernel/fs"
	"github.com/unitrace/unitrace/kernel/sched"
)

// The tree. A file's inode number says which file it is, so that nothing is kept per file: the
// entry in its top byte, and below it what the entry is about. The process's own files (its
// directory /proc/<pid> and what is in it) have 0 there; a thread's files (its directory
// task/<tid> and what is in that) have taskBit and the tid; a descriptor's (fd/<n>,
// fdinfo/<n>) the descriptor. Such a number stays valid while what it names exists: a task's
// files go with the thread, a descriptor's with the descriptor.

type entry uint8

const (
	eNone entry = iota
	eRoot
	eSelf       // link: "<pid>"
	eThreadSelf // link: "<pid>/task/<tid>" of the thread that looks
	eCpuinfo
	eMeminfo
	eUptime
	eSys
	eSysFs
	ePipeMaxSize
	ePid // the process's directory, or with taskBit a thread's
	eCmdline
	eComm
	eCwd // magic link: the working directory
	eEnviron
	eExe // link: the program's path
	eFd
	eFdinfo
	eRootLink // magic link: "/"
	eStat
	eStatus
	eTask
	eFdLink     // magic link: the descriptor's file
	eFdinfoFile // the descriptor's position and flags
	eNs         // the namespaces' directory
	// Magic links to the namespaces (namespaces.go), in nsDir's order.
	eNsCgroup
	eNsIPC
	eNsMnt
	eNsNet
	eNsPID
	eNsPIDChildren
	eNsTime
	eNsTimeChildren
	eNsUser
	eNsUTS
	eNsObject // a namespace itself, the argument its nsObject
	eLast     = eNsObject
)

const (
	entryShift = 24
	argMask    = 1<<entryShift - 1
	// taskBit marks a thread's file; the tid is below it, so tids of 2^23 and beyond have no
	// task directory.
	taskBit = 1 << 23
	tidMask = taskBit - 1
)

// RootIno is the inode number of /proc's root directory.
const RootIno = uint32(eRoot) << entryShift

func ino(e entry, arg uint32) uint32 { return uint32(e)<<entryShift | arg&argMask }

func split(n uint32) (entry, uint32) { return entry(n >> entryShift), n & argMask }

// dirent is a name in one of the fixed directories.
type dirent struct {
	name string
	e    entry
	mode uint32
}

const (
	dirMode  = fs.S_IFDIR | 0o555
	fileMode = fs.S_IFREG | 0o444
	linkMode = fs.S_IFLNK | 0o777
)

// The fixed directories, in the order getdents lists them. /proc lists its process after
// rootDir, as Linux lists the pids after its own files; a thread's directory lists pidDir but
// for the entries marked processOnly.
var rootDir = [...]dirent{
	{"cpuinfo", eCpuinfo, fileMode},
	{"meminfo", eMeminfo, fileMode},
	{"self", eSelf, linkMode},
	{"sys", eSys, dirMode},
	{"thread-self", eThreadSelf, linkMode},
	{"uptime", eUptime, fileMode},
}

var sysDir = [...]dirent{{"fs", eSysFs, dirMode}}

// pipe-max-size is read-only here (Linux's is 0644): a pipe is always fd.PipeSize.
var sysFsDir = [...]dirent{{"pipe-max-size", ePipeMaxSize, fileMode}}

var pidDir = [...]dirent{
	{"cmdline", eCmdline, fileMode},
	{"comm", eComm, fileMode},
	{"cwd", eCwd, linkMode},
	{"environ", eEnviron, fs.S_IFREG | 0o400},
	{"exe", eExe, linkMode},
	{"fd", eFd, fs.S_IFDIR | 0o500},
	{"fdinfo", eFdinfo, dirMode},
	{"ns", eNs, fs.S_IFDIR | 0o511},
	{"root", eRootLink, linkMode},
	{"stat", eStat, fileMode},
	{"status", eStatus, fileMode},
	{"task", eTask, dirMode},
}

// processOnly says which of pidDir's entries a thread's directory leaves out: its descriptors
// are the process's (Linux repeats them under every task), and it has no tasks of its own.
func processOnly(e entry) bool { return e == eFd || e == eFdinfo || e == eTask }

// fixedDir returns the fixed entries of directory entry e.
func fixedDir(e entry) []dirent {
	switch e {
	case eRoot:
		return rootDir[:]
	case eSys:
		return sysDir[:]
	case eSysFs:
		return sysFsDir[:]
	case ePid:
		return pidDir[:]
	case eNs:
		return nsDir[:]
	}
	return nil
}

// modeOf is the type and permissions of entry e, for any argument.
func modeOf(e entry) uint32 {
	switch e {
	case eRoot, ePid:
		return dirMode
	case eFdLink:
		return fs.S_IFLNK // the permissions are the descriptor's access mode (linkPerm)
	case eFdinfoFile:
		return fs.S_IFREG | 0o444
	case eNsObject:
		return nsObjectMode
	}
	for _, d := range [...][]dirent{rootDir[:], sysDir[:], sysFsDir[:], pidDir[:], nsDir[:]} {
		for i := range d {
			if d[i].e == e {
				return d[i].mode
			}
		}
	}
	return 0
}

// FS is the process file system. It keeps nothing but where the kernel's state is: every answer
// is worked out from that state when it is asked for.
type FS struct {
	src uintptr // the address of the kernel's Sources
}

// Init points f at the kernel's state. f keeps src's address, not a pointer: the namespace that
// holds f is kernel state, which holds no pointers (a pointer stored at run time would need the
// collector's write barrier, which kernel-mode code must not use). So src must outlive f and
// never move: a global.
func (f *FS) Init(src *Sources) { f.src = uintptr(unsafe.Pointer(src)) }

func (f *FS) s() *Sources { return sources(f.src) }

// tidSlot returns the slot of live thread tid, or -1.
func (s *Sources) tidSlot(tid int32) int32 {
	if tid <= 0 {
		return -1
	}
	for i := range s.Threads {
		if s.Threads[i] == tid && s.Sched.State(int32(i)) != sched.Free {
			return int32(i)
		}
	}
	return -1
}

// leader is the slot of the thread whose tid is the pid, or of the first live thread if that
// one has exited: whose state and affinity the process's status shows.
func (s *Sources) leader() int32 {
	if l := s.tidSlot(s.Info.Pid); l >= 0 {
		return l
	}
	for i := range s.Threads {
		if s.Threads[i] != 0 && s.Sched.State(int32(i)) != sched.Free {
			return int32(i)
		}
	}
	return -1
}

// threads counts the live threads.
func (s *Sources) threads() int {
	n := 0
	for i := range s.Threads {
		if s.Threads[i] != 0 && s.Sched.State(int32(i)) != sched.Free {
			n++
		}
	}
	return n
}

// nextTID returns the smallest live tid at or above from, or -1.
func (s *Sources) nextTID(from int64) int64 {
	best := int64(-1)
	for i := range s.Threads {
		t := int64(s.Threads[i])
		if t > 0 && t >= from && t <= tidMask && (best < 0 || t < best) && s.Sched.State(int32(i)) != sched.Free {
			best = t
		}
	}
	return best
}

// nextFD returns the lowest open descriptor at or above from, or -1.
func (s *Sources) nextFD(from int64) int64 {
	for n := max(from, 0); n < fd.MaxFDs; n++ {
		if s.FDs.Kind(int(n)) != fd.KindNone {
			return n
		}
	}
	return -1
}

// valid reports whether inode n names a file that exists now.
func (f *FS) valid(n uint32) bool {
	e, arg := split(n)
	s := f.s()
	switch {
	case e == eNone || e > eLast || modeOf(e) == 0:
		return false
	case e == eFdLink || e == eFdinfoFile:
		return arg < fd.MaxFDs && s.FDs.Kind(int(arg)) != fd.KindNone
	case e == eNsObject:
		return arg < uint32(numNamespaces)
	case e < ePid:
		return arg == 0
	case arg&taskBit != 0:
		return !processOnly(e) && s.tidSlot(int32(arg&tidMask)) >= 0
	}
	return arg == 0
}

// Mode returns inode n's type and permissions, 0 if it names nothing.
func (f *FS) Mode(n uint32) uint32 {
	if !f.valid(n) {
		return 0
	}
	e, arg := split(n)
	if e == eFdLink {
		return fs.S_IFLNK | f.linkPerm(int(arg))
	}
	return modeOf(e)
}

// linkPerm is an fd link's permissions, as Linux shows them: read and search for a descriptor
// that reads, write and search for one that writes (an O_PATH descriptor does neither).
func (f *FS) linkPerm(n int) uint32 {
	s := f.s()
	read, write := true, true
	switch s.FDs.Kind(n) {
	case fd.KindFile:
		file, _ := s.FDs.File(n)
		switch file.Flags & (fs.O_ACCMODE | fs.O_PATH) {
		case fs.O_RDONLY:
			write = false
		case fs.O_WRONLY:
			read = false
		case fs.O_RDWR:
		default: // O_PATH: neither
			read, write = false, false
		}
	case fd.KindPipe:
		_, w, _ := s.FDs.Pipe(n)
		read, write = !w, w
	}
	var perm uint32
	if read {
		perm |= 0o500
	}
	if write {
		perm |= 0o300
	}
	return perm
}

// parent returns the directory that holds inode n (the root for the root).
func parent(n uint32) uint32 {
	e, arg := split(n)
	switch {
	case e == eRoot:
		return RootIno
	case e == eSysFs:
		return ino(eSys, 0)
	case e == ePipeMaxSize:
		return ino(eSysFs, 0)
	case e == eFdLink:
		return ino(eFd, 0)
	case e == eFdinfoFile:
		return ino(eFdinfo, 0)
	case isNsLink(e):
		return ino(eNs, arg)
	case e == eNsObject: // nsfs is no part of /proc: its files' parent is themselves
		return n
	case e == ePid && arg&taskBit != 0:
		return ino(eTask, 0)
	case e < ePid, e == ePid:
		return RootIno
	case arg&taskBit != 0:
		return ino(ePid, arg)
	}
	return ino(ePid, 0)
}

// WriteDenied is the errno of a permission check for writing inode n, which Linux makes even
// for root in /proc: the sysctl tree (sys and what is under it) lets nobody write a directory
// or a file without a write bit (EACCES), and a process's or thread's directory refuses
// writing (EPERM). Elsewhere root may write (and the write itself then fails, Write).
func (f *FS) WriteDenied(n uint32) int {
	e, _ := split(n)
	switch e {
	case eSys, eSysFs, ePipeMaxSize:
		return abi.EACCES
	case ePid:
		return abi.EPERM
	}
	return 0
}

// Remove is unlink (dir false) and rmdir (dir true) of name in directory dir, and rename of
// it (onto an existing name): nothing in /proc can be removed. In Linux's order: a name that is
// not there is ENOENT, writing in dir is checked (WriteDenied), unlink of a directory is EISDIR
// and rmdir of anything else ENOTDIR, and then the operation is EPERM.
func (f *FS) Remove(dir uint32, name []byte, isDir bool) int {
	n, errno := f.Lookup(dir, name)
	if errno != 0 {
		return errno
	}
	if errno := f.WriteDenied(dir); errno != 0 {
		return errno
	}
	victimDir := f.Mode(n)&fs.S_IFMT == fs.S_IFDIR
	switch {
	case isDir && !victimDir:
		return abi.ENOTDIR
	case !isDir && victimDir:
		return abi.EISDIR
	}
	return abi.EPERM
}

// DirOf returns the directory that holds inode n.
func (f *FS) DirOf(n uint32) (uint32, int) {
	if !f.valid(n) {
		return 0, abi.ENOENT
	}
	return parent(n), 0
}

// eq reports whether name is s.
func eq(name []byte, s string) bool {
	if len(name) != len(s) {
		return false
	}
	for i := range name {
		if name[i] != s[i] {
			return false
		}
	}
	return true
}

// number parses a directory's numeric name as Linux does (name_to_int): decimal digits only, no
// sign, no leading zero, below 2^31; -1 for anything else.
func number(name []byte) int64 {
	if len(name) == 0 || len(name) > 10 || len(name) > 1 && name[0] == '0' {
		return -1
	}
	var v int64
	for _, c := range name {
		if c < '0' || c > '9' {
			return -1
		}
		v = v*10 + int64(c-'0')
	}
	if v > 1<<31-1 {
		return -1
	}
	return v
}

// Lookup finds name in directory dir: its inode number, ENOENT if it has no such entry (Linux's
// /proc makes no negative entries: creating a name fails with ENOENT too), ENOTDIR if dir is not
// a directory. ".." is the parent; "." the directory itself.
func (f *FS) Lookup(dir uint32, name []byte) (uint32, int) {
	m := f.Mode(dir)
	switch {
	case m == 0:
		return 0, abi.ENOENT
	case m&fs.S_IFMT != fs.S_IFDIR:
		return 0, abi.ENOTDIR
	case eq(name, "."):
		return dir, 0
	case eq(name, ".."):
		return parent(dir), 0
	}
	e, arg := split(dir)
	s := f.s()
	for _, d := range fixedDir(e) {
		if eq(name, d.name) && !(arg&taskBit != 0 && processOnly(d.e)) {
			return ino(d.e, arg), 0
		}
	}
	v := number(name)
	switch {
	case v < 0:
	case e == eRoot && v == int64(s.Info.Pid):
		return ino(ePid, 0), 0
	case (e == eRoot || e == eTask) && v <= tidMask && s.tidSlot(int32(v)) >= 0:
		// In the root, the tid of a thread that is not the leader: Linux finds it but does
		// not list it; here it is the thread's own directory, as under task/.
		return ino(ePid, taskBit|uint32(v)), 0
	case e == eFd && v < fd.MaxFDs && s.FDs.Kind(int(v)) != fd.KindNone:
		return ino(eFdLink, uint32(v)), 0
	case e == eFdinfo && v < fd.MaxFDs && s.FDs.Kind(int(v)) != fd.KindNone:
		return ino(eFdinfoFile, uint32(v)), 0
	}
	return 0, abi.ENOENT
}

// NameOf writes the name under which directory dir holds inode n into dst (getcwd's walk up).
func (f *FS) NameOf(dir, n uint32, dst []byte) (int, int) {
	if !f.valid(n) || parent(n) != dir {
		return 0, abi.ENOENT
	}
	e, arg := split(n)
	t := newText(dst, 0)
	switch {
	case e == ePid && arg == 0:
		t.dec(uint64(f.s().Info.Pid))
	case e == ePid:
		t.dec(uint64(arg & tidMask))
	case e == eFdLink || e == eFdinfoFile:
		t.dec(uint64(arg))
	default:
		de, _ := split(dir)
		for _, d := range fixedDir(de) {
			if d.e == e {
				t.str(d.name)
			}
		}
	}
	return t.n(), 0
}

// Cookies of ReadDir: "." is 0, ".." 1, the fixed entries from 2 on; then the numbered ones:
// a descriptor or tid n at numbered+n.
const numbered = 2 + 64

// ReadDir writes linux_dirent64 records of directory dir from position cookie on into dst, as
// many as fit, and returns the bytes written and the cookie to resume from; if not even the
// first record fits it fails with EINVAL, as getdents64 does.
func (f *FS) ReadDir(dir uint32, cookie uint64, dst []byte) (int, uint64, int) {
	m := f.Mode(dir)
	switch {
	case m == 0:
		return 0, cookie, abi.ENOENT
	case m&fs.S_IFMT != fs.S_IFDIR:
		return 0, cookie, abi.ENOTDIR
	}
	e, arg := split(dir)
	s := f.s()
	fixed := fixedDir(e)
	var name [24]byte // the longest fixed name, time_for_children, and any number
	n := 0
	for {
		var (
			child uint32
			nm    []byte
			next  uint64
		)
		switch {
		case cookie == 0:
			child, nm, next = dir, name[:copy(name[:], ".")], 1
		case cookie == 1:
			child, nm, next = parent(dir), name[:copy(name[:], "..")], 2
		case cookie-2 < uint64(len(fixed)):
			d := fixed[cookie-2]
			next = cookie + 1
			if arg&taskBit != 0 && processOnly(d.e) {
				cookie = next
				continue
			}
			child, nm = ino(d.e, arg), name[:copy(name[:], d.name)]
		case e == eRoot && cookie < numbered:
			t := newText(name[:], 0)
			t.dec(uint64(s.Info.Pid))
			child, nm, next = ino(ePid, 0), name[:t.n()], numbered
		case (e == eFd || e == eFdinfo || e == eTask) && cookie >= numbered:
			from := int64(cookie - numbered)
			var v int64
			if e == eTask {
				v = s.nextTID(from)
			} else {
				v = s.nextFD(from)
			}
			if v < 0 {
				return n, cookie, 0
			}
			t := newText(name[:], 0)
			t.dec(uint64(v))
			nm, next = name[:t.n()], numbered+uint64(v)+1
			switch e {
			case eTask:
				child = ino(ePid, taskBit|uint32(v))
			case eFd:
				child = ino(eFdLink, uint32(v))
			default:
				child = ino(eFdinfoFile, uint32(v))
			}
			cookie = numbered + uint64(v)
		case cookie < numbered && (e == eFd || e == eFdinfo || e == eTask):
			cookie = numbered
			continue
		default:
			return n, cookie, 0
		}
		w := fs.PutDirent(dst[n:], uint64(child), int64(next), fs.DirentType(f.Mode(child)), nm)
		if w == 0 {
			if n == 0 {
				return 0, cookie, abi.EINVAL
			}
			return n, cookie, 0
		}
		n += w
		cookie = next
	}
}

// Stat returns inode n's attributes: size 0 for files and links, as Linux's (their contents
// are made when read), but fd/, whose size is the number of descriptors, and the fd links, 64;
// times are the boot's; everything is root's. The caller sets Dev.
func (f *FS) Stat(n uint32) (fs.Stat, int) {
	m := f.Mode(n)
	if m == 0 {
		return fs.Stat{}, abi.ENOENT
	}
	s := f.s()
	st := fs.Stat{Ino: uint64(n), Mode: m, Nlink: 1, Blksize: 1024}
	boot := fs.Timespec{Sec: s.Info.BootWall / 1e9, Nsec: s.Info.BootWall % 1e9}
	st.Atime, st.Mtime, st.Ctime, st.Btime = boot, boot, boot, boot
	e, arg := split(n)
	switch e {
	case eRoot:
		st.Nlink = 2 + subdirs(e, 0) + 1 // and the process's
	case eSys, eSysFs, eFdinfo, ePid, eNs:
		st.Nlink = 2 + subdirs(e, arg)
	case eTask:
		st.Nlink = 2 + uint32(s.threads())
	case eFd:
		st.Nlink = 2
		for v := s.nextFD(0); v >= 0; v = s.nextFD(v + 1) {
			st.Size++
		}
	case eFdLink:
		st.Size = 64
	case eNsObject:
		st.Ino = namespaceInfo[arg].ino
	}
	return st, 0
}

// subdirs counts the fixed subdirectories of directory entry e with argument arg: a
// directory's link count is two and one for each (its entry in its parent, its ".", their
// "..").
func subdirs(e entry, arg uint32) uint32 {
	var n uint32
	for _, d := range fixedDir(e) {
		if d.mode&fs.S_IFMT == fs.S_IFDIR && !(arg&taskBit != 0 && processOnly(d.e)) {
			n++
		}
	}
	return n
}
