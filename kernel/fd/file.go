package fd

import (
	"github.com/unitrace/unitrace/kernel/abi"
	"github.com/unitrace/unitrace/kernel/fs"
)

// Open files. A descriptor of KindFile refers to an open file description, as Linux's struct
// file: the file system node it opened (holding the node's reference, vfs.Namespace.Acquire),
// the position reads and writes move, and the access mode and status flags. dup, dup3 and
// fcntl's F_DUPFD make more descriptors of one description, which then share its position and
// its status flags (O_APPEND, O_NONBLOCK), while each has its own FD_CLOEXEC. The description
// goes when its last descriptor closes; the caller then releases the node (Close and Dup3
// return it).
//
// The other kinds are their own open files (Dup gives the console a new descriptor of its own,
// and refuses the rest); see Table.

// File is an open file description.
type File struct {
	Node fs.Node
	// Pos is the file position: the offset of the next read or write, for a directory the
	// getdents64 cookie to resume from.
	Pos int64
	// Flags are the access mode (O_RDONLY, O_WRONLY, O_RDWR, or O_PATH for a descriptor that
	// only names a file) and the status flags open was given (O_APPEND, O_NONBLOCK, ...):
	// what F_GETFL reports. O_CLOEXEC is the descriptor's, and the creation flags (O_CREAT,
	// O_EXCL, O_NOCTTY, O_TRUNC) are dropped, as Linux drops them.
	Flags int
	refs  int // descriptors that refer to it; 0: the slot is free
}

// setflMask are the status flags F_SETFL changes on a file: O_APPEND and O_NONBLOCK. Linux also
// changes O_ASYNC, O_DIRECT and O_NOATIME there, which mean nothing for these files and are
// ignored.
const setflMask = O_APPEND | O_NONBLOCK

// OpenFile opens the lowest free descriptor on a new description of node n with the flags open
// was given (FD_CLOEXEC from O_CLOEXEC). The caller has taken the node's reference, which the
// description now holds. A full table is EMFILE (the caller still holds the reference then).
func (t *Table) OpenFile(n fs.Node, flags int) (fd int, errno int) {
	d := t.freeDescription()
	if d < 0 {
		return -1, abi.EMFILE
	}
	fd = t.open(KindFile, flags&O_CLOEXEC != 0, false)
	if fd < 0 {
		return -1, abi.EMFILE
	}
	t.descs[d] = File{Node: n, Flags: flags &^ (O_CLOEXEC | O_CREAT | O_EXCL | O_NOCTTY | O_TRUNC), refs: 1}
	t.files[fd].desc = int16(d)
	return fd, 0
}

// Full reports whether every descriptor is open: open, which makes no file then, checks it
// first, as Linux takes the descriptor before it looks the path up.
func (t *Table) Full() bool {
	for fd := range t.files {
		if t.files[fd].kind == KindNone {
			return false
		}
	}
	return true
}

// freeDescription returns a free description slot, or -1. There are as many slots as
// descriptors, so a free descriptor means a free slot.
func (t *Table) freeDescription() int {
	for d := range t.descs {
		if t.descs[d].refs == 0 {
			return d
		}
	}
	return -1
}

// File returns the description fd refers to, or ok=false if fd is not an open file. The pointer
// is into the table: valid until the descriptor closes.
func (t *Table) File(fd int) (f *File, ok bool) {
	if t.Kind(fd) != KindFile {
		return nil, false
	}
	return &t.descs[t.files[fd].desc%MaxFDs], true
}

// drop detaches descriptor fd from its description and returns the node whose reference the
// caller must release, if fd was the description's last descriptor.
func (t *Table) drop(fd int) (last fs.Node) {
	f := &t.files[fd]
	if f.kind != KindFile {
		return fs.Node{}
	}
	d := &t.descs[f.desc%MaxFDs]
	if d.refs--; d.refs > 0 {
		return fs.Node{}
	}
	last = d.Node
	*d = File{}
	return last
}

// Dup implements dup(old) and fcntl(old, F_DUPFD or F_DUPFD_CLOEXEC, min): the lowest free
// descriptor at or above min becomes another descriptor of old's file, with FD_CLOEXEC as
// cloexec says. old not open is EBADF; min outside the table EINVAL (Linux: beyond
// RLIMIT_NOFILE); no free descriptor at or above min EMFILE. Of the other kinds only the
// console can be duplicated (the new descriptor is a console descriptor of its own, with its
// own O_NONBLOCK), and a pipe end (likewise); an eventfd, an epoll instance or a device is
// EINVAL.
func (t *Table) Dup(old, min int, cloexec bool) (fd int, errno int) {
	if !t.isOpen(old) {
		return -1, abi.EBADF
	}
	if min < 0 || min >= MaxFDs {
		return -1, abi.EINVAL
	}
	if !dupable(t.files[old].kind) {
		return -1, abi.EINVAL
	}
	for fd = min; fd < MaxFDs; fd++ {
		if t.files[fd].kind == KindNone {
			t.install(fd, old, cloexec)
			return fd, 0
		}
	}
	return -1, abi.EMFILE
}

func dupable(k Kind) bool {
	return k == KindFile || k == KindConsole || k == KindPipe || k == KindSocket || k == KindPair
}

// install makes free descriptor fd another descriptor of old's file.
func (t *Table) install(fd, old int, cloexec bool) {
	src := t.files[old]
	t.files[fd] = file{kind: src.kind, cloexec: cloexec, nonblock: src.nonblock, desc: src.desc, writeEnd: src.writeEnd, rdwr: src.rdwr}
	switch {
	case src.kind == KindFile:
		t.descs[src.desc%MaxFDs].refs++
	case src.kind == KindPipe && src.rdwr:
		t.pipes[src.desc%MaxPipes].writers++
		t.pipes[src.desc%MaxPipes].readers++
	case src.kind == KindPipe && src.writeEnd:
		t.pipes[src.desc%MaxPipes].writers++
	case src.kind == KindPipe:
		t.pipes[src.desc%MaxPipes].readers++
	case src.kind == KindSocket:
		t.sockets[src.desc%MaxSockets].refs++
	case src.kind == KindPair:
		r, w := t.pairPipes(&src)
		t.pipes[r].readers++
		t.pipes[w].writers++
	}
}

// Dup3 implements dup3(old, new, flags) and, with dup2's check for old == new made by the
// caller, dup2: new becomes another descriptor of old's file, closing what new was first.
// flags other than O_CLOEXEC, or old == new, is EINVAL; old not open or new outside the table
// EBADF; old of a kind Dup refuses EINVAL. If closing new dropped the last descriptor of a
// file, last is that file's node, for the caller to release; closing an eventfd or an epoll
// instance this way is as Close.
func (t *Table) Dup3(old, new, flags int) (fd int, last fs.Node, errno int) {
	switch {
	case flags&^O_CLOEXEC != 0:
		return -1, fs.Node{}, abi.EINVAL
	case old == new:
		return -1, fs.Node{}, abi.EINVAL
	case !t.isOpen(old) || new < 0 || new >= MaxFDs:
		return -1, fs.Node{}, abi.EBADF
	case !dupable(t.files[old].kind):
		return -1, fs.Node{}, abi.EINVAL
	}
	if t.isOpen(new) {
		last, _ = t.Close(new)
	}
	t.install(new, old, flags&O_CLOEXEC != 0)
	return new, last, 0
}

// fileFcntl is Fcntl's F_GETFL and F_SETFL for an open file: the description's flags. A
// descriptor that only names a file (O_PATH) reports them but cannot change them (EBADF).
func (t *Table) fileFcntl(fd, cmd int, arg uintptr) (ret int, errno int) {
	d, _ := t.File(fd)
	if cmd == F_GETFL {
		return d.Flags, 0
	}
	if d.Flags&O_PATH != 0 {
		return 0, abi.EBADF
	}
	d.Flags = d.Flags&^setflMask | int(uint32(arg))&setflMask
	return 0, 0
}

// Description returns the open file description (an index below MaxFDs) of file descriptor fd:
// the owner of its OFD and flock locks. ok is false if fd is not a file's.
func (t *Table) Description(fd int) (d int, ok bool) {
	if t.Kind(fd) != KindFile {
		return -1, false
	}
	return int(t.files[fd].desc) % MaxFDs, true
}
