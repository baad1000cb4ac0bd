package p9

import (
	"github.com/unitrace/unitrace/kernel/abi"
)

// Reply hands the client the reply to the request last sent with tag: reply is the bytes the
// server sent (exactly; the size field must match), b the buffer for the operation's next
// request, if it has one (the tag's request buffer will do: its request is answered). Reply
// never fails: a reply it cannot accept ends the operation with EIO, Result.Err saying why,
// after clunking any fid the operation may have made.
func (c *Client) Reply(tag uint16, reply []byte, b []byte) Result {
	if !c.InFlight(tag) {
		return Result{Done: true, Errno: abi.EIO, Err: ErrNoOp}
	}
	o := &c.ops[tag]
	if len(reply) == 0 {
		if o.flushed {
			return c.abandon(tag, o, abi.EINTR, OK)
		}
		return c.fail(b, tag, o, abi.EIO, ErrNoReply)
	}
	wire := tag
	if o.kind == opVersion {
		wire = NoTag
	}
	r, err := ParseReply(reply, c.msize, o.sent, wire)
	if err != OK {
		return c.fail(b, tag, o, abi.EIO, err)
	}
	if r.Type == Rlerror {
		ecode, err := r.Rlerror()
		if err != OK {
			return c.fail(b, tag, o, abi.EIO, err)
		}
		return c.fail(b, tag, o, Errno(ecode), OK)
	}
	switch o.sent {
	case Tversion:
		msize, err := r.Rversion(o.count)
		if err != OK {
			return c.fail(b, tag, o, abi.EIO, err)
		}
		c.msize = msize
		return c.done(tag, Result{Msize: msize})
	case Tattach:
		qid, err := r.Rattach()
		if err != OK {
			return c.fail(b, tag, o, abi.EIO, err)
		}
		c.fids.e[o.newfid] = fidEntry{state: fidWalked, qid: qid}
		return c.done(tag, Result{Fid: o.newfid, Qid: qid})
	case Twalk:
		return c.walked(b, tag, o, r)
	case Tlopen, Tlcreate:
		var qid Qid
		var iounit uint32
		if o.sent == Tlopen {
			qid, iounit, err = r.Rlopen()
		} else {
			qid, iounit, err = r.Rlcreate()
		}
		if err != OK {
			return c.fail(b, tag, o, abi.EIO, err)
		}
		fid := o.newfid
		if o.kind == opLopen {
			fid = o.fid
		}
		c.fids.e[fid] = fidEntry{state: fidOpen, access: uint8(o.flags & DotlAccmode), iounit: iounit, qid: qid}
		return c.done(tag, Result{Fid: fid, Qid: qid, Iounit: iounit, Walked: int(o.walked)})
	case Tread:
		data, err := r.Rread(o.count)
		if err != OK {
			return c.fail(b, tag, o, abi.EIO, err)
		}
		return c.done(tag, Result{Data: data, Count: uint32(len(data))})
	case Twrite:
		n, err := r.Rwrite(o.count)
		if err != OK {
			return c.fail(b, tag, o, abi.EIO, err)
		}
		return c.done(tag, Result{Count: n})
	case Treaddir:
		data, err := r.Rreaddir(o.count)
		if err != OK {
			return c.fail(b, tag, o, abi.EIO, err)
		}
		return c.done(tag, Result{Data: data, Count: uint32(len(data))})
	case Tgetattr:
		a, err := r.Rgetattr()
		if err != OK {
			return c.fail(b, tag, o, abi.EIO, err)
		}
		return c.done(tag, Result{Attr: a})
	case Tmkdir, Tsymlink:
		var qid Qid
		if o.sent == Tmkdir {
			qid, err = r.Rmkdir()
		} else {
			qid, err = r.Rsymlink()
		}
		if err != OK {
			return c.fail(b, tag, o, abi.EIO, err)
		}
		return c.done(tag, Result{Qid: qid})
	case Treadlink:
		target, err := r.Rreadlink()
		if err != OK {
			return c.fail(b, tag, o, abi.EIO, err)
		}
		return c.done(tag, Result{Data: target})
	case Tstatfs:
		s, err := r.Rstatfs()
		if err != OK {
			return c.fail(b, tag, o, abi.EIO, err)
		}
		return c.done(tag, Result{Statfs: s})
	case Tclunk, Tremove:
		if err := r.Empty(); err != OK {
			return c.fail(b, tag, o, abi.EIO, err)
		}
		return c.dropped(tag, o, 0, OK)
	case Tflush:
		if err := r.Empty(); err != OK {
			return c.fail(b, tag, o, abi.EIO, err)
		}
		return c.flushed(b, tag, o, 0, OK)
	}
	// Tsetattr, Tlink, Trenameat, Tunlinkat, Tfsync.
	if err := r.Empty(); err != OK {
		return c.fail(b, tag, o, abi.EIO, err)
	}
	return c.done(tag, Result{})
}

// done ends the operation with res.
func (c *Client) done(tag uint16, res Result) Result {
	c.endOp(tag)
	res.Done = true
	return res
}

// next reports that the operation continues with the n-byte request in the caller's buffer.
func next(n int) Result { return Result{Next: n} }

// walked handles an Rwalk.
func (c *Client) walked(b []byte, tag uint16, o *op, r Reply) Result {
	var qids [MaxWalk]Qid
	k, err := r.Rwalk(int(o.count), &qids)
	if err != OK {
		return c.fail(b, tag, o, abi.EIO, err)
	}
	if k > 0 {
		o.qid = qids[k-1]
	}
	o.walked += uint32(k)
	if k < int(o.count) {
		return c.fail(b, tag, o, abi.ENOENT, OK) // the walk stopped short: newfid was not moved
	}
	o.live = true
	c.fids.e[o.newfid].qid = o.qid
	if moreNames(o.pathBytes(), int(o.pathOff)) {
		if o.flushed {
			return c.abandon(tag, o, abi.EINTR, OK)
		}
		n, err := c.putWalk(b, tag, o, o.newfid)
		if err != OK {
			return c.fail(b, tag, o, encodeErrno(err), OK)
		}
		return next(n)
	}
	switch o.kind {
	case opOpen, opCreate:
		if o.flushed {
			return c.abandon(tag, o, abi.EINTR, OK)
		}
		var n int
		var err Err
		if o.kind == opOpen {
			n, err = PutTlopen(b, c.msize, tag, o.newfid, o.flags)
			o.sent = Tlopen
		} else {
			n, err = PutTlcreate(b, c.msize, tag, o.newfid, o.pathBytes(), o.flags, o.mode, o.gid)
			o.sent = Tlcreate
		}
		if err != OK {
			return c.fail(b, tag, o, encodeErrno(err), OK)
		}
		return next(n)
	}
	c.fids.e[o.newfid].state = fidWalked
	return c.done(tag, Result{Fid: o.newfid, Qid: o.qid, Walked: int(o.walked)})
}

// fail ends the operation with errno (and err, for a reply the decoder rejected), undoing what
// it did to the fid table. A fid the operation made that the server may hold is clunked first:
// the operation goes on with that Tclunk and ends when it is answered.
func (c *Client) fail(b []byte, tag uint16, o *op, errno int, err Err) Result {
	switch o.sent {
	case Tclunk, Tremove:
		return c.dropped(tag, o, errno, err)
	case Tflush:
		return c.flushed(b, tag, o, errno, err)
	case Tlopen:
		if o.kind == opLopen {
			if f, ok := c.fids.get(o.fid); ok {
				f.state = fidWalked
			}
			return c.done(tag, Result{Errno: errno, Err: err})
		}
	}
	if o.newfid == NoFid {
		return c.done(tag, Result{Errno: errno, Err: err})
	}
	// A rejected reply leaves the server's side unknown; a failed first Twalk or Tattach made
	// no fid; anything later (newfid walked, a Tlopen or Tlcreate of it) did.
	if err == OK && !o.live {
		c.fids.free(o.newfid)
		return c.done(tag, Result{Errno: errno, Walked: int(o.walked), Qid: o.qid})
	}
	if o.flushed {
		return c.abandon(tag, o, errno, err)
	}
	o.errno, o.err = int32(errno), err
	c.fids.e[o.newfid].state = fidClosing
	n, e := PutTclunk(b, c.msize, tag, o.newfid)
	if e != OK {
		c.fids.free(o.newfid)
		return c.done(tag, Result{Errno: errno, Err: err, Walked: int(o.walked), Qid: o.qid})
	}
	o.sent = Tclunk
	return next(n)
}

// dropped ends a Tclunk or Tremove: the fid is gone whatever the reply said. A clean-up clunk
// reports the failure that called for it.
func (c *Client) dropped(tag uint16, o *op, errno int, err Err) Result {
	switch o.kind {
	case opClunk, opRemove:
		c.fids.free(o.fid)
		return c.done(tag, Result{Errno: errno, Err: err})
	}
	c.fids.free(o.newfid)
	if o.err != OK {
		err = o.err
	}
	return c.done(tag, Result{Errno: int(o.errno), Err: err, Walked: int(o.walked), Qid: o.qid})
}

// abandon ends a flushed operation with errno (EINTR when it was cancelled, or stopped before
// its next message): it sends nothing more, since its tag may not be used until the Rflush. A
// fid the server may hold (newfid, once walked; the fid a clunk or remove was dropping) is left
// to the flush to clunk; one it cannot hold is freed.
func (c *Client) abandon(tag uint16, o *op, errno int, err Err) Result {
	orphan := NoFid
	switch {
	case o.kind == opClunk || o.kind == opRemove:
		orphan = o.fid
	case o.kind == opLopen:
		if f, ok := c.fids.get(o.fid); ok {
			f.state = fidWalked
		}
	case o.newfid != NoFid && (o.live || o.sent == Tclunk || err != OK):
		orphan = o.newfid
	case o.newfid != NoFid:
		c.fids.free(o.newfid)
	}
	if orphan != NoFid {
		c.fids.e[orphan].state = fidClosing
		for i := range c.ops {
			if f := &c.ops[i]; f.kind == opFlush && f.sent == Tflush && f.oldtag == tag {
				f.orphan = orphan
			}
		}
	}
	return c.done(tag, Result{Errno: errno, Err: err, Walked: int(o.walked), Qid: o.qid})
}

// flushed handles the reply to a Tflush (Rflush; a failure, though Tflush cannot fail, counts
// the same): the old operation is over if it was not already, and any fid it left is clunked.
func (c *Client) flushed(b []byte, tag uint16, o *op, errno int, err Err) Result {
	if old := &c.ops[o.oldtag]; old.kind != opFree && old.flushed {
		c.abandon(o.oldtag, old, abi.EINTR, OK)
	}
	if o.orphan == NoFid {
		return c.done(tag, Result{Errno: errno, Err: err})
	}
	// The clean-up is a Tclunk of the orphan, which dropped frees as it does a newfid.
	o.newfid, o.errno, o.err = o.orphan, int32(errno), err
	o.orphan = NoFid
	n, e := PutTclunk(b, c.msize, tag, o.newfid)
	if e != OK {
		c.fids.free(o.newfid)
		return c.done(tag, Result{Errno: errno, Err: err})
	}
	o.sent = Tclunk
	return next(n)
}
