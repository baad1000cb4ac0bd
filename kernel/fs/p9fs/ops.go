package p9fs

import (
	"github.com/unitrace/unitrace/kernel/abi"
	"github.com/unitrace/unitrace/kernel/fs"
	"github.com/unitrace/unitrace/kernel/fs/p9"
)

// The calls package vfs makes. Each takes the waiter w making it; any of them that needs the
// host returns EQUEUED (see the package comment). They return Linux's errnos otherwise: the
// server's for what the host refused, ESTALE for an inode whose node was reused, EIO for a
// reply that could not be decoded.

// Mode returns the file type and permission bits of ino as last seen, 0 for a stale inode.
func (f *FS) Mode(ino uint32) uint32 {
	if n, errno := f.node(ino); errno == 0 {
		return n.stat.Mode
	}
	return 0
}

// Size returns the size of ino as last seen.
func (f *FS) Size(ino uint32) int64 {
	if n, errno := f.node(ino); errno == 0 {
		return n.stat.Size
	}
	return 0
}

// Lookup finds name in directory dir (a Twalk, and a Tgetattr for a file new to the kernel).
func (f *FS) Lookup(w int32, dir uint32, name []byte) (uint32, int) {
	d, errno := f.node(dir)
	if errno != 0 {
		return 0, errno
	}
	if d.stat.Mode&fs.S_IFMT != fs.S_IFDIR {
		return 0, abi.ENOTDIR
	}
	if len(name) > fs.NameMax {
		return 0, abi.ENAMETOOLONG
	}
	if string(name) == ".." {
		// The directory it was found in: each node's parent is known, since resolution
		// comes down from the root, and the share's root is its own parent (".." never
		// leaves the share; the namespace takes ".." at a mount's root up to its mount point).
		return d.parent, 0
	}
	if string(name) == "." {
		return dir, 0
	}
	f.easeFids()
	a, errno := f.ask(w, uint64(newKey(kLookup).u64(uint64(dir)).bytes(name)), true)
	switch {
	case errno != 0:
		return 0, errno
	case a.replay:
		return a.e.ino, int(a.e.errno)
	}
	_, n, errno := f.c.Walk(a.b, d.fid, name)
	t := tagState{step: stepLookupWalk, dir: dir}
	t.nlen = uint8(copy(t.name[:], name))
	return 0, f.started(w, a, n, errno, t)
}

// NameOf copies the name ino was last found under in dir into dst (getcwd).
func (f *FS) NameOf(dir, ino uint32, dst []byte) (int, int) {
	n, errno := f.node(ino)
	if errno != 0 {
		return 0, errno
	}
	if n.parent != dir || n.nlen == 0 {
		return 0, abi.ENOENT
	}
	return copy(dst, n.name[:n.nlen]), 0
}

// Acquire takes a reference on ino (an open file, a working directory): its node stays.
func (f *FS) Acquire(ino uint32) int {
	n, errno := f.node(ino)
	if errno != 0 {
		return errno
	}
	n.refs++
	return 0
}

// Release drops a reference; the last one closes the node's open fids.
func (f *FS) Release(ino uint32) {
	n, errno := f.node(ino)
	if errno != 0 || n.refs <= 0 {
		return
	}
	if n.refs--; n.refs == 0 {
		f.closeFids(n)
	}
}

// Readlink copies the target of symbolic link ino into dst.
func (f *FS) Readlink(w int32, ino uint32, dst []byte) (int, int) {
	n, errno := f.node(ino)
	if errno != 0 {
		return 0, errno
	}
	if n.stat.Mode&fs.S_IFMT != fs.S_IFLNK {
		return 0, abi.EINVAL
	}
	a, errno := f.ask(w, uint64(newKey(kReadlink).u64(uint64(ino))), true)
	switch {
	case errno != 0:
		return 0, errno
	case a.replay:
		return f.copyHeld(a.e, dst)
	}
	_, m, errno := f.c.Readlink(a.b, n.fid)
	return 0, f.started(w, a, m, errno, tagState{step: stepData, ino: ino})
}

// started finishes a call's start (a, from ask): an errno from the Client ends the call with
// it, else the request the Client built, n bytes, is queued for the waiter.
func (f *FS) started(w int32, a asked, n int, errno int, t tagState) int {
	if errno != 0 {
		a.e.done, a.e.errno = true, int32(errno)
		return errno
	}
	return f.start(w, a.e, a.tag, n, t)
}

// copyHeld copies a replayed call's held data into dst.
func (f *FS) copyHeld(e *entry, dst []byte) (int, int) {
	if e.errno != 0 {
		return 0, int(e.errno)
	}
	if !e.held {
		return 0, abi.EIO
	}
	resp := f.resp(e.tag)
	if e.off > uint32(len(resp)) || e.count > uint32(len(resp))-e.off {
		return 0, abi.EIO
	}
	return copy(dst, resp[e.off:e.off+e.count]), 0
}

// Create makes a regular file name in dir with permission bits mode and opens it for reading
// and writing (Tlcreate, then a walk to it for a handle). Other file types cannot be made on
// a share: EPERM, as Linux's 9p gives for a mknod its server refuses.
func (f *FS) Create(w int32, dir uint32, name []byte, mode uint32) (uint32, int) {
	d, errno := f.node(dir)
	if errno != 0 {
		return 0, errno
	}
	if mode&fs.S_IFMT != fs.S_IFREG && mode&fs.S_IFMT != 0 {
		return 0, abi.EPERM
	}
	a, errno := f.ask(w, uint64(newKey(kCreate).u64(uint64(dir)).u64(uint64(mode)).bytes(name)), false)
	switch {
	case errno != 0:
		return 0, errno
	case a.replay:
		return a.e.ino, int(a.e.errno)
	}
	_, n, errno := f.c.Create(a.b, d.fid, name, fs.O_RDWR|fs.O_EXCL, mode&0o7777, 0)
	t := tagState{step: stepCreate, dir: dir}
	t.nlen = uint8(copy(t.name[:], name))
	return 0, f.started(w, a, n, errno, t)
}

// Mkdir makes directory name in dir with permission bits perm.
func (f *FS) Mkdir(w int32, dir uint32, name []byte, perm uint32) int {
	d, errno := f.node(dir)
	if errno != 0 {
		return errno
	}
	a, errno := f.ask(w, uint64(newKey(kMkdir).u64(uint64(dir)).u64(uint64(perm)).bytes(name)), false)
	if errno != 0 || a.replay {
		return a.errno(errno)
	}
	_, n, errno := f.c.Mkdir(a.b, d.fid, name, perm&0o7777, 0)
	return f.started(w, a, n, errno, tagState{step: stepEmpty, ino: dir})
}

// Symlink makes symbolic link name in dir pointing at target.
func (f *FS) Symlink(w int32, dir uint32, name, target []byte) int {
	d, errno := f.node(dir)
	if errno != 0 {
		return errno
	}
	a, errno := f.ask(w, uint64(newKey(kSymlink).u64(uint64(dir)).bytes(name).bytes(target)), false)
	if errno != 0 || a.replay {
		return a.errno(errno)
	}
	_, n, errno := f.c.Symlink(a.b, d.fid, name, target, 0)
	return f.started(w, a, n, errno, tagState{step: stepEmpty, ino: dir})
}

// Link makes name in dir another name of ino.
func (f *FS) Link(w int32, dir uint32, name []byte, ino uint32) int {
	d, errno := f.node(dir)
	if errno != 0 {
		return errno
	}
	n, errno := f.node(ino)
	if errno != 0 {
		return errno
	}
	a, errno := f.ask(w, uint64(newKey(kLink).u64(uint64(dir)).u64(uint64(ino)).bytes(name)), false)
	if errno != 0 || a.replay {
		return a.errno(errno)
	}
	_, m, errno := f.c.Link(a.b, d.fid, n.fid, name)
	return f.started(w, a, m, errno, tagState{step: stepEmpty, ino: dir})
}

// Unlink removes name from dir: a file, or with dirFlag a directory (Tunlinkat).
func (f *FS) Unlink(w int32, dir uint32, name []byte, dirFlag bool) int {
	d, errno := f.node(dir)
	if errno != 0 {
		return errno
	}
	var flags uint32
	if dirFlag {
		flags = p9.AtRemovedir
	}
	a, errno := f.ask(w, uint64(newKey(kUnlink).u64(uint64(dir)).u64(uint64(flags)).bytes(name)), false)
	switch {
	case errno != 0:
		return errno
	case a.replay:
		if a.e.errno == 0 {
			f.removed(dir, name)
		}
		return int(a.e.errno)
	}
	_, n, errno := f.c.Unlinkat(a.b, d.fid, name, flags)
	return f.started(w, a, n, errno, tagState{step: stepEmpty, ino: dir})
}

// Rename moves oldname in olddir to newname in newdir (Trenameat). 9P has no flags for it:
// RENAME_NOREPLACE is the caller's to check, anything else is EINVAL.
func (f *FS) Rename(w int32, olddir uint32, oldname []byte, newdir uint32, newname []byte) int {
	od, errno := f.node(olddir)
	if errno != 0 {
		return errno
	}
	nd, errno := f.node(newdir)
	if errno != 0 {
		return errno
	}
	k := newKey(kRename).u64(uint64(olddir)).bytes(oldname).u64(uint64(newdir)).bytes(newname)
	a, errno := f.ask(w, uint64(k), false)
	switch {
	case errno != 0:
		return errno
	case a.replay:
		if a.e.errno == 0 && (olddir != newdir || string(oldname) != string(newname)) {
			f.removed(newdir, newname)
			f.renamed(olddir, oldname, newdir, newname)
		}
		return int(a.e.errno)
	}
	_, n, errno := f.c.Renameat(a.b, od.fid, oldname, nd.fid, newname)
	return f.started(w, a, n, errno, tagState{step: stepEmpty, ino: olddir})
}

// renamed moves the name of the node found as oldname in olddir (getcwd's names stay right).
func (f *FS) renamed(olddir uint32, oldname []byte, newdir uint32, newname []byte) {
	for i := range f.nodes {
		n := &f.nodes[i]
		if n.used && !n.gone && n.parent == olddir && string(n.name[:n.nlen]) == string(oldname) {
			n.setName(newdir, newname)
		}
	}
}

// Setattr changes ino's attributes (truncate, chmod, utimensat): a Tsetattr of attr.Valid's
// fields. The node's cached size and mode follow a change that succeeded.
func (f *FS) Setattr(w int32, ino uint32, attr p9.SetAttr) int {
	n, errno := f.node(ino)
	if errno != 0 {
		return errno
	}
	// The times are not part of the key: a time of "now" is the kernel's clock, read afresh on
	// each run of the system call.
	k := newKey(kSetattr).u64(uint64(ino)).u64(uint64(attr.Valid)).u64(uint64(attr.Mode)).u64(attr.Size)
	a, errno := f.ask(w, uint64(k), false)
	switch {
	case errno != 0:
		return errno
	case a.replay:
		if a.e.errno == 0 {
			if attr.Valid&p9.SetattrSize != 0 {
				n.stat.Size = int64(attr.Size)
			}
			if attr.Valid&p9.SetattrMode != 0 {
				n.stat.Mode = n.stat.Mode&fs.S_IFMT | attr.Mode&0o7777
			}
		}
		return int(a.e.errno)
	}
	_, m, errno := f.c.Setattr(a.b, n.fid, attr)
	return f.started(w, a, m, errno, tagState{step: stepEmpty, ino: ino})
}

// Stat returns ino's attributes, fresh from the host (Tgetattr). Dev is the caller's.
func (f *FS) Stat(w int32, ino uint32) (fs.Stat, int) {
	n, errno := f.node(ino)
	if errno != 0 {
		return fs.Stat{}, errno
	}
	a, errno := f.ask(w, uint64(newKey(kStat).u64(uint64(ino))), false)
	switch {
	case errno != 0:
		return fs.Stat{}, errno
	case a.replay:
		return f.heldStat(a.e)
	}
	_, m, errno := f.c.Getattr(a.b, n.fid, p9.GetattrBasic)
	if errno == 0 {
		n.busy++
	}
	return fs.Stat{}, f.started(w, a, m, errno, tagState{step: stepGetattr, ino: ino})
}

// heldStat decodes a replayed Stat's held Rgetattr.
func (f *FS) heldStat(e *entry) (fs.Stat, int) {
	if e.errno != 0 {
		return fs.Stat{}, int(e.errno)
	}
	resp := f.resp(e.tag)
	if !e.held || e.count > uint32(len(resp)) {
		return fs.Stat{}, abi.EIO
	}
	r, err := p9.ParseReply(resp[:e.count], f.c.Msize(), p9.Tgetattr, e.tag)
	if err != p9.OK {
		return fs.Stat{}, abi.EIO
	}
	a, err := r.Rgetattr()
	if err != p9.OK {
		return fs.Stat{}, abi.EIO
	}
	return a.Stat(), 0
}

// Statfs returns the statistics of the host's file system under the share (Tstatfs).
func (f *FS) Statfs(w int32) (fs.Statfs, int) {
	a, errno := f.ask(w, uint64(newKey(kStatfs)), false)
	switch {
	case errno != 0:
		return fs.Statfs{}, errno
	case a.replay && a.e.errno != 0:
		return fs.Statfs{}, int(a.e.errno)
	case a.replay:
		return f.statfs.FS(), 0
	}
	_, n, errno := f.c.Statfs(a.b, f.rootFid)
	return fs.Statfs{}, f.started(w, a, n, errno, tagState{step: stepStatfs})
}

// Fsync asks the host to write ino's data out (Tfsync on an open fid; a node with none open
// has nothing of ours to flush).
func (f *FS) Fsync(w int32, ino uint32, datasync bool) int {
	n, errno := f.node(ino)
	if errno != 0 {
		return errno
	}
	fid, _, ok := n.openFor(openWrite)
	if !ok {
		if fid, _, ok = n.openFor(openAppend); !ok {
			return 0
		}
	}
	var ds uint64
	if datasync {
		ds = 1
	}
	a, errno := f.ask(w, uint64(newKey(kFsync).u64(uint64(ino)).u64(ds)), false)
	if errno != 0 || a.replay {
		return a.errno(errno)
	}
	_, m, errno := f.c.Fsync(a.b, fid, datasync)
	return f.started(w, a, m, errno, tagState{step: stepEmpty, ino: ino})
}

// DirOf returns the directory that last held a name of inode ino (for a path to an open file,
// /proc's fd links): where the lookup that found it looked. A node whose name a call of ours
// removed is ENOENT; what the host did meanwhile is not asked.
func (f *FS) DirOf(ino uint32) (uint32, int) {
	n, errno := f.node(ino)
	if errno != 0 {
		return 0, errno
	}
	if n.gone || n.nlen == 0 {
		return 0, abi.ENOENT
	}
	return n.parent, 0
}
