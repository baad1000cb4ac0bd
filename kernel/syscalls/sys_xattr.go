package syscalls

import (
	"github.com/unitrace/unitrace/kernel/abi"
	"github.com/unitrace/unitrace/kernel/core"
	"github.com/unitrace/unitrace/kernel/fd"
	"github.com/unitrace/unitrace/kernel/fs"
	"github.com/unitrace/unitrace/kernel/fs/vfs"
	"github.com/unitrace/unitrace/kernel/syscalls/files"
)

// Extended attributes: setxattr, getxattr, listxattr and removexattr, with their l (the link
// itself) and f (a descriptor) forms. The arguments are checked in Linux's order (fs/xattr.c):
// flags, then the name (copied; empty or longer than XATTR_NAME_MAX: ERANGE), then the value's
// size (E2BIG), then the file; package vfs says what each file system does with them. A
// descriptor that is no file (a pipe, a socket, an eventfd) has no attributes: EOPNOTSUPP, as
// Linux's pseudo file systems without handlers.

var xattrName [fs.XATTR_NAME_MAX + 1]byte

// userXattrName copies the NUL-terminated attribute name at addr.
func userXattrName(addr uintptr) ([]byte, int) {
	for n := 0; n < len(xattrName); n++ {
		b, ok := core.UserBytes(addr+uintptr(n), 1, false)
		if !ok {
			return nil, abi.EFAULT
		}
		if b[0] == 0 {
			if n == 0 {
				return nil, abi.ERANGE
			}
			return xattrName[:n], 0
		}
		xattrName[n] = b[0]
	}
	return nil, abi.ERANGE
}

// xattrNode finds the file of an xattr call: path (following a final symbolic link unless
// nofollow) when pathAddr is set, else descriptor n's file.
func xattrNode(pathAddr uintptr, n int, nofollow bool) (vfs.Node, int) {
	if pathAddr == 0 && n >= 0 {
		f, ok := core.FDs.File(n)
		switch {
		case !ok && core.FDs.Kind(n) == fd.KindNone:
			return vfs.Node{}, abi.EBADF
		case !ok:
			return vfs.Node{}, abi.EOPNOTSUPP
		case f.Flags&fs.O_PATH != 0:
			return vfs.Node{}, abi.EBADF
		}
		return f.Node, 0
	}
	at, path, errno := files.PathArg(0, files.AtFDCWD, pathAddr, false)
	if errno != 0 {
		return vfs.Node{}, errno
	}
	return core.RootNS.Resolve(at.Root, at.Dir, path, !nofollow, false)
}

// doSetxattr is setxattr, lsetxattr (nofollow) and fsetxattr (pathAddr 0, descriptor n).
func doSetxattr(pathAddr uintptr, n int, nofollow bool, nameAddr, value, size uintptr, flags int) uint64 {
	if flags&^(fs.XATTR_CREATE|fs.XATTR_REPLACE) != 0 {
		return abi.Neg(abi.EINVAL)
	}
	name, errno := userXattrName(nameAddr)
	if errno != 0 {
		return abi.Neg(errno)
	}
	if size > fs.XATTR_SIZE_MAX {
		return abi.Neg(abi.E2BIG)
	}
	var val []byte
	if size > 0 {
		b, ok := core.UserBytes(value, size, false)
		if !ok {
			return abi.Neg(abi.EFAULT)
		}
		val = b
	}
	node, errno := xattrNode(pathAddr, n, nofollow)
	if errno != 0 {
		return abi.Neg(errno)
	}
	return abi.ErrnoOr(core.RootNS.SetXattr(&core.FSPages, node, name, val, flags, core.FSNow()), 0)
}

// doGetxattr is getxattr and its forms: the value's length, and the value copied to value
// when size (at most XATTR_SIZE_MAX counts) holds it, else ERANGE; size 0 asks the length only.
func doGetxattr(pathAddr uintptr, n int, nofollow bool, nameAddr, value, size uintptr) uint64 {
	name, errno := userXattrName(nameAddr)
	if errno != 0 {
		return abi.Neg(errno)
	}
	node, errno := xattrNode(pathAddr, n, nofollow)
	if errno != 0 {
		return abi.Neg(errno)
	}
	v, errno := core.RootNS.GetXattr(node, name)
	if errno != 0 {
		return abi.Neg(errno)
	}
	if size == 0 {
		return uint64(len(v))
	}
	if uintptr(len(v)) > min(size, fs.XATTR_SIZE_MAX) {
		return abi.Neg(abi.ERANGE)
	}
	dst, ok := core.UserBytes(value, uintptr(len(v)), true)
	if !ok {
		return abi.Neg(abi.EFAULT)
	}
	return uint64(copy(dst, v))
}

// doListxattr is listxattr and its forms: the names, each NUL-terminated, as getxattr
// returns a value.
func doListxattr(pathAddr uintptr, n int, nofollow bool, list, size uintptr) uint64 {
	node, errno := xattrNode(pathAddr, n, nofollow)
	if errno != 0 {
		return abi.Neg(errno)
	}
	total, errno := core.RootNS.ListXattr(node, nil)
	if errno != 0 {
		return abi.Neg(errno)
	}
	if size == 0 || total == 0 {
		return uint64(total)
	}
	if uintptr(total) > min(size, fs.XATTR_LIST_MAX) {
		return abi.Neg(abi.ERANGE)
	}
	dst, ok := core.UserBytes(list, uintptr(total), true)
	if !ok {
		return abi.Neg(abi.EFAULT)
	}
	got, errno := core.RootNS.ListXattr(node, dst)
	return abi.ErrnoOr(errno, uint64(got))
}

// doRemovexattr is removexattr and its forms.
func doRemovexattr(pathAddr uintptr, n int, nofollow bool, nameAddr uintptr) uint64 {
	name, errno := userXattrName(nameAddr)
	if errno != 0 {
		return abi.Neg(errno)
	}
	node, errno := xattrNode(pathAddr, n, nofollow)
	if errno != 0 {
		return abi.Neg(errno)
	}
	return abi.ErrnoOr(core.RootNS.RemoveXattr(&core.FSPages, node, name, core.FSNow()), 0)
}
