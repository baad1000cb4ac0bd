package p9

import (
	"github.com/unitrace/unitrace/kernel/abi"
	"github.com/unitrace/unitrace/kernel/fs"
)

// Path limits: PATH_MAX counts the terminating NUL, so a path has at most MaxPath bytes;
// NAME_MAX bounds one component.
const (
	MaxPath = fs.PathMax - 1
	MaxName = fs.NameMax
)

// checkPath returns the errno a walk of path fails with before anything is sent: ENAMETOOLONG
// for a path or a component over the limits, EINVAL for a NUL (a system call's path ends at
// its NUL, so one inside is the caller's mistake).
func checkPath(path []byte) int {
	if len(path) > MaxPath {
		return abi.ENAMETOOLONG
	}
	for off := 0; ; {
		name, next := nextName(path, off)
		if len(name) == 0 {
			return 0
		}
		if len(name) > MaxName {
			return abi.ENAMETOOLONG
		}
		for _, c := range name {
			if c == 0 {
				return abi.EINVAL
			}
		}
		off = next
	}
}

// checkName returns the errno an operation on name in a directory fails with before anything is
// sent: one component, not empty, without '/' or NUL, at most MaxName bytes. "." and ".." are
// passed on: the server answers them as Linux would (EEXIST, EINVAL, ENOTEMPTY, EISDIR...).
func checkName(name []byte) int {
	if len(name) > MaxName {
		return abi.ENAMETOOLONG
	}
	if !validName(name) {
		return abi.EINVAL
	}
	return 0
}

// nextName returns the first component of path[off:] and the offset just past it, skipping
// separators and "." components; name is empty when the path is used up. ".." is a name like
// any other: the server walks it (QEMU stays at the root of the export). Leading slashes are
// separators too: the caller decides which fid an absolute path starts from.
func nextName(path []byte, off int) (name []byte, next int) {
	for off < len(path) {
		for off < len(path) && path[off] == '/' {
			off++
		}
		start := off
		for off < len(path) && path[off] != '/' {
			off++
		}
		if name := path[start:off]; len(name) > 0 && !(len(name) == 1 && name[0] == '.') {
			return name, off
		}
	}
	return nil, off
}

// moreNames says whether path[off:] has a name left.
func moreNames(path []byte, off int) bool {
	name, _ := nextName(path, off)
	return len(name) > 0
}
