package memfs

import (
	"unsafe"

	"github.com/unitrace/unitrace/kernel/abi"

	"github.com/unitrace/unitrace/kernel/fs"
)

// MaxInodes is the most inodes a file system can have, whatever its capacity says.
const MaxInodes = 1 << 16

// RootIno is the inode number of the root directory. Inode number 0 means none.
const RootIno = 1

// Capacity bounds a file system.
type Capacity struct {
	Bytes  uint64 // pages for contents, directory entries and their tables; rounded down to pages
	Inodes uint32 // inodes, the root included; at most MaxInodes
}

// inode is one file. Free inodes have mode 0.
type inode struct {
	mode     uint32 // file type and permission bits
	nlink    uint32
	opens    uint32 // references that keep the inode alive without a name: open files, working directories, mounts
	parent   uint32 // directories: the directory whose entry names this one (the root: itself)
	nextFree uint32 // free inodes: the next on the free list
	height   uint8  // of the page tree
	mounted  bool   // directories: a file system is mounted here
	_        [2]byte
	entries  uint32 // directories: entries besides . and ..
	slotEnd  uint32 // directories: entry slots [0, slotEnd) may be in use; none beyond
	pages    uint32 // data pages (not tables) held
	root     uintptr
	xattrs   uintptr // the page of extended attributes (xattr.go), 0 if none
	size     int64
	rdev     uint64
	atime    fs.Timespec
	mtime    fs.Timespec
	ctime    fs.Timespec
	btime    fs.Timespec
}

const (
	inodesPerPage = uint64(PageSize / unsafe.Sizeof(inode{}))
	inodePages    = (MaxInodes + inodesPerPage - 1) / inodesPerPage
)

// FS is one file system. The zero value has no root; call Init.
type FS struct {
	inodeTab   [inodePages]uintptr // pages of inodes [i*inodesPerPage, (i+1)*inodesPerPage)
	maxInodes  uint32
	nextIno    uint32 // inode numbers below it have been handed out at least once
	freeIno    uint32 // head of the free inode list, 0 if empty
	usedInodes uint32
	maxPages   uint64
	usedPages  uint64 // pages taken for contents and tables (inode pages not included)
	inodeTabN  uint64 // pages of inodeTab taken
	noAtime    bool   // reads leave access times alone (SetNoAtime)
}

// Init makes an empty file system of the given capacity whose root directory has mode mode
// (tmpfs's default is 01777) and the times now. It fails with fs.ENOSPC if not even the root fits.
// Init forgets what f held before without giving back its pages: call Destroy first.
func (f *FS) Init(p Pages, c Capacity, mode uint32, now fs.Timespec) int {
	*f = FS{maxInodes: min(c.Inodes, MaxInodes), nextIno: RootIno, maxPages: c.Bytes / PageSize}
	ino, errno := f.newInode(p, fs.S_IFDIR|mode&fs.PermMask, now)
	if errno != 0 {
		return errno
	}
	in := f.inode(ino)
	in.nlink, in.parent, in.size = 2, ino, 2*bogoDirentSize
	return 0
}

// Destroy gives back every page f holds; f is unusable until the next Init.
func (f *FS) Destroy(p Pages) {
	for ino := uint32(RootIno); ino < f.nextIno; ino++ {
		if in := f.inode(ino); in.mode != 0 {
			f.freeFrom(p, in, 0)
			f.freeXattrs(p, in)
		}
	}
	for i := uint64(0); i < f.inodeTabN; i++ {
		p.Free(f.inodeTab[i])
	}
	*f = FS{}
}

// Usage reports the pages and inodes in use and the capacity's limits, for statfs.
type Usage struct {
	Pages, MaxPages   uint64
	Inodes, MaxInodes uint32
}

func (f *FS) Usage() Usage {
	return Usage{Pages: f.usedPages, MaxPages: f.maxPages, Inodes: f.usedInodes, MaxInodes: f.maxInodes}
}

// alloc takes a page within the capacity.
func (f *FS) alloc(p Pages) (uintptr, int) {
	if f.usedPages >= f.maxPages {
		return 0, abi.ENOSPC
	}
	a, ok := p.Alloc()
	if !ok {
		return 0, abi.ENOSPC
	}
	f.usedPages++
	return a, 0
}

func (f *FS) free(p Pages, addr uintptr) {
	p.Free(addr)
	f.usedPages--
}

// inode returns inode ino, which must have been handed out (ino < f.nextIno).
func (f *FS) inode(ino uint32) *inode {
	pg := f.inodeTab[uint64(ino)/inodesPerPage%inodePages]
	return &(*[inodesPerPage]inode)(mem(pg))[uint64(ino)%inodesPerPage]
}

// get returns inode ino if it is in use, or nil.
func (f *FS) get(ino uint32) *inode {
	if ino == 0 || ino >= f.nextIno {
		return nil
	}
	if in := f.inode(ino); in.mode != 0 {
		return in
	}
	return nil
}

// newInode takes a free inode and gives it mode, one link's worth of nothing (nlink 0: the
// caller links it) and the times now.
func (f *FS) newInode(p Pages, mode uint32, now fs.Timespec) (uint32, int) {
	if f.usedInodes >= f.maxInodes {
		return 0, abi.ENOSPC
	}
	ino := f.freeIno
	if ino != 0 {
		f.freeIno = f.inode(ino).nextFree
	} else {
		ino = f.nextIno
		if uint64(ino)/inodesPerPage >= f.inodeTabN {
			pg, ok := p.Alloc()
			if !ok {
				return 0, abi.ENOSPC
			}
			f.inodeTab[f.inodeTabN%inodePages] = pg
			f.inodeTabN++
		}
		f.nextIno++
	}
	f.usedInodes++
	in := f.inode(ino)
	*in = inode{mode: mode, atime: now, mtime: now, ctime: now, btime: now}
	return ino, 0
}

// maybeFree frees ino if neither a name nor an open reference keeps it.
func (f *FS) maybeFree(p Pages, ino uint32) {
	in := f.inode(ino)
	if in.nlink != 0 || in.opens != 0 || ino == RootIno {
		return
	}
	f.freeFrom(p, in, 0)
	f.freeXattrs(p, in)
	*in = inode{nextFree: f.freeIno}
	f.freeIno = ino
	f.usedInodes--
}

// Acquire takes an open reference on ino (an open file, a working directory, a mount): the inode
// outlives its last name until Release. It fails with fs.ENOENT if ino is not in use.
func (f *FS) Acquire(ino uint32) int {
	in := f.get(ino)
	if in == nil {
		return abi.ENOENT
	}
	in.opens++
	return 0
}

// Release drops a reference Acquire took, freeing the inode if it was the last thing keeping it.
func (f *FS) Release(p Pages, ino uint32) {
	in := f.get(ino)
	if in == nil || in.opens == 0 {
		return
	}
	in.opens--
	f.maybeFree(p, ino)
}

// Mode returns ino's file type and permission bits, or 0 if ino is not in use.
func (f *FS) Mode(ino uint32) uint32 {
	if in := f.get(ino); in != nil {
		return in.mode
	}
	return 0
}

func isDir(in *inode) bool { return in.mode&fs.S_IFMT == fs.S_IFDIR }

// Size returns ino's size: a file's bytes, a symbolic link's target length.
func (f *FS) Size(ino uint32) int64 {
	if in := f.get(ino); in != nil {
		return in.size
	}
	return 0
}

// Stat returns ino's attributes (Dev is the caller's to fill), ok=false if ino is not in use.
func (f *FS) Stat(ino uint32) (st fs.Stat, ok bool) {
	in := f.get(ino)
	if in == nil {
		return fs.Stat{}, false
	}
	return fs.Stat{
		Ino:     uint64(ino),
		Mode:    in.mode,
		Nlink:   in.nlink,
		Rdev:    in.rdev,
		Size:    in.size,
		Blksize: PageSize,
		Blocks:  blocks(in),
		Atime:   in.atime,
		Mtime:   in.mtime,
		Ctime:   in.ctime,
		Btime:   in.btime,
	}, true
}

// blocks is st_blocks: the 512-byte units of a file's or a symbolic link's pages. A directory's
// entry pages are not counted, as tmpfs reports 0 for directories.
func blocks(in *inode) int64 {
	if isDir(in) {
		return 0
	}
	return int64(in.pages) * (PageSize / 512)
}

// SetMounted records whether a file system is mounted on directory ino: unlinking, removing or
// renaming it, or renaming over it, then fails with fs.EBUSY. Mounting also takes an Acquire
// reference.
func (f *FS) SetMounted(ino uint32, mounted bool) {
	if in := f.get(ino); in != nil && isDir(in) {
		in.mounted = mounted
	}
}

// Chmod sets ino's permission bits (PermMask of mode).
func (f *FS) Chmod(ino uint32, mode uint32, now fs.Timespec) int {
	in := f.get(ino)
	if in == nil {
		return abi.ENOENT
	}
	in.mode = in.mode&fs.S_IFMT | mode&fs.PermMask
	in.ctime = now
	return 0
}

// SetTimes sets ino's access and modification times where setA and setM say (utimensat with
// UTIME_OMIT clears them; the caller resolves UTIME_NOW to now); the change time becomes now.
func (f *FS) SetTimes(ino uint32, atime, mtime fs.Timespec, setA, setM bool, now fs.Timespec) int {
	in := f.get(ino)
	if in == nil {
		return abi.ENOENT
	}
	if setA {
		in.atime = atime
	}
	if setM {
		in.mtime = mtime
	}
	in.ctime = now
	return 0
}

// SetNoAtime makes Read and ReadDir leave access times alone, or update them again: a read-only
// mount's files keep theirs, as on Linux. Init clears it.
func (f *FS) SetNoAtime(on bool) { f.noAtime = on }

// accessed updates ino's access time as Linux's relatime does: only if it is not later than the
// modification or change time, or is a day old; never with SetNoAtime.
func (f *FS) accessed(in *inode, now fs.Timespec) {
	if f.noAtime {
		return
	}
	if !in.mtime.Before(in.atime) || !in.ctime.Before(in.atime) || now.Sec-in.atime.Sec >= 24*60*60 {
		in.atime = now
	}
}
