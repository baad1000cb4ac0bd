package memfs

import (
	"github.com/unitrace/unitrace/kernel/abi"
	"github.com/unitrace/unitrace/kernel/fs"
)

// The operations on names. Names are single path components: the resolver never passes one
// with a '/' or a NUL, nor "." or ".." where the operation would create or remove it (those
// fail with fs.EINVAL here, defensively).

// isDots reports whether name is "." or "..".
func isDots(name []byte) bool {
	return len(name) == 1 && name[0] == '.' || len(name) == 2 && name[0] == '.' && name[1] == '.'
}

// validName reports whether name can be a directory entry: not empty, no '/' or NUL, not a dot
// name.
func validName(name []byte) bool {
	if len(name) == 0 || isDots(name) {
		return false
	}
	for _, c := range name {
		if c == '/' || c == 0 {
			return false
		}
	}
	return true
}

// dirFor returns directory dir for a lookup or a change in it: fs.ENOTDIR if it is not a directory,
// fs.ENOENT if it was removed (Linux's IS_DEADDIR).
func (f *FS) dirFor(dir uint32) (*inode, int) {
	d := f.get(dir)
	switch {
	case d == nil:
		return nil, abi.ENOENT
	case !isDir(d):
		return nil, abi.ENOTDIR
	case d.nlink == 0:
		return nil, abi.ENOENT
	}
	return d, 0
}

// Lookup returns the inode that name names in directory dir: "." is dir itself, ".." its parent
// (the root's parent is the root: mount points are the resolver's business). It fails with
// fs.ENOTDIR if dir is not a directory, fs.ENAMETOOLONG for a name longer than NameMax, fs.ENOENT if
// there is no such entry.
//
// A removed directory still has "." and "..", as on Linux, but no other entries (fs.ENOENT).
func (f *FS) Lookup(dir uint32, name []byte) (uint32, int) {
	if d := f.get(dir); d != nil && isDir(d) && isDots(name) {
		if len(name) == 1 {
			return dir, 0
		}
		return d.parent, 0
	}
	d, errno := f.dirFor(dir)
	switch {
	case errno != 0:
		return 0, errno
	case len(name) > fs.NameMax:
		return 0, abi.ENAMETOOLONG
	}
	at, _ := find(d, name)
	if at < 0 {
		return 0, abi.ENOENT
	}
	return slotAt(d, uint32(at)).ino, 0
}

// prepare checks that name can be created in dir and returns the free slot to use.
func (f *FS) prepare(dir uint32, name []byte) (*inode, int64, int) {
	d, errno := f.dirFor(dir)
	if errno != 0 {
		return nil, 0, errno
	}
	if len(name) > fs.NameMax {
		return nil, 0, abi.ENAMETOOLONG
	}
	if isDots(name) {
		return nil, 0, abi.EEXIST
	}
	if !validName(name) {
		return nil, 0, abi.EINVAL
	}
	at, free := find(d, name)
	if at >= 0 {
		return nil, 0, abi.EEXIST
	}
	return d, free, 0
}

// Create makes a new inode of type and permissions mode (a regular file if the type bits are 0;
// S_IFCHR, S_IFBLK, S_IFIFO or S_IFSOCK as mknod makes them, with device number rdev) named
// name in dir. S_IFDIR fails with fs.EPERM (mkdir makes directories), S_IFLNK and unknown types with
// fs.EINVAL, as mknod does. The caller has applied the umask.
func (f *FS) Create(p Pages, dir uint32, name []byte, mode uint32, rdev uint64, now fs.Timespec) (uint32, int) {
	switch mode & fs.S_IFMT {
	case 0:
		mode |= fs.S_IFREG
	case fs.S_IFREG, fs.S_IFCHR, fs.S_IFBLK, fs.S_IFIFO, fs.S_IFSOCK:
	case fs.S_IFDIR:
		return 0, abi.EPERM
	default:
		return 0, abi.EINVAL
	}
	if t := mode & fs.S_IFMT; t != fs.S_IFCHR && t != fs.S_IFBLK {
		rdev = 0
	}
	ino, errno := f.link(p, dir, name, mode&(fs.S_IFMT|fs.PermMask), now)
	if errno == 0 {
		f.inode(ino).rdev = rdev
	}
	return ino, errno
}

// Mkdir makes directory name in dir with permissions perm (PermMask bits).
func (f *FS) Mkdir(p Pages, dir uint32, name []byte, perm uint32, now fs.Timespec) (uint32, int) {
	ino, errno := f.link(p, dir, name, fs.S_IFDIR|perm&fs.PermMask, now)
	if errno != 0 {
		return 0, errno
	}
	in := f.inode(ino)
	in.nlink, in.parent, in.size = 2, dir, 2*bogoDirentSize
	f.inode(dir).nlink++
	return ino, 0
}

// Symlink makes symbolic link name in dir whose target is target: 1 to PathMax-1 bytes
// (fs.ENOENT for an empty one, fs.ENAMETOOLONG for a longer one, as symlink does).
func (f *FS) Symlink(p Pages, dir uint32, name, target []byte, now fs.Timespec) (uint32, int) {
	if len(target) == 0 {
		return 0, abi.ENOENT
	}
	if len(target) >= fs.PathMax {
		return 0, abi.ENAMETOOLONG
	}
	d, free, errno := f.prepare(dir, name)
	if errno != 0 {
		return 0, errno
	}
	need := uint64(1) // the target's page, and maybe one for the entry: checked before anything changes
	if free < 0 && d.slotEnd%uint32(slotsPerPage) == 0 {
		need++
	}
	if f.usedPages+need > f.maxPages {
		return 0, abi.ENOSPC
	}
	ino, errno := f.link(p, dir, name, fs.S_IFLNK|0o777, now)
	if errno != 0 {
		return 0, errno
	}
	in := f.inode(ino)
	pg, errno := f.getPage(p, in, 0)
	if errno != 0 { // the allocator itself ran dry: undo
		d := f.inode(dir)
		at, _ := find(d, name)
		f.remove(p, d, at)
		in.nlink = 0
		f.maybeFree(p, ino)
		return 0, errno
	}
	copy(dataPage(pg)[:], target)
	in.size = int64(len(target))
	return ino, 0
}

// link makes a new inode of mode named name in dir, with one link.
func (f *FS) link(p Pages, dir uint32, name []byte, mode uint32, now fs.Timespec) (uint32, int) {
	d, free, errno := f.prepare(dir, name)
	if errno != 0 {
		return 0, errno
	}
	ino, errno := f.newInode(p, mode, now)
	if errno != 0 {
		return 0, errno
	}
	if errno := f.insert(p, d, name, ino, free); errno != 0 {
		f.maybeFree(p, ino)
		return 0, errno
	}
	f.inode(ino).nlink = 1
	d.mtime, d.ctime = now, now
	return ino, 0
}

// Link gives inode ino the further name name in dir. Directories cannot be linked (fs.EPERM); nor
// can an inode without names (fs.ENOENT), as link does.
func (f *FS) Link(p Pages, dir uint32, name []byte, ino uint32, now fs.Timespec) int {
	d, free, errno := f.prepare(dir, name)
	if errno != 0 {
		return errno
	}
	in := f.get(ino)
	switch {
	case in == nil:
		return abi.ENOENT
	case isDir(in):
		return abi.EPERM
	case in.nlink == 0:
		return abi.ENOENT
	}
	if errno := f.insert(p, d, name, ino, free); errno != 0 {
		return errno
	}
	in.nlink++
	in.ctime = now
	d.mtime, d.ctime = now, now
	return 0
}

// entry returns the slot and inode of name in dir, for a removal.
func (f *FS) entry(dir uint32, name []byte) (*inode, int64, uint32, int) {
	d, errno := f.dirFor(dir)
	if errno != 0 {
		return nil, 0, 0, errno
	}
	if len(name) > fs.NameMax {
		return nil, 0, 0, abi.ENAMETOOLONG
	}
	if !validName(name) {
		return nil, 0, 0, abi.EINVAL
	}
	at, _ := find(d, name)
	if at < 0 {
		return nil, 0, 0, abi.ENOENT
	}
	return d, at, slotAt(d, uint32(at)).ino, 0
}

// Unlink removes name from dir; directories fail with fs.EISDIR (rmdir removes them). The inode
// lives on while open references remain.
func (f *FS) Unlink(p Pages, dir uint32, name []byte, now fs.Timespec) int {
	d, at, ino, errno := f.entry(dir, name)
	if errno != 0 {
		return errno
	}
	in := f.inode(ino)
	if isDir(in) {
		return abi.EISDIR
	}
	f.remove(p, d, at)
	d.mtime, d.ctime = now, now
	in.ctime = now
	in.nlink--
	f.maybeFree(p, ino)
	return 0
}

// Rmdir removes the empty directory name from dir: fs.ENOTDIR if it is not a directory, fs.EBUSY if
// something is mounted on it, fs.ENOTEMPTY if it has entries.
func (f *FS) Rmdir(p Pages, dir uint32, name []byte, now fs.Timespec) int {
	d, at, ino, errno := f.entry(dir, name)
	if errno != 0 {
		return errno
	}
	in := f.inode(ino)
	switch {
	case !isDir(in):
		return abi.ENOTDIR
	case in.mounted:
		return abi.EBUSY
	case in.entries != 0:
		return abi.ENOTEMPTY
	}
	f.remove(p, d, at)
	d.nlink--
	d.mtime, d.ctime = now, now
	in.ctime = now
	in.nlink = 0
	f.maybeFree(p, ino)
	return 0
}

// Readlink copies symbolic link ino's target into dst, cut to len(dst), and returns its length.
// It fails with fs.EINVAL if ino is not a symbolic link.
func (f *FS) Readlink(ino uint32, dst []byte) (int, int) {
	in := f.get(ino)
	if in == nil {
		return 0, abi.ENOENT
	}
	if in.mode&fs.S_IFMT != fs.S_IFLNK {
		return 0, abi.EINVAL
	}
	return f.copyOut(in, 0, dst[:min(int64(len(dst)), in.size)]), 0
}
