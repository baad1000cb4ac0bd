package vfs

import (
	"github.com/unitrace/unitrace/kernel/abi"
	"github.com/unitrace/unitrace/kernel/fs"
	"github.com/unitrace/unitrace/kernel/fs/procfs"
)

// walkBufSize is the room a resolution has for its path and the targets of the symbolic links
// it follows. The path still to resolve sits at the end of the buffer; following a link writes
// the link's target just before the rest, over what was already resolved. Linux keeps a stack of
// link bodies instead and so has no such bound: a resolution whose pending text outgrows the
// buffer (it takes targets of thousands of bytes nested in one another) fails with ENAMETOOLONG
// here.
const walkBufSize = 3 * fs.PathMax

// walk is the state of one path resolution.
type walk struct {
	buf   [walkBufSize]byte
	pos   int    // buf[pos:] is the path still to resolve
	links int    // symbolic links followed so far
	cur   Node   // the directory the rest is relative to
	root  Node   // where "/" leads and ".." stops
	scope uint64 // openat2's RESOLVE_ flags (SetScope)
}

// openat2's resolve flags (linux/openat2.h) that change a resolution.
const (
	ResolveNoXdev       = 0x01 // crossing a mount point, either way: EXDEV
	ResolveNoMagiclinks = 0x02 // a /proc magic link: ELOOP
	ResolveNoSymlinks   = 0x04 // any symbolic link: ELOOP
	ResolveBeneath      = 0x08 // leaving the start ("..", "/", an absolute link, a magic link): EXDEV
	ResolveInRoot       = 0x10 // the start is "/" (the caller passes it as At.Root)

	resolveScoped = ResolveBeneath | ResolveInRoot
)

// SetScope makes the resolutions that follow obey openat2's resolve flags, until SetScope(0).
// With ResolveBeneath or ResolveInRoot the caller passes the start as the root too.
func (ns *Namespace) SetScope(flags uint64) { ns.scope = flags }

// lastType classifies a path's last component, as Linux's LAST_NORM, LAST_ROOT, LAST_DOT and
// LAST_DOTDOT do.
type lastType uint8

const (
	lastNorm   lastType = iota
	lastRoot            // the path is all slashes
	lastDot             // "."
	lastDotDot          // ".."
)

// begin starts resolving path relative to directory start, with root as "/". It fails with
// ENAMETOOLONG for a path of PathMax bytes or more (PATH_MAX counts the NUL), with ENOENT for an
// empty path unless emptyOK (AT_EMPTY_PATH: then empty reports true and the operation applies
// to start itself), and with ENOTDIR for a relative path from a start that is not a directory.
func (ns *Namespace) begin(w *walk, root, start Node, path []byte, emptyOK bool) (empty bool, errno int) {
	if len(path) >= fs.PathMax {
		return false, abi.ENAMETOOLONG
	}
	if len(path) == 0 {
		if !emptyOK {
			return false, abi.ENOENT
		}
		if ns.mode(start) == 0 {
			return false, abi.ENOENT
		}
		return true, 0
	}
	w.pos = len(w.buf) - len(path)
	copy(w.buf[w.pos:], path)
	w.links, w.cur, w.root, w.scope = 0, start, root, ns.scope
	if path[0] != '/' && !ns.isDir(start) {
		if ns.mode(start) == 0 {
			return false, abi.ENOENT
		}
		return false, abi.ENOTDIR
	}
	return false, 0
}

func (ns *Namespace) isDir(n Node) bool  { return ns.mode(n)&fs.S_IFMT == fs.S_IFDIR }
func (ns *Namespace) isLink(n Node) bool { return ns.mode(n)&fs.S_IFMT == fs.S_IFLNK }

// parent resolves every component of the path but the last (Linux's link_path_walk), following
// symbolic links, and leaves w.cur at the directory that holds the last one. It returns the last
// component (a slice of w.buf), its type and whether slashes follow it; w.pos is then just past
// the name, where a trailing symbolic link's target goes.
func (ns *Namespace) parent(w *walk) (last []byte, typ lastType, slash bool, errno int) {
	for {
		if w.pos >= len(w.buf) { // cannot happen: paths and link targets are not empty
			return nil, 0, false, abi.ENOENT
		}
		if w.buf[w.pos] == '/' { // the start of the path or of a link's target
			if w.scope&ResolveBeneath != 0 {
				return nil, 0, false, abi.EXDEV
			}
			w.cur = w.root
			for w.pos < len(w.buf) && w.buf[w.pos] == '/' {
				w.pos++
			}
			if w.pos == len(w.buf) {
				return nil, lastRoot, false, 0
			}
		}
		end := w.pos
		for end < len(w.buf) && w.buf[end] != '/' {
			end++
		}
		next := end
		for next < len(w.buf) && w.buf[next] == '/' {
			next++
		}
		name := w.buf[w.pos:end]
		typ := classify(name)
		if next == len(w.buf) {
			w.pos = end
			return name, typ, next > end, 0
		}
		w.pos = end
		n, errno := ns.step(w, name, typ)
		if errno != 0 {
			return nil, 0, false, errno
		}
		if ns.isLink(n) {
			t, magic, errno := ns.jump(w, n)
			if !magic {
				if errno := ns.follow(w, n); errno != 0 {
					return nil, 0, false, errno
				}
				continue
			}
			if errno == fs.EFDLINK {
				errno = abi.ENOTDIR // a pipe or a socket holds no names
			}
			if errno != 0 {
				return nil, 0, false, errno
			}
			n = t
		}
		if !ns.isDir(n) {
			return nil, 0, false, abi.ENOTDIR
		}
		w.cur = n
		w.pos = next
	}
}

func classify(name []byte) lastType {
	switch {
	case len(name) == 1 && name[0] == '.':
		return lastDot
	case len(name) == 2 && name[0] == '.' && name[1] == '.':
		return lastDotDot
	}
	return lastNorm
}

// step resolves one component in w.cur, crossing into whatever is mounted on the result.
func (ns *Namespace) step(w *walk, name []byte, typ lastType) (Node, int) {
	switch typ {
	case lastDot:
		return w.cur, 0
	case lastDotDot:
		if w.cur == w.root && w.scope&ResolveBeneath != 0 {
			return Node{}, abi.EXDEV
		}
		n, errno := ns.dotdot(w.cur, w.root)
		if errno == 0 && w.scope&ResolveNoXdev != 0 && n.FS != w.cur.FS {
			return Node{}, abi.EXDEV
		}
		return n, errno
	}
	n, errno := ns.lookup(w.cur, name)
	if errno != 0 {
		return Node{}, errno
	}
	n = ns.cross(n)
	if w.scope&ResolveNoXdev != 0 && n.FS != w.cur.FS {
		return Node{}, abi.EXDEV
	}
	return n, 0
}

// follow puts symbolic link n's target in front of the rest of the path (w.pos is just past the
// link's name); the resolution goes on from w.cur, or from the root for an absolute target.
func (ns *Namespace) follow(w *walk, n Node) int {
	if w.scope&ResolveNoSymlinks != 0 {
		return abi.ELOOP
	}
	w.links++
	if w.links > fs.MaxSymlinks {
		return abi.ELOOP
	}
	size := ns.size(n)
	switch {
	case size <= 0:
		return abi.ENOENT
	case size > int64(w.pos):
		return abi.ENAMETOOLONG
	}
	start := w.pos - int(size)
	got, errno := ns.readlink(n, w.buf[start:w.pos])
	if errno != 0 {
		return errno
	}
	if got != int(size) {
		return abi.EIO
	}
	w.pos = start
	return 0
}

// jump follows n if it is one of /proc's magic links, which lead to a file, not to a path
// (Linux's nd_jump_link): magic reports whether it is one, target is the file. A link to a
// descriptor with no file behind it (a pipe, a socket, the console) fails with fs.EFDLINK, and
// ns.fdLink names the descriptor. A jump counts as a link followed.
func (ns *Namespace) jump(w *walk, n Node) (target Node, magic bool, errno int) {
	if ns.kindOf(n) != kindProc {
		return Node{}, false, 0
	}
	kind, target, desc, errno := ns.proc.Target(ns.caller, n.Ino)
	switch {
	case errno != 0:
		return Node{}, true, errno
	case kind == procfs.TargetText:
		return Node{}, false, 0
	}
	switch {
	case w.scope&(ResolveNoMagiclinks|ResolveNoSymlinks) != 0:
		return Node{}, true, abi.ELOOP
	case w.scope&resolveScoped != 0:
		return Node{}, true, abi.EXDEV
	}
	if w.links++; w.links > fs.MaxSymlinks {
		return Node{}, true, abi.ELOOP
	}
	switch kind {
	case procfs.TargetRoot:
		return w.root, true, 0
	case procfs.TargetFD:
		ns.fdLink = desc
		return Node{}, true, fs.EFDLINK
	case procfs.TargetNS:
		target.FS = n.FS
	}
	if ns.mode(target) == 0 {
		return Node{}, true, abi.ENOENT
	}
	return target, true, 0
}

// Lookup flags of resolve.
const (
	follow  = 1 << iota // follow a symbolic link in the last component
	wantDir             // the result must be a directory (O_DIRECTORY; a trailing slash demands it too)
)

// resolve resolves the whole path begun in w (Linux's path_lookupat) and returns the file it
// names, after the mounts on it.
func (ns *Namespace) resolve(w *walk, flags int) (Node, int) {
	for {
		last, typ, slash, errno := ns.parent(w)
		if errno != 0 {
			return Node{}, errno
		}
		var n Node
		switch typ {
		case lastRoot, lastDot:
			n = w.cur
		default:
			n, errno = ns.step(w, last, typ)
			if errno != 0 {
				return Node{}, errno
			}
			if ns.isLink(n) && (flags&follow != 0 || slash) {
				t, magic, errno := ns.jump(w, n)
				if !magic {
					if errno := ns.follow(w, n); errno != 0 {
						return Node{}, errno
					}
					continue
				}
				if errno == fs.EFDLINK && (slash || flags&wantDir != 0) {
					errno = abi.ENOTDIR
				}
				if errno != 0 {
					return Node{}, errno
				}
				n = t
			}
		}
		if (slash || flags&wantDir != 0) && !ns.isDir(n) {
			return Node{}, abi.ENOTDIR
		}
		return n, 0
	}
}

// Resolve returns the file path names, relative to directory start (the working directory or a
// dirfd's) with root as "/". With follow set, a symbolic link as the last component is followed;
// with emptyOK an empty path names start itself (AT_EMPTY_PATH). A /proc link to a descriptor
// without a file is ENXIO.
func (ns *Namespace) Resolve(root, start Node, path []byte, followLast, emptyOK bool) (Node, int) {
	w := &ns.walks[0]
	empty, errno := ns.begin(w, root, start, path, emptyOK)
	if errno != 0 {
		return Node{}, errno
	}
	if empty {
		return start, 0
	}
	flags := 0
	if followLast {
		flags |= follow
	}
	return noFDLink(ns.resolve(w, flags))
}

// noFDLink turns fs.EFDLINK into the errno of the calls that do nothing with a descriptor
// that has no file behind it: ENXIO, Linux's errno for opening a socket that way.
func noFDLink(n Node, errno int) (Node, int) {
	if errno == fs.EFDLINK {
		errno = abi.ENXIO
	}
	return n, errno
}
