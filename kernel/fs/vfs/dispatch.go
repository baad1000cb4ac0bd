package vfs

import (
	"github.com/unitrace/unitrace/kernel/abi"
	"github.com/unitrace/unitrace/kernel/fs"
	"github.com/unitrace/unitrace/kernel/fs/memfs"
	"github.com/unitrace/unitrace/kernel/fs/p9"
	"github.com/unitrace/unitrace/kernel/fs/p9fs"
	"github.com/unitrace/unitrace/kernel/fs/procfs"
)

// The tagged dispatch to the file systems: one switch per operation on the kind of the Node's
// file system. Each function returns ENOENT (or nothing) for a Node whose file system is not
// mounted.

func (ns *Namespace) kindOf(n Node) kind {
	if int(n.FS) >= len(ns.mounts) {
		return kindNone
	}
	return ns.mounts[n.FS].kind
}

// MemPages is the pages the in-memory file systems' files hold (tmpfs's "shared" memory).
func (ns *Namespace) MemPages() uint64 {
	var pages uint64
	for i := range ns.mounts {
		if ns.mounts[i].kind == kindMem {
			pages += ns.mem[ns.mounts[i].index%MaxMemFS].Usage().Pages
		}
	}
	return pages
}

// memOf returns the memfs behind n; only valid when kindOf(n) == kindMem.
func (ns *Namespace) memOf(n Node) *memfs.FS {
	return &ns.mem[ns.mounts[n.FS%MaxMounts].index%MaxMemFS]
}

// shareOf returns the share behind n; only valid when kindOf(n) == kindShare. Its calls that
// can wait name ns.caller (Begin).
func (ns *Namespace) shareOf(n Node) *p9fs.FS {
	return &ns.shares[ns.mounts[n.FS%MaxMounts].index%MaxShares]
}

func (ns *Namespace) rootIno(fsid uint16) uint32 {
	switch ns.kindOf(Node{FS: fsid}) {
	case kindMem:
		return memfs.RootIno
	case kindShare:
		return p9fs.RootIno
	case kindProc:
		return procfs.RootIno
	}
	return 0
}

func (ns *Namespace) mode(n Node) uint32 {
	switch ns.kindOf(n) {
	case kindMem:
		return ns.memOf(n).Mode(n.Ino)
	case kindShare:
		return ns.shareOf(n).Mode(n.Ino)
	case kindProc:
		return ns.proc.Mode(n.Ino)
	}
	return 0
}

func (ns *Namespace) lookup(dir Node, name []byte) (Node, int) {
	switch ns.kindOf(dir) {
	case kindMem:
		ino, errno := ns.memOf(dir).Lookup(dir.Ino, name)
		return Node{FS: dir.FS, Ino: ino}, errno
	case kindShare:
		ino, errno := ns.shareOf(dir).Lookup(ns.caller, dir.Ino, name)
		return Node{FS: dir.FS, Ino: ino}, errno
	case kindProc:
		ino, errno := ns.proc.Lookup(dir.Ino, name)
		return Node{FS: dir.FS, Ino: ino}, errno
	}
	return Node{}, abi.ENOENT
}

func (ns *Namespace) nameOf(dir, n Node, dst []byte) (int, int) {
	switch ns.kindOf(dir) {
	case kindMem:
		return ns.memOf(dir).NameOf(dir.Ino, n.Ino, dst)
	case kindShare:
		return ns.shareOf(dir).NameOf(dir.Ino, n.Ino, dst)
	case kindProc:
		return ns.proc.NameOf(dir.Ino, n.Ino, dst)
	}
	return 0, abi.ENOENT
}

// dirOf returns a directory that holds a name of n (procfs's fd links show the path of their
// files).
func (ns *Namespace) dirOf(n Node) (Node, int) {
	var ino uint32
	errno := abi.ENOENT
	switch ns.kindOf(n) {
	case kindMem:
		ino, errno = ns.memOf(n).DirOf(n.Ino)
	case kindShare:
		ino, errno = ns.shareOf(n).DirOf(n.Ino)
	case kindProc:
		ino, errno = ns.proc.DirOf(n.Ino)
	}
	return Node{FS: n.FS, Ino: ino}, errno
}

func (ns *Namespace) size(n Node) int64 {
	switch ns.kindOf(n) {
	case kindMem:
		return ns.memOf(n).Size(n.Ino)
	case kindShare:
		return ns.shareOf(n).Size(n.Ino)
	case kindProc:
		// Only a plain link's size is asked for (follow), and it must be its text's length:
		// stat reports 0, as Linux's does.
		size, _ := ns.proc.LinkLen(ns.caller, n.Ino)
		return size
	}
	return 0
}

func (ns *Namespace) readlink(n Node, dst []byte) (int, int) {
	switch ns.kindOf(n) {
	case kindMem:
		return ns.memOf(n).Readlink(n.Ino, dst)
	case kindShare:
		return ns.shareOf(n).Readlink(ns.caller, n.Ino, dst)
	case kindProc:
		kind, target, _, errno := ns.proc.Target(ns.caller, n.Ino)
		switch {
		case errno != 0:
			return 0, errno
		case kind == procfs.TargetRoot:
			return copy(dst, "/"), 0
		case kind == procfs.TargetNode && ns.kindOf(target) == kindProc:
			if k, ok := ns.proc.NamespaceName(target.Ino, dst); ok { // no path: nsfs's own name
				return k, 0
			}
			fallthrough
		case kind == procfs.TargetNode:
			k, errno := ns.pathOf(target, ns.linkBuf[:])
			return copy(dst, ns.linkBuf[:k]), errno
		}
		return ns.proc.Readlink(ns.caller, n.Ino, dst)
	}
	return 0, abi.ENOENT
}

func (ns *Namespace) acquire(n Node) int {
	switch ns.kindOf(n) {
	case kindMem:
		return ns.memOf(n).Acquire(n.Ino)
	case kindShare:
		return ns.shareOf(n).Acquire(n.Ino)
	case kindProc:
		// Nothing to keep: a file of /proc is its inode number, and whatever it shows is
		// looked for anew at each use.
		_, errno := ns.proc.Stat(n.Ino)
		return errno
	}
	return abi.ENOENT
}

func (ns *Namespace) setMounted(n Node, mounted bool) {
	switch ns.kindOf(n) {
	case kindMem:
		ns.memOf(n).SetMounted(n.Ino, mounted)
	}
}

func (ns *Namespace) release(p Pages, n Node) {
	switch ns.kindOf(n) {
	case kindMem:
		ns.memOf(n).Release(p, n.Ino)
	case kindShare:
		ns.shareOf(n).Release(n.Ino)
	}
}

func (ns *Namespace) create(p Pages, dir Node, name []byte, mode uint32, rdev uint64, now fs.Timespec) (Node, int) {
	switch ns.kindOf(dir) {
	case kindMem:
		ino, errno := ns.memOf(dir).Create(p, dir.Ino, name, mode, rdev, now)
		return Node{FS: dir.FS, Ino: ino}, errno
	case kindShare:
		ino, errno := ns.shareOf(dir).Create(ns.caller, dir.Ino, name, mode)
		return Node{FS: dir.FS, Ino: ino}, errno
	}
	return Node{}, abi.ENOENT
}

func (ns *Namespace) mkdir(p Pages, dir Node, name []byte, perm uint32, now fs.Timespec) int {
	switch ns.kindOf(dir) {
	case kindMem:
		_, errno := ns.memOf(dir).Mkdir(p, dir.Ino, name, perm, now)
		return errno
	case kindShare:
		return ns.shareOf(dir).Mkdir(ns.caller, dir.Ino, name, perm)
	}
	return abi.ENOENT
}

func (ns *Namespace) symlink(p Pages, dir Node, name, target []byte, now fs.Timespec) int {
	switch ns.kindOf(dir) {
	case kindMem:
		_, errno := ns.memOf(dir).Symlink(p, dir.Ino, name, target, now)
		return errno
	case kindShare:
		return ns.shareOf(dir).Symlink(ns.caller, dir.Ino, name, target)
	}
	return abi.ENOENT
}

func (ns *Namespace) link(p Pages, dir Node, name []byte, n Node, now fs.Timespec) int {
	switch ns.kindOf(dir) {
	case kindMem:
		return ns.memOf(dir).Link(p, dir.Ino, name, n.Ino, now)
	case kindShare:
		return ns.shareOf(dir).Link(ns.caller, dir.Ino, name, n.Ino)
	}
	return abi.ENOENT
}

func (ns *Namespace) unlink(p Pages, dir Node, name []byte, now fs.Timespec) int {
	switch ns.kindOf(dir) {
	case kindMem:
		return ns.memOf(dir).Unlink(p, dir.Ino, name, now)
	case kindShare:
		return ns.shareOf(dir).Unlink(ns.caller, dir.Ino, name, false)
	case kindProc:
		return ns.proc.Remove(dir.Ino, name, false)
	}
	return abi.ENOENT
}

func (ns *Namespace) rmdir(p Pages, dir Node, name []byte, now fs.Timespec) int {
	switch ns.kindOf(dir) {
	case kindMem:
		return ns.memOf(dir).Rmdir(p, dir.Ino, name, now)
	case kindShare:
		return ns.shareOf(dir).Unlink(ns.caller, dir.Ino, name, true)
	case kindProc:
		return ns.proc.Remove(dir.Ino, name, true)
	}
	return abi.ENOENT
}

// rename moves within one file system: the caller has checked that olddir and newdir share it.
func (ns *Namespace) rename(p Pages, olddir Node, oldname []byte, newdir Node, newname []byte, flags uint32, now fs.Timespec) int {
	switch ns.kindOf(olddir) {
	case kindMem:
		return ns.memOf(olddir).Rename(p, olddir.Ino, oldname, newdir.Ino, newname, flags, now)
	case kindShare:
		// 9P's Trenameat has no flags; Linux's 9p refuses every rename flag.
		if flags != 0 {
			return abi.EINVAL
		}
		return ns.shareOf(olddir).Rename(ns.caller, olddir.Ino, oldname, newdir.Ino, newname)
	case kindProc:
		// Both names are there (Rename found them); the old one's directory is checked for
		// writing, then it cannot move.
		if errno := ns.proc.WriteDenied(olddir.Ino); errno != 0 {
			return errno
		}
		return abi.EPERM
	}
	return abi.ENOENT
}

func (ns *Namespace) truncate(p Pages, n Node, size int64, stamp bool, now fs.Timespec) int {
	switch ns.kindOf(n) {
	case kindMem:
		return ns.memOf(n).Truncate(p, n.Ino, size, stamp, now)
	case kindShare:
		return ns.shareOf(n).Setattr(ns.caller, n.Ino, p9.SetAttr{Valid: p9.SetattrSize, Size: uint64(size)})
	case kindProc:
		// Linux lets root truncate /proc's files, which changes nothing, but those it may
		// not write.
		return ns.proc.WriteDenied(n.Ino)
	}
	return abi.ENOENT
}

// Read copies n's bytes from offset off into dst (pread).
func (ns *Namespace) Read(n Node, off int64, dst []byte, now fs.Timespec) (int, int) {
	switch ns.kindOf(n) {
	case kindMem:
		return ns.memOf(n).Read(n.Ino, off, dst, now)
	case kindShare:
		return ns.shareOf(n).Read(ns.caller, n.Ino, off, dst)
	case kindProc:
		return ns.proc.Read(ns.caller, n.Ino, off, dst, now, ns.MemPages())
	}
	return 0, abi.EBADF
}

// Write copies src into n at offset off (pwrite); with appending set (O_APPEND) it writes at the
// end of the file instead, whatever off says. On a read-only file system it fails with EROFS
// (Open does not open a file there for writing, so only a caller that skipped it gets here).
func (ns *Namespace) Write(p Pages, n Node, off int64, src []byte, appending bool, now fs.Timespec) (int, int) {
	if ns.ReadOnly(n) {
		return 0, abi.EROFS
	}
	switch ns.kindOf(n) {
	case kindMem:
		m := ns.memOf(n)
		if appending {
			off = m.Size(n.Ino)
		}
		return m.Write(p, n.Ino, off, src, now)
	case kindShare:
		return ns.shareOf(n).Write(ns.caller, n.Ino, off, src, appending)
	case kindProc:
		return 0, ns.proc.Write(n.Ino)
	}
	return 0, abi.EBADF
}

// Ftruncate sets the size of open file n (ftruncate: the times change even if the size does not).
// On a read-only file system it fails with EROFS, as Write does.
func (ns *Namespace) Ftruncate(p Pages, n Node, size int64, now fs.Timespec) int {
	if size < 0 {
		return abi.EINVAL
	}
	if ns.ReadOnly(n) {
		return abi.EROFS
	}
	return ns.truncate(p, n, size, true, now)
}

// ReadDir writes linux_dirent64 records of directory n from position cookie on into dst
// (getdents64); see memfs.FS.ReadDir.
func (ns *Namespace) ReadDir(n Node, cookie uint64, dst []byte, now fs.Timespec) (int, uint64, int) {
	switch ns.kindOf(n) {
	case kindMem:
		return ns.memOf(n).ReadDir(n.Ino, cookie, dst, now)
	case kindShare:
		return ns.shareOf(n).ReadDir(ns.caller, n.Ino, cookie, dst)
	case kindProc:
		return ns.proc.ReadDir(n.Ino, cookie, dst)
	}
	return 0, cookie, abi.EBADF
}

// Stat returns n's attributes (fstat).
func (ns *Namespace) Stat(n Node) (fs.Stat, int) {
	switch ns.kindOf(n) {
	case kindMem:
		st, ok := ns.memOf(n).Stat(n.Ino)
		if !ok {
			return fs.Stat{}, abi.ENOENT
		}
		st.Dev = ns.Dev(n)
		return st, 0
	case kindShare:
		st, errno := ns.shareOf(n).Stat(ns.caller, n.Ino)
		st.Dev = ns.Dev(n)
		return st, errno
	case kindProc:
		st, errno := ns.proc.Stat(n.Ino)
		st.Dev = ns.Dev(n)
		return st, errno
	}
	return fs.Stat{}, abi.EBADF
}

func (ns *Namespace) chmod(n Node, mode uint32, now fs.Timespec) int {
	switch ns.kindOf(n) {
	case kindMem:
		return ns.memOf(n).Chmod(n.Ino, mode, now)
	case kindShare:
		return ns.shareOf(n).Setattr(ns.caller, n.Ino, p9.SetAttr{Valid: p9.SetattrMode, Mode: mode & 0o7777})
	case kindProc:
		return abi.EPERM // Linux's pid files refuse; its own files let root change a mode kept nowhere here
	}
	return abi.ENOENT
}

func (ns *Namespace) setTimes(n Node, atime, mtime fs.Timespec, setA, setM bool, now fs.Timespec) int {
	switch ns.kindOf(n) {
	case kindMem:
		return ns.memOf(n).SetTimes(n.Ino, atime, mtime, setA, setM, now)
	case kindShare:
		// The kernel's clock says what "now" is, as it does for its own files.
		var a p9.SetAttr
		if setA {
			a.Valid |= p9.SetattrAtime | p9.SetattrAtimeSet
			a.AtimeSec, a.AtimeNsec = uint64(atime.Sec), uint64(atime.Nsec)
		}
		if setM {
			a.Valid |= p9.SetattrMtime | p9.SetattrMtimeSet
			a.MtimeSec, a.MtimeNsec = uint64(mtime.Sec), uint64(mtime.Nsec)
		}
		return ns.shareOf(n).Setattr(ns.caller, n.Ino, a)
	case kindProc:
		return 0 // accepted and kept nowhere: a file of /proc has the boot's times
	}
	return abi.ENOENT
}

// Statfs returns the statistics of n's file system (fstatfs). A read-only one has ST_RDONLY in
// Flags, and since it cannot grow, no free blocks or inodes: its size is what it holds, as
// squashfs and iso9660 report.
func (ns *Namespace) Statfs(n Node) (fs.Statfs, int) {
	switch ns.kindOf(n) {
	case kindMem:
		u := ns.memOf(n).Usage()
		var flags uint64
		if ns.ReadOnly(n) {
			u.MaxPages, u.MaxInodes = u.Pages, u.Inodes
			flags = fs.ST_RDONLY
		}
		free := u.MaxPages - min(u.Pages, u.MaxPages)
		return fs.Statfs{
			Type: fs.TmpfsMagic, Bsize: memfs.PageSize, Blocks: u.MaxPages, Bfree: free, Bavail: free,
			Files: uint64(u.MaxInodes), Ffree: uint64(u.MaxInodes - min(u.Inodes, u.MaxInodes)), Namelen: fs.NameMax,
			Flags: flags,
		}, 0
	case kindShare:
		st, errno := ns.shareOf(n).Statfs(ns.caller)
		if ns.ReadOnly(n) {
			st.Flags |= fs.ST_RDONLY
		}
		return st, errno
	case kindProc:
		return fs.Statfs{Type: fs.ProcMagic, Bsize: memfs.PageSize, Namelen: fs.NameMax}, 0
	}
	return fs.Statfs{}, abi.EBADF
}
