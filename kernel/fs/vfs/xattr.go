package vfs

import (
	"github.com/unitrace/unitrace/kernel/abi"
	"github.com/unitrace/unitrace/kernel/fs"
)

// Extended attributes, after the system call layer has checked the flags, the name's length and
// the value's size and found the file. The in-memory file systems store them (package memfs),
// in the namespaces tmpfs keeps (fs.CheckXattrName); a read-only one has none and refuses to
// change (EROFS). /proc has no attribute handlers (EOPNOTSUPP, an empty list, as Linux's), and a
// shared directory's are not forwarded to the host (EOPNOTSUPP).

// GetXattr returns the value of attribute name of n, in the file system's memory: the caller
// copies it before anything changes.
func (ns *Namespace) GetXattr(n Node, name []byte) ([]byte, int) {
	class, errno := fs.CheckXattrName(name)
	if errno == 0 {
		errno = fs.XattrTypeCheck(class, ns.mode(n), false)
	}
	if errno != 0 {
		return nil, errno
	}
	switch ns.kindOf(n) {
	case kindMem:
		return ns.memOf(n).GetXattr(n.Ino, name)
	case kindShare, kindProc:
		return nil, abi.EOPNOTSUPP
	}
	return nil, abi.ENOENT
}

// ListXattr writes n's attribute names, each NUL-terminated, to dst if they fit, and returns
// their length.
func (ns *Namespace) ListXattr(n Node, dst []byte) (int, int) {
	switch ns.kindOf(n) {
	case kindMem:
		return ns.memOf(n).ListXattr(n.Ino, dst)
	case kindShare:
		return 0, abi.EOPNOTSUPP
	case kindProc:
		return 0, 0
	}
	return 0, abi.ENOENT
}

// xattrWritable checks, in Linux's order, that attribute name of n may be set or removed: a
// writable file system, a name in a namespace, a file type that namespace allows.
func (ns *Namespace) xattrWritable(n Node, name []byte) int {
	if ns.ReadOnly(n) {
		return abi.EROFS
	}
	class, errno := fs.CheckXattrName(name)
	if errno == 0 {
		errno = fs.XattrTypeCheck(class, ns.mode(n), true)
	}
	return errno
}

// SetXattr sets attribute name of n to value; flags are XATTR_CREATE and XATTR_REPLACE.
func (ns *Namespace) SetXattr(p Pages, n Node, name, value []byte, flags int, now fs.Timespec) int {
	if errno := ns.xattrWritable(n, name); errno != 0 {
		return errno
	}
	switch ns.kindOf(n) {
	case kindMem:
		return ns.memOf(n).SetXattr(p, n.Ino, name, value, flags&fs.XATTR_CREATE != 0, flags&fs.XATTR_REPLACE != 0, now)
	case kindShare, kindProc:
		return abi.EOPNOTSUPP
	}
	return abi.ENOENT
}

// RemoveXattr removes attribute name of n.
func (ns *Namespace) RemoveXattr(p Pages, n Node, name []byte, now fs.Timespec) int {
	if errno := ns.xattrWritable(n, name); errno != 0 {
		return errno
	}
	switch ns.kindOf(n) {
	case kindMem:
		return ns.memOf(n).RemoveXattr(p, n.Ino, name, now)
	case kindShare, kindProc:
		return abi.EOPNOTSUPP
	}
	return abi.ENOENT
}
