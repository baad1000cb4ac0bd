package p9

import (
	"encoding/binary"
	"testing"
)

// requests is every request type ParseReply accepts, in the order the fuzzers index them.
var requests = []Type{Tstatfs, Tlopen, Tlcreate, Tsymlink, Treadlink, Tgetattr, Tsetattr, Treaddir, Tfsync,
	Tlink, Tmkdir, Trenameat, Tunlinkat, Tversion, Tattach, Tflush, Twalk, Tread, Twrite, Tclunk, Tremove}

// FuzzReply feeds arbitrary bytes to ParseReply and every body decoder as a reply to any
// request: none may panic, and whatever they accept must lie inside the reply.
func FuzzReply(f *testing.F) {
	for _, seed := range [][]byte{rversion, rattach, rwalk, rlopen, rlcreate, rread, rwrite, rclunk, rlerrorMsg,
		rreadlink, rmkdir, rflush, rreaddir, rstatfs, rgetattr} {
		for i, req := range requests {
			if replyType(req) == Type(seed[4]) || Type(seed[4]) == Rlerror {
				f.Add(uint8(i), uint32(100), seed)
			}
		}
	}
	f.Fuzz(func(t *testing.T, which uint8, count uint32, b []byte) {
		req := requests[int(which)%len(requests)]
		tag := NoTag
		if len(b) >= HeaderSize {
			tag = binary.LittleEndian.Uint16(b[5:]) // let the tag match, to reach the bodies
		}
		r, err := ParseReply(b, 8192, req, tag)
		if err != OK {
			return
		}
		if r.Type != Rlerror && r.Type != replyType(req) || len(b) > 8192 {
			t.Fatalf("accepted type %d for %d, %d bytes", r.Type, req, len(b))
		}
		inside := func(s []byte) {
			if len(s) > len(b) {
				t.Fatalf("slice longer than the reply")
			}
		}
		var qids [MaxWalk]Qid
		r.Rlerror()
		r.Rversion(count)
		r.Rattach()
		r.Rmkdir()
		r.Rsymlink()
		if n, err := r.Rwalk(int(count%(MaxWalk+1)), &qids); err == OK && n > int(count%(MaxWalk+1)) {
			t.Fatalf("Rwalk of %d names gave %d", count%(MaxWalk+1), n)
		}
		r.Rlopen()
		r.Rlcreate()
		if data, err := r.Rread(count); err == OK {
			inside(data)
			if uint64(len(data)) > uint64(count) {
				t.Fatalf("Rread of %d gave %d", count, len(data))
			}
		}
		if n, err := r.Rwrite(count); err == OK && n > count {
			t.Fatalf("Rwrite of %d gave %d", count, n)
		}
		if data, err := r.Rreaddir(count); err == OK {
			for rest := data; len(rest) > 0; {
				var e Dirent
				var err Err
				if e, rest, err = NextDirent(rest); err != OK {
					t.Fatalf("Rreaddir accepted an entry NextDirent rejects: %v", err)
				}
				inside(e.Name)
			}
		}
		if s, err := r.Rreadlink(); err == OK {
			inside(s)
		}
		r.Rgetattr()
		r.Rstatfs()
		r.Empty()
	})
}

// FuzzClient plays a server that answers with arbitrary bytes, some of them real replies: the
// Client must not panic, must end every operation, and its fid table must stay consistent.
func FuzzClient(f *testing.F) {
	f.Add([]byte{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22})
	f.Add([]byte{2, 0, 2, 1, 2, 2, 3, 3, 9, 0, 9, 1, 20, 0, 21, 1, 7, 7})
	f.Fuzz(func(t *testing.T, script []byte) {
		c := new(Client)
		req := make([]byte, 8192)
		negotiate(t, c, req, 8192)
		root := attachRoot(t, c, req)
		fids := []uint32{root}
		at := 0
		arg := func() byte {
			if at < len(script) {
				at++
				return script[at-1]
			}
			return 0
		}
		for steps := 0; at < len(script) && steps < 64; steps++ {
			op, x := arg(), arg()
			fid := fids[int(x)%len(fids)]
			tag, n, errno := startFuzzOp(c, req, op, fid, x)
			if errno != 0 {
				continue
			}
			// Both operations' requests live in one buffer each: the op's and, when it is
			// flushed, the flush's.
			inflight := []fuzzOp{{tag, append([]byte(nil), req[:n]...), op % 23}}
			if x&0x80 != 0 { // flush it
				ftag, fn, errno := c.Flush(req, tag)
				if errno != 0 {
					t.Fatalf("Flush of tag %d in flight: %d", tag, errno)
				}
				inflight = append(inflight, fuzzOp{ftag, append([]byte(nil), req[:fn]...), 19})
			}
			for hops := 0; len(inflight) > 0; hops++ {
				if hops > 2*MaxPath {
					t.Fatalf("operations %+v never end", inflight)
				}
				// The flushed operation is answered first, if at all (the order 9P servers keep).
				i := 0
				if len(inflight) == 2 && arg()%3 == 0 {
					i = 1
				}
				o := &inflight[i]
				res := c.Reply(o.tag, fuzzReply(o.req, arg(), arg()), req)
				if res.Done {
					if c.InFlight(o.tag) {
						t.Fatalf("tag %d still in flight after Done", o.tag)
					}
					if res.Errno == 0 && (o.op == 2 || o.op == 3 || o.op == 4) {
						fids = append(fids, res.Fid)
					}
					inflight = append(inflight[:i], inflight[i+1:]...)
					for j := 0; j < len(inflight); j++ {
						if !c.InFlight(inflight[j].tag) { // ended by the flush
							inflight = append(inflight[:j], inflight[j+1:]...)
							j--
						}
					}
					continue
				}
				if res.Next < HeaderSize || binary.LittleEndian.Uint32(req) != uint32(res.Next) {
					t.Fatalf("next request of %d bytes: % x", res.Next, req[:HeaderSize])
				}
				o.req = append(o.req[:0], req[:res.Next]...)
			}
			checkFids(t, c)
		}
	})
}

type fuzzOp struct {
	tag uint16
	req []byte
	op  byte
}

// startFuzzOp starts operation op%23 on fid.
func startFuzzOp(c *Client, b []byte, op byte, fid uint32, x byte) (uint16, int, int) {
	name := []byte{'a' + x%3}
	path := []byte("a/b/c/d/e/f/g/h/i/j/k/l/m/n/o/p/q/r")[:int(x)%36]
	switch op % 23 {
	case 0:
		return c.Read(b, fid, uint64(x), uint32(x)*100)
	case 1:
		return c.Write(b, fid, 0, path)
	case 2:
		return c.Walk(b, fid, path)
	case 3:
		return c.Open(b, fid, path, uint32(x)%3)
	case 4:
		return c.Create(b, fid, name, uint32(x)%3, 0o644, 0)
	case 5:
		return c.Lopen(b, fid, 0)
	case 6:
		return c.Readdir(b, fid, 0, 1000)
	case 7:
		return c.Getattr(b, fid, GetattrBasic)
	case 8:
		return c.Setattr(b, fid, SetAttr{Valid: SetattrSize})
	case 9:
		return c.Clunk(b, fid)
	case 10:
		return c.Remove(b, fid)
	case 11:
		return c.Mkdir(b, fid, name, 0o755, 0)
	case 12:
		return c.Symlink(b, fid, name, path, 0)
	case 13:
		return c.Readlink(b, fid)
	case 14:
		return c.Link(b, fid, fid, name)
	case 15:
		return c.Renameat(b, fid, name, fid, name)
	case 16:
		return c.Unlinkat(b, fid, name, 0)
	case 17:
		return c.Statfs(b, fid)
	case 18:
		return c.Fsync(b, fid, x&1 != 0)
	case 19:
		return c.Flush(b, uint16(x)%MaxOps)
	}
	return c.Getattr(b, fid, GetattrAll)
}

// fuzzReply makes a reply to the request req: mode picks a well-formed success, an Rlerror, a
// mangled copy of a good one, or noise.
func fuzzReply(req []byte, mode, v byte) []byte {
	t, tag := Type(req[4]), binary.LittleEndian.Uint16(req[5:])
	good := goodReply(t, tag, req, v)
	switch mode % 6 {
	case 0, 1:
		return good
	case 2:
		return msg(Rlerror, tag, byte(v%40), 0, 0, 0)
	case 3:
		if len(good) > 0 {
			good[int(v)%len(good)] ^= 1 << (v % 8)
		}
		return good
	case 4:
		return good[:int(v)%(len(good)+1)]
	}
	return nil
}

// goodReply is a well-formed success reply to req.
func goodReply(t Type, tag uint16, req []byte, v byte) []byte {
	qid := []byte{v & QTDIR, 0, 0, 0, 0, v, 0, 0, 0, 0, 0, 0, 0}
	switch t {
	case Twalk:
		nwname := int(binary.LittleEndian.Uint16(req[15:]))
		body := binary.LittleEndian.AppendUint16(nil, uint16(nwname))
		for i := 0; i < nwname; i++ {
			body = append(body, qid...)
		}
		return msg(Rwalk, tag, body...)
	case Tlopen, Tlcreate:
		return msg(t+1, tag, append(qid, 0, 0, 0, 0)...)
	case Tattach, Tmkdir, Tsymlink:
		return msg(t+1, tag, qid...)
	case Tread:
		return msg(Rread, tag, 1, 0, 0, 0, 'x')
	case Twrite:
		return msg(Rwrite, tag, req[19:23]...)
	case Treaddir:
		return msg(Rreaddir, tag, 0, 0, 0, 0)
	case Treadlink:
		return msg(Rreadlink, tag, 1, 0, 'x')
	case Tgetattr:
		return msg(Rgetattr, tag, rgetattr[7:]...)
	case Tstatfs:
		return msg(Rstatfs, tag, rstatfs[7:]...)
	}
	return msg(t+1, tag)
}

// checkFids checks the fid table's count against its entries.
func checkFids(t *testing.T, c *Client) {
	t.Helper()
	used := 0
	for i := range c.fids.e {
		if c.fids.e[i].state != fidFree {
			used++
		}
	}
	if used != c.fids.used {
		t.Fatalf("fid table counts %d, holds %d", c.fids.used, used)
	}
	for i := range c.ops {
		if c.ops[i].kind != opFree {
			t.Fatalf("operation %d (kind %d) still in flight", i, c.ops[i].kind)
		}
	}
	for i := range c.fids.e {
		if s := c.fids.e[i].state; s == fidPending || s == fidClosing {
			t.Fatalf("fid %d left in state %d with nothing in flight", i, s)
		}
	}
}

// negotiate runs Version against a well-formed reply.
func negotiate(t *testing.T, c *Client, b []byte, msize uint32) {
	t.Helper()
	tag, _, errno := c.Version(b, msize)
	if errno != 0 {
		t.Fatalf("Version: %d", errno)
	}
	reply := msg(Rversion, NoTag, append(binary.LittleEndian.AppendUint32(nil, msize), 8, 0, '9', 'P', '2', '0', '0', '0', '.', 'L')...)
	if res := c.Reply(tag, reply, b); !res.Done || res.Errno != 0 || res.Msize != msize {
		t.Fatalf("Rversion: %+v", res)
	}
}

// attachRoot runs Attach against a well-formed reply.
func attachRoot(t *testing.T, c *Client, b []byte) uint32 {
	t.Helper()
	tag, _, errno := c.Attach(b, nil, nil, NoUname)
	if errno != 0 {
		t.Fatalf("Attach: %d", errno)
	}
	res := c.Reply(tag, msg(Rattach, tag, QTDIR, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0), b)
	if !res.Done || res.Errno != 0 {
		t.Fatalf("Rattach: %+v", res)
	}
	return res.Fid
}
