package files

import (
	"github.com/unitrace/unitrace/kernel/abi"
	"github.com/unitrace/unitrace/kernel/core"
	"github.com/unitrace/unitrace/kernel/fd"
	"github.com/unitrace/unitrace/kernel/fs"
	"github.com/unitrace/unitrace/kernel/fs/vfs"
	"github.com/unitrace/unitrace/kernel/tp"
	"github.com/unitrace/unitrace/trace/record"
)

// Paths from user memory: copied into the kernel before use (another thread may change them
// while the call runs), each fired as a syscall_path record, and the directory a relative one
// starts from.

// PathBufs hold the paths of the system call being served, at most two (rename, link, symlink's
// target and name). The kernel lock makes them the one call's.
var PathBufs [2][fs.PathMax]byte

// userPath copies the NUL-terminated path at addr into pathBufs[slot] and returns it without the
// NUL: EFAULT if it runs into memory the program cannot read, ENAMETOOLONG if PathMax bytes hold
// no NUL (PATH_MAX counts it). It reads page by page, so a path that ends just before an
// unmapped page is fine.
func userPath(slot int, addr uintptr) ([]byte, int) {
	buf := &PathBufs[slot%len(PathBufs)]
	for n := 0; n < len(buf); {
		chunk := min(core.PageSize-(addr+uintptr(n))%core.PageSize, uintptr(len(buf)-n))
		src, ok := core.UserBytes(addr+uintptr(n), chunk, false)
		if !ok {
			return nil, abi.EFAULT
		}
		for i, c := range src {
			if c == 0 {
				copy(buf[n:], src[:i])
				path := buf[:n+i]
				tracePath(path)
				return path, 0
			}
		}
		n += copy(buf[n:], src)
	}
	return nil, abi.ENAMETOOLONG
}

// tracePath fires syscall_path with the system call's number and the path: whole if it fits the
// record's string (record.StrBytes), else "..." and its end, where the file's own name is.
func tracePath(path []byte) {
	if !tp.SyscallPath.On() {
		return
	}
	var s [record.StrBytes]byte
	if len(path) <= len(s) {
		copy(s[:], path)
	} else {
		copy(s[:], "...")
		copy(s[3:], path[len(path)-(len(s)-3):])
	}
	w := strWords(s[:])
	tp.SyscallPath.Emit4(core.Cur().SysNr, w[0], w[1], w[2])
}

// strWords packs a record's string argument (at most record.StrBytes bytes, the rest zero)
// into its slots, little-endian.
func strWords(b []byte) (w [record.StrSlots]uint64) {
	for i, c := range b[:min(len(b), record.StrBytes)] {
		w[i/8] |= uint64(c) << (8 * (i % 8))
	}
	return w
}

// AtFDCWD is dirfd's AT_FDCWD as the system calls take it: a 32-bit int.
const AtFDCWD = int32(fs.AT_FDCWD)

// dirfdArg is a dirfd argument: Linux reads an int.
func DirFDArg(v uint64) int32 { return int32(v) }

// pathAt returns where path starts for a call given dirfd (Linux's path_init): "/" for an
// absolute path, whatever dirfd is; the working directory for AT_FDCWD; else dirfd's file, which
// the resolver then requires to be a directory (ENOTDIR), unless the path is empty and emptyOK
// (AT_EMPTY_PATH), when the call applies to that file. An empty path without emptyOK is ENOENT
// before dirfd is looked at, a dirfd that is not open EBADF, one that is not a file ENOTDIR.
func pathAt(dirfd int32, path []byte, emptyOK bool) (vfs.At, int) {
	root := core.RootNS.Root()
	switch {
	case len(path) == 0 && !emptyOK:
		return vfs.At{}, abi.ENOENT
	case len(path) > 0 && path[0] == '/':
		return vfs.At{Root: root, Dir: root}, 0
	case dirfd == AtFDCWD:
		return vfs.At{Root: root, Dir: core.Cwd}, 0
	}
	f, ok := core.FDs.File(int(dirfd))
	if !ok {
		if core.FDs.Kind(int(dirfd)) == fd.KindNone {
			return vfs.At{}, abi.EBADF
		}
		return vfs.At{}, abi.ENOTDIR
	}
	return vfs.At{Root: root, Dir: f.Node}, 0
}

// PathArg copies path argument addr (into pathBufs[slot]) and finds where it starts from dirfd.
func PathArg(slot int, dirfd int32, addr uintptr, emptyOK bool) (vfs.At, []byte, int) {
	path, errno := userPath(slot, addr)
	if errno != 0 {
		return vfs.At{}, nil, errno
	}
	at, errno := pathAt(dirfd, path, emptyOK)
	return at, path, errno
}
