package p9fs

import (
	"github.com/unitrace/unitrace/kernel/abi"
	"github.com/unitrace/unitrace/kernel/fs"
	"github.com/unitrace/unitrace/kernel/fs/p9"
)

// openFid returns an open fid of n for slot's access, opening one first if n has none (a
// clone of its handle, then Tlopen). The fid is shared by every open file of the node and
// clunked when the last reference goes.
func (f *FS) openFid(w int32, n *node, ino uint32, slot int) (fid, iounit uint32, errno int) {
	k := uint64(newKey(kOpen).u64(uint64(ino)).u64(uint64(slot)))
	if e, ok := f.peek(w, k); ok && e.errno != 0 {
		return 0, 0, int(e.errno)
	}
	if fid, iounit, ok := n.openFor(slot); ok {
		return fid, iounit, 0
	}
	a, errno := f.ask(w, k, false)
	switch {
	case errno != 0:
		return 0, 0, errno
	case a.replay: // opened, and closed again since
		return 0, 0, abi.EIO
	}
	flags := [numOpen]uint32{fs.O_RDONLY, fs.O_WRONLY, fs.O_RDWR, fs.O_WRONLY | fs.O_APPEND}[slot%numOpen]
	_, m, errno := f.c.Open(a.b, n.fid, nil, flags)
	return 0, 0, f.started(w, a, m, errno, tagState{step: stepOpen, ino: ino, slot: uint8(slot)})
}

// ioMax is the most one Tread or Twrite moves on a fid with iounit.
func (f *FS) ioMax(iounit uint32) int {
	m := int(f.c.Msize()) - p9.IOHeaderSize
	if iounit != 0 && int(iounit) < m {
		m = int(iounit)
	}
	return max(m, 1)
}

// Read reads from ino at off into dst: one Tread of at most what one message carries, so a
// large read returns short, as reads of a 9p file do.
func (f *FS) Read(w int32, ino uint32, off int64, dst []byte) (int, int) {
	n, errno := f.node(ino)
	if errno != 0 {
		return 0, errno
	}
	if n.stat.Mode&fs.S_IFMT == fs.S_IFDIR {
		return 0, abi.EISDIR
	}
	if len(dst) == 0 {
		return 0, 0
	}
	if off < 0 {
		return 0, abi.EINVAL
	}
	fid, iounit, errno := f.openFid(w, n, ino, openRead)
	if errno != 0 {
		return 0, errno
	}
	count := min(len(dst), f.ioMax(iounit))
	a, errno := f.ask(w, uint64(newKey(kRead).u64(uint64(ino)).u64(uint64(off)).u64(uint64(count))), false)
	switch {
	case errno != 0:
		return 0, errno
	case a.replay:
		return f.copyHeld(a.e, dst[:count])
	}
	_, m, errno := f.c.Read(a.b, fid, uint64(off), uint32(count))
	return 0, f.started(w, a, m, errno, tagState{step: stepData, ino: ino})
}

// Write writes src to ino at off, or with appending at the host file's end (a fid opened
// O_APPEND: the host's write appends whatever offset it is given). One Twrite of at most what
// one message carries: a large write returns short, and the caller writes the rest.
func (f *FS) Write(w int32, ino uint32, off int64, src []byte, appending bool) (int, int) {
	n, errno := f.node(ino)
	if errno != 0 {
		return 0, errno
	}
	if len(src) == 0 {
		return 0, 0
	}
	if off < 0 {
		return 0, abi.EINVAL
	}
	slot := openWrite
	if appending {
		slot, off = openAppend, -1
	}
	fid, iounit, errno := f.openFid(w, n, ino, slot)
	if errno != 0 {
		return 0, errno
	}
	src = src[:min(len(src), f.ioMax(iounit))]
	k := newKey(kWrite).u64(uint64(ino)).u64(uint64(off)).bytes(src)
	a, errno := f.ask(w, uint64(k), false)
	switch {
	case errno != 0:
		return 0, errno
	case a.replay:
		return int(a.e.count), int(a.e.errno)
	}
	_, m, errno := f.c.Write(a.b, fid, uint64(max(off, 0)), src)
	return 0, f.started(w, a, m, errno, tagState{step: stepWrite, ino: ino, off: off})
}

// ReadDir writes linux_dirent64 records of directory ino from cookie on into dst (one
// Treaddir; the cookies are the server's offsets) and returns the bytes written and the cookie
// to go on from. An entry that does not fit ends the batch; if the first does not, EINVAL, as
// getdents64 says of a buffer too small.
func (f *FS) ReadDir(w int32, ino uint32, cookie uint64, dst []byte) (int, uint64, int) {
	n, errno := f.node(ino)
	if errno != 0 {
		return 0, cookie, errno
	}
	if n.stat.Mode&fs.S_IFMT != fs.S_IFDIR {
		return 0, cookie, abi.ENOTDIR
	}
	fid, _, errno := f.openFid(w, n, ino, openRead)
	if errno != 0 {
		return 0, cookie, errno
	}
	// Ask for at least one entry of the longest name: a count too small for the next entry
	// gets no entries, which would read as the end of the directory. What does not fit in
	// dst is asked for again from its cookie.
	count := min(max(len(dst), p9.ReaddirHeaderSize+fs.NameMax), int(f.c.Msize())-p9.ReaddirHeaderSize)
	a, errno := f.ask(w, uint64(newKey(kReaddir).u64(uint64(ino)).u64(cookie).u64(uint64(count))), false)
	switch {
	case errno != 0:
		return 0, cookie, errno
	case a.replay:
		return f.dirents(a.e, cookie, dst)
	}
	_, m, errno := f.c.Readdir(a.b, fid, cookie, uint32(count))
	return 0, cookie, f.started(w, a, m, errno, tagState{step: stepData, ino: ino})
}

// dirents turns a replayed Treaddir's entries into linux_dirent64 records.
func (f *FS) dirents(e *entry, cookie uint64, dst []byte) (int, uint64, int) {
	if e.errno != 0 {
		return 0, cookie, int(e.errno)
	}
	resp := f.resp(e.tag)
	if !e.held || e.off > uint32(len(resp)) || e.count > uint32(len(resp))-e.off {
		return 0, cookie, abi.EIO
	}
	data := resp[e.off : e.off+e.count]
	written := 0
	for len(data) > 0 {
		d, rest, err := p9.NextDirent(data)
		if err != p9.OK {
			return written, cookie, abi.EIO
		}
		k := fs.PutDirent(dst[written:], d.Qid.Path, int64(d.Offset), p9.DirentType(d), d.Name)
		if k == 0 {
			if written == 0 {
				return 0, cookie, abi.EINVAL
			}
			break
		}
		written += k
		cookie = d.Offset
		data = rest
	}
	return written, cookie, 0
}
