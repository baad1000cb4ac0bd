package memfs

import (
	"unsafe"

	"github.com/unitrace/unitrace/kernel/abi"

	"github.com/unitrace/unitrace/kernel/fs"
)

// A directory's entries are fixed-size slots in its pages (the page tree, as for file contents),
// slot i at page i/slotsPerPage. A slot keeps its position from insertion until removal, so its
// position is a getdents64 cookie that stays valid while other entries come and go. Removing an
// entry clears its slot for reuse; slots past the last one in use are given back with their
// pages. "." and ".." are not stored: the inode knows its parent.
type slot struct {
	ino  uint32 // 0: free
	hash uint32 // of the name, to skip most comparisons
	len  uint8
	name [fs.NameMax]byte
}

const slotsPerPage = PageSize / unsafe.Sizeof(slot{})

// bogoDirentSize is what each entry adds to a directory's size, as tmpfs counts (BOGO_DIRENT_SIZE
// in mm/shmem.c): "." and ".." included, an empty directory has size 40.
const bogoDirentSize = 20

func slotAt(in *inode, i uint32) *slot {
	pg := findPage(in, uint64(i)/uint64(slotsPerPage))
	if pg == 0 {
		return nil
	}
	return &(*[slotsPerPage]slot)(mem(pg))[uint64(i)%uint64(slotsPerPage)]
}

// hashName is 32-bit FNV-1a.
func hashName(name []byte) uint32 {
	h := uint32(2166136261)
	for _, c := range name {
		h = (h ^ uint32(c)) * 16777619
	}
	return h
}

// find returns the slot holding name in directory d, or -1, and the first free slot below
// slotEnd, or -1.
func find(d *inode, name []byte) (at, free int64) {
	at, free = -1, -1
	h := hashName(name)
	for i := uint32(0); i < d.slotEnd; i++ {
		s := slotAt(d, i)
		if s == nil || s.ino == 0 {
			if free < 0 {
				free = int64(i)
			}
			continue
		}
		if s.hash == h && int(s.len) == len(name) && string(s.name[:s.len]) == string(name) {
			return int64(i), free
		}
	}
	return -1, free
}

// insert adds the entry name -> ino to d, at free (a free slot find returned) or at the end.
func (f *FS) insert(p Pages, d *inode, name []byte, ino uint32, free int64) int {
	i := uint32(free)
	if free < 0 {
		i = d.slotEnd
	}
	if _, errno := f.getPage(p, d, uint64(i)/uint64(slotsPerPage)); errno != 0 {
		return errno
	}
	s := slotAt(d, i)
	s.ino, s.hash, s.len = ino, hashName(name), uint8(len(name))
	copy(s.name[:], name)
	if i >= d.slotEnd {
		d.slotEnd = i + 1
	}
	d.entries++
	d.size = int64(d.entries+2) * bogoDirentSize
	return 0
}

// remove clears slot i of d, and gives back the pages past the last slot still in use.
func (f *FS) remove(p Pages, d *inode, i int64) {
	s := slotAt(d, uint32(i))
	*s = slot{}
	d.entries--
	d.size = int64(d.entries+2) * bogoDirentSize
	for d.slotEnd > 0 {
		if s := slotAt(d, d.slotEnd-1); s != nil && s.ino != 0 {
			break
		}
		d.slotEnd--
	}
	f.freeFrom(p, d, (uint64(d.slotEnd)+uint64(slotsPerPage)-1)/uint64(slotsPerPage))
}

// NameOf copies into dst (NameMax bytes are enough) the name under which directory dir lists
// inode ino, and returns its length: getcwd's way up from a directory, which finds each one's
// name in its parent. It fails with fs.ENOENT if dir has no such entry, and with fs.ENOTDIR if
// dir is not a directory.
func (f *FS) NameOf(dir, ino uint32, dst []byte) (int, int) {
	d := f.get(dir)
	switch {
	case d == nil:
		return 0, abi.ENOENT
	case !isDir(d):
		return 0, abi.ENOTDIR
	}
	for i := uint32(0); i < d.slotEnd; i++ {
		if s := slotAt(d, i); s != nil && s.ino == ino {
			return copy(dst, s.name[:s.len]), 0
		}
	}
	return 0, abi.ENOENT
}

// setSlot points the entry in slot i of d at ino (a rename over an existing name).
func setSlot(d *inode, i int64, ino uint32) { slotAt(d, uint32(i)).ino = ino }

// Cookies of ReadDir: "." is at 0, ".." at 1, slot i at i+2.
const firstSlotCookie = 2

// ReadDir writes linux_dirent64 records for directory dir's entries from position cookie on
// (0 to start) into dst, as many as fit, and returns the bytes written and the cookie to resume
// from. At the end it writes nothing; if not even the first record fits it fails with fs.EINVAL, as
// getdents64 does. A removed directory fails with fs.ENOENT.
func (f *FS) ReadDir(dir uint32, cookie uint64, dst []byte, now fs.Timespec) (n int, next uint64, errno int) {
	d := f.get(dir)
	switch {
	case d == nil:
		return 0, cookie, abi.ENOENT
	case !isDir(d):
		return 0, cookie, abi.ENOTDIR
	case d.nlink == 0:
		return 0, cookie, abi.ENOENT
	}
	for ; ; cookie++ {
		var (
			ino  uint32
			typ  uint8
			name []byte
		)
		switch {
		case cookie == 0:
			ino, typ, name = dir, fs.DT_DIR, dotName[:1]
		case cookie == 1:
			ino, typ, name = d.parent, fs.DT_DIR, dotName[:2]
		case cookie-firstSlotCookie >= uint64(d.slotEnd):
			f.accessed(d, now)
			return n, cookie, 0
		default:
			s := slotAt(d, uint32(cookie-firstSlotCookie))
			if s == nil || s.ino == 0 {
				continue
			}
			ino, typ, name = s.ino, fs.DirentType(f.inode(s.ino).mode), s.name[:s.len]
		}
		w := fs.PutDirent(dst[n:], uint64(ino), int64(cookie+1), typ, name)
		if w == 0 {
			if n == 0 {
				return 0, cookie, abi.EINVAL
			}
			f.accessed(d, now)
			return n, cookie, 0
		}
		n += w
	}
}

var dotName = [2]byte{'.', '.'}

// DirOf returns a directory with an entry for inode ino, for a path to an open file (/proc's fd
// links): a directory's parent; for another file the first directory found holding a name of
// it, by a walk over every directory (a file with several names has several, and Linux shows
// the one it was opened by, which memfs does not keep). A file with no name left is ENOENT.
func (f *FS) DirOf(ino uint32) (uint32, int) {
	n := f.get(ino)
	switch {
	case n == nil || n.nlink == 0:
		return 0, abi.ENOENT
	case isDir(n):
		return n.parent, 0
	}
	for d := uint32(RootIno); d < f.nextIno; d++ {
		di := f.get(d)
		if di == nil || !isDir(di) || di.nlink == 0 {
			continue
		}
		for i := uint32(0); i < di.slotEnd; i++ {
			if s := slotAt(di, i); s != nil && s.ino == ino {
				return d, 0
			}
		}
	}
	return 0, abi.ENOENT
}
