package memfs

import (
	"github.com/unitrace/unitrace/kernel/abi"
	"github.com/unitrace/unitrace/kernel/fs"
)

// Rename moves the entry oldname of olddir to newname in newdir, with renameat2's flags
// (RENAME_NOREPLACE, RENAME_EXCHANGE; RENAME_WHITEOUT is not supported and fails with fs.EINVAL).
// It checks in Linux's order (fs/namei.c's do_renameat2 and vfs_rename, mm/shmem.c's
// shmem_rename2):
//
//	fs.ENOENT     oldname does not exist (or, with RENAME_EXCHANGE, newname)
//	fs.EEXIST     RENAME_NOREPLACE and newname exists
//	fs.EINVAL     a directory would move into its own subtree
//	fs.ENOTEMPTY  newname is an ancestor of oldname (fs.EINVAL with RENAME_EXCHANGE)
//	           then, when both name the same inode, nothing happens and Rename succeeds
//	fs.ENOTDIR    a directory would replace a non-directory
//	fs.EISDIR     a non-directory would replace a directory
//	fs.EBUSY      either is a mount point
//	fs.ENOTEMPTY  newname is a directory with entries
//
// The path-level checks that come between (trailing slashes) are the resolver's.
func (f *FS) Rename(p Pages, olddir uint32, oldname []byte, newdir uint32, newname []byte, flags uint32, now fs.Timespec) int {
	if flags&^(fs.RENAME_NOREPLACE|fs.RENAME_EXCHANGE) != 0 ||
		flags&fs.RENAME_NOREPLACE != 0 && flags&fs.RENAME_EXCHANGE != 0 {
		return abi.EINVAL
	}
	od, oat, oino, errno := f.entry(olddir, oldname)
	if errno != 0 {
		return errno
	}
	nd, errno := f.dirFor(newdir)
	if errno != 0 {
		return errno
	}
	if len(newname) > fs.NameMax {
		return abi.ENAMETOOLONG
	}
	if !validName(newname) {
		return abi.EINVAL
	}
	nat, free := find(nd, newname)
	var nino uint32
	if nat >= 0 {
		nino = slotAt(nd, uint32(nat)).ino
	}
	exchange := flags&fs.RENAME_EXCHANGE != 0
	switch {
	case flags&fs.RENAME_NOREPLACE != 0 && nino != 0:
		return abi.EEXIST
	case exchange && nino == 0:
		return abi.ENOENT
	}
	oin := f.inode(oino)
	if olddir != newdir {
		if c, ok := f.childToward(olddir, newdir); ok && c == oino {
			return abi.EINVAL
		}
		if c, ok := f.childToward(newdir, olddir); ok && c == nino {
			if exchange {
				return abi.EINVAL
			}
			return abi.ENOTEMPTY
		}
	}
	if oino == nino {
		return 0
	}
	var nin *inode
	if nino != 0 {
		nin = f.inode(nino)
		if !exchange {
			if isDir(oin) && !isDir(nin) {
				return abi.ENOTDIR
			}
			if !isDir(oin) && isDir(nin) {
				return abi.EISDIR
			}
		}
	}
	if oin.mounted || nin != nil && nin.mounted {
		return abi.EBUSY
	}
	if exchange {
		f.exchange(olddir, oin, newdir, nin, now)
		setSlot(od, oat, nino)
		setSlot(nd, nat, oino)
		return 0
	}
	if nin != nil && isDir(nin) && nin.entries != 0 {
		return abi.ENOTEMPTY
	}
	if nin == nil {
		if errno := f.insert(p, nd, newname, oino, free); errno != 0 {
			return errno
		}
	} else {
		setSlot(nd, nat, oino)
	}
	f.remove(p, od, oat)
	if isDir(oin) && olddir != newdir {
		od.nlink--
		nd.nlink++
		oin.parent = newdir
	}
	od.mtime, od.ctime, nd.mtime, nd.ctime, oin.ctime = now, now, now, now, now
	if nin != nil {
		nin.ctime = now
		if isDir(nin) {
			nd.nlink--
			nin.nlink = 0
		} else {
			nin.nlink--
		}
		f.maybeFree(p, nino)
	}
	return 0
}

// exchange does the link count and parent changes of RENAME_EXCHANGE, before the slots swap.
func (f *FS) exchange(olddir uint32, oin *inode, newdir uint32, nin *inode, now fs.Timespec) {
	od, nd := f.inode(olddir), f.inode(newdir)
	if olddir != newdir {
		if isDir(oin) {
			od.nlink--
			nd.nlink++
			oin.parent = newdir
		}
		if isDir(nin) {
			nd.nlink--
			od.nlink++
			nin.parent = olddir
		}
	}
	od.mtime, od.ctime, nd.mtime, nd.ctime, oin.ctime, nin.ctime = now, now, now, now, now, now
}

// childToward returns the child of directory anc on the way up from directory d to it, if anc is
// a proper ancestor of d (the "trap" of Linux's lock_rename).
func (f *FS) childToward(anc, d uint32) (uint32, bool) {
	for steps := uint32(0); steps <= f.usedInodes; steps++ {
		up := f.inode(d).parent
		if up == anc {
			return d, true
		}
		if up == d { // the root
			return 0, false
		}
		d = up
	}
	return 0, false
}
