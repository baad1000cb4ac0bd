package p9fs

import (
	"github.com/unitrace/unitrace/kernel/abi"
	"github.com/unitrace/unitrace/kernel/fs/p9"
)

// finish acts on the end of the operation t (no longer on any tag): it updates the nodes,
// starts the next step of the call, or records the call's outcome and wakes its waiter.
func (f *FS) finish(tag uint16, t *tagState, res p9.Result) {
	errno := res.Errno
	switch t.step {
	case stepVersion:
		if errno == 0 {
			nt, b, _ := f.nextTag()
			_, n, e := f.c.Attach(b, unameBytes[:], nil, 0)
			errno = f.chain(t, stepAttach, nt, n, e)
		}
		if errno != 0 {
			f.failMount(errno)
		}
	case stepAttach:
		if errno == 0 {
			f.rootFid = res.Fid
			r := &f.nodes[0]
			*r = node{used: true, fid: res.Fid, qid: res.Qid, parent: RootIno}
			for s := range r.open {
				r.open[s] = p9.NoFid
			}
			nt, b, _ := f.nextTag()
			_, n, e := f.c.Getattr(b, res.Fid, p9.GetattrBasic)
			errno = f.chain(t, stepRootAttr, nt, n, e)
		}
		if errno != 0 {
			f.failMount(errno)
		}
	case stepRootAttr:
		if errno != 0 {
			f.failMount(errno)
			return
		}
		f.nodes[0].stat = res.Attr.Stat()
		f.nodes[0].ready = true
		f.state = mounted

	case stepLookupWalk:
		if errno != 0 {
			f.finishEntry(t, errno, 0, 0)
			return
		}
		f.found(t, res.Fid, res.Qid, stepLookupAttr)
	case stepLookupAttr:
		n, e := f.node(t.ino)
		if e == 0 {
			n.busy--
		}
		switch {
		case e != 0:
			f.finishEntry(t, e, 0, 0)
		case errno != 0:
			f.dropFids(n)
			n.used = false
			f.finishEntry(t, errno, 0, 0)
		default:
			n.stat = res.Attr.Stat()
			n.ready = true
			f.finishEntry(t, 0, t.ino, 0)
		}

	case stepCreate:
		if errno != 0 {
			f.finishEntry(t, errno, 0, 0)
			return
		}
		// The fid Tlcreate made is open: a handle to walk from needs a walk of its own.
		t.fid, t.iounit = res.Fid, res.Iounit
		d, e := f.node(t.dir)
		if e == 0 {
			nt, b, _ := f.nextTag()
			_, n, e2 := f.c.Walk(b, d.fid, t.name[:t.nlen])
			e = f.chain(t, stepCreateWalk, nt, n, e2)
		}
		if e != 0 {
			f.clunkLater(res.Fid)
			f.finishEntry(t, e, 0, 0)
		}
	case stepCreateWalk:
		if errno != 0 {
			f.clunkLater(t.fid)
			f.finishEntry(t, errno, 0, 0)
			return
		}
		if i, ok := f.found(t, res.Fid, res.Qid, stepLookupAttr); ok {
			n := &f.nodes[i]
			if n.open[openRdwr] == p9.NoFid {
				n.open[openRdwr], n.iounit[openRdwr] = t.fid, t.iounit
			} else {
				f.clunkLater(t.fid)
			}
		} else {
			f.clunkLater(t.fid)
		}

	case stepClunk:
	case stepGetattr:
		if n, e := f.node(t.ino); e == 0 {
			n.busy--
			if errno == 0 {
				n.stat = res.Attr.Stat()
			}
		}
		// The reply stays held, so that every rerun reads the same attributes: the node's
		// change as later calls of the same system call change them (a write's size).
		resp := f.resp(tag)
		size := uint32(resp[0]) | uint32(resp[1])<<8 | uint32(resp[2])<<16 | uint32(resp[3])<<24
		if e := f.finishEntry(t, errno, t.ino, size); e != nil && errno == 0 && f.c.Hold(tag) {
			e.held, e.tag = true, tag
		} else if e != nil && errno == 0 {
			e.errno = abi.EIO
		}
	case stepOpen:
		if errno != 0 {
			f.finishEntry(t, errno, 0, 0)
			return
		}
		n, e := f.node(t.ino)
		switch {
		case e != 0:
			f.clunkLater(res.Fid)
		case n.open[t.slot%numOpen] != p9.NoFid: // another thread's open got there first
			f.clunkLater(res.Fid)
		default:
			n.open[t.slot%numOpen], n.iounit[t.slot%numOpen] = res.Fid, res.Iounit
		}
		f.finishEntry(t, e, t.ino, 0)
	case stepData:
		if errno != 0 {
			f.finishEntry(t, errno, 0, 0)
			return
		}
		resp := f.resp(tag)
		off := uint32(cap(resp) - cap(res.Data))
		if e := f.finishEntry(t, 0, t.ino, uint32(len(res.Data))); e != nil && f.c.Hold(tag) {
			e.held, e.tag, e.off = true, tag, off
		} else if e != nil {
			e.errno = abi.EIO
		}
	case stepWrite:
		if errno == 0 {
			if n, e := f.node(t.ino); e == 0 && t.off >= 0 {
				n.stat.Size = max(n.stat.Size, t.off+int64(res.Count))
			}
		}
		f.finishEntry(t, errno, t.ino, res.Count)
	case stepStatfs:
		if errno == 0 {
			f.statfs = res.Statfs
		}
		f.finishEntry(t, errno, 0, 0)
	case stepEmpty:
		f.finishEntry(t, errno, t.ino, 0)
	}
}

// found takes the fid and qid a walk to t's name ended at: the file's node if it has one (the
// new fid is clunked), else a new node, whose attributes step s then asks for.
func (f *FS) found(t *tagState, fid uint32, qid p9.Qid, s step) (int, bool) {
	if i, ok := f.known(qid, t.dir, t.name[:t.nlen]); ok {
		f.clunkLater(fid)
		n := &f.nodes[i]
		n.qid = qid
		if i != 0 {
			n.setName(t.dir, t.name[:t.nlen])
		}
		f.finishEntry(t, 0, f.ino(i), 0)
		return i, true
	}
	i, ok := f.newNode(fid, qid)
	if !ok {
		f.clunkLater(fid)
		f.finishEntry(t, abi.ENFILE, 0, 0)
		return 0, false
	}
	n := &f.nodes[i]
	n.setName(t.dir, t.name[:t.nlen])
	n.busy++
	t.ino = f.ino(i)
	nt, b, _ := f.nextTag()
	_, m, e := f.c.Getattr(b, fid, p9.GetattrBasic)
	if e = f.chain(t, s, nt, m, e); e != 0 {
		n.busy--
		f.dropFids(n)
		n.used = false
		f.finishEntry(t, e, 0, 0)
		return 0, false
	}
	return i, true
}
