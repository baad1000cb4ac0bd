package procfs

import (
	"github.com/unitrace/unitrace/kernel/abi"
	"github.com/unitrace/unitrace/kernel/fd"
	"github.com/unitrace/unitrace/kernel/fs"
)

// Symbolic links. Some are plain links, whose text is resolved as any link's: self ("<pid>"),
// thread-self ("<pid>/task/<tid>") and exe (the program's path: the program's file is the
// image QEMU booted, which is no file in the guest, so exe leads wherever that path leads,
// usually nowhere). The others are Linux's magic links, which lead to a file itself, not to a
// path: fd/<n> to the open file (or, for a pipe, a socket, the console..., to the descriptor's
// object), cwd to the working directory, root to the root.

// Kinds of target a link leads to (Target).
const (
	TargetText = iota // a plain link: Readlink's text is resolved as a path
	TargetNode        // a magic link to a file: the node
	TargetRoot        // a magic link to the root of the namespace
	TargetFD          // a magic link to a descriptor without a file: the descriptor
	TargetNS          // a magic link to a namespace: the node, a file of this file system
)

// Target says where link n leads for the thread in slot caller: kind, and the node (TargetNode;
// TargetNS, whose node is one of this file system's, its FS left for the caller to fill) or the
// descriptor (TargetFD). A link whose file is gone is ENOENT.
func (f *FS) Target(caller int32, n uint32) (kind int, node fs.Node, desc int, errno int) {
	m := f.Mode(n)
	switch {
	case m == 0:
		return 0, fs.Node{}, 0, abi.ENOENT
	case m&fs.S_IFMT != fs.S_IFLNK:
		return 0, fs.Node{}, 0, abi.EINVAL
	}
	e, arg := split(n)
	s := f.s()
	switch e {
	case eCwd:
		return TargetNode, *s.Cwd, 0, 0
	case eRootLink:
		return TargetRoot, fs.Node{}, 0, 0
	case eFdLink:
		if file, ok := s.FDs.File(int(arg)); ok {
			return TargetNode, file.Node, 0, 0
		}
		return TargetFD, fs.Node{}, int(arg), 0
	}
	if isNsLink(e) {
		return TargetNS, fs.Node{Ino: ino(eNsObject, uint32(nsLinkTarget(e)))}, 0, 0
	}
	return TargetText, fs.Node{}, 0, 0
}

// Readlink writes the text of link n into dst (cut to fit) and returns its length: a plain
// link's, or what Linux shows for a descriptor without a file ("pipe:[3]", "socket:[5]",
// "anon_inode:[eventpoll]", "/dev/console"). The magic links to files have their file's path as
// text, which is the namespace's to find (EINVAL here).
func (f *FS) Readlink(caller int32, n uint32, dst []byte) (int, int) {
	t := newText(dst, 0)
	if errno := f.linkText(caller, n, &t); errno != 0 {
		return 0, errno
	}
	return t.n(), 0
}

// LinkLen is the length of Readlink's text for link n.
func (f *FS) LinkLen(caller int32, n uint32) (int64, int) {
	t := newText(nil, 0)
	if errno := f.linkText(caller, n, &t); errno != 0 {
		return 0, errno
	}
	return t.pos, 0
}

func (f *FS) linkText(caller int32, n uint32, t *text) int {
	kind, _, desc, errno := f.Target(caller, n)
	if errno != 0 {
		return errno
	}
	s := f.s()
	switch kind {
	case TargetNode, TargetRoot:
		return abi.EINVAL
	case TargetFD:
		anonName(s.FDs, desc, t)
		return 0
	case TargetNS:
		e, _ := split(n)
		nsLinkText(nsLinkTarget(e), t)
		return 0
	}
	switch e, _ := split(n); e {
	case eSelf:
		t.dec(uint64(s.Info.Pid))
	case eThreadSelf:
		if caller < 0 || int(caller) >= len(s.Threads) || s.Threads[caller] == 0 {
			return abi.ENOENT // a kernel thread's: Linux has none either
		}
		t.dec(uint64(s.Info.Pid))
		t.str("/task/")
		t.dec(uint64(s.Threads[caller]))
	case eExe:
		t.bytes(s.Info.exe())
	}
	return 0
}

// anonName writes what Linux shows as the target of a descriptor that has no file.
func anonName(fds *fd.Table, n int, t *text) {
	switch fds.Kind(n) {
	case fd.KindConsole:
		t.str("/dev/console")
	case fd.KindPipe:
		t.str("pipe:[")
		t.dec(fds.Inode(n))
		t.byte(']')
	case fd.KindSocket, fd.KindPair:
		t.str("socket:[")
		t.dec(fds.Inode(n))
		t.byte(']')
	case fd.KindEventfd:
		t.str("anon_inode:[eventfd]")
	case fd.KindEpoll:
		t.str("anon_inode:[eventpoll]")
	case fd.KindTimerfd:
		t.str("anon_inode:[timerfd]")
	default: // the trace ports, which Linux has no name for
		t.str("anon_inode:[unitrace-port]")
	}
}
