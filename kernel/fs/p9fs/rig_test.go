package p9fs

import (
	"encoding/binary"
	"net"
	"testing"
	"time"

	"github.com/unitrace/unitrace/kernel/fs"
	"github.com/unitrace/unitrace/kernel/fs/p9"
)

// rig is a mounted FS and the transport under it: the test's goroutine plays the kernel,
// carrying requests to the server and replies back, and reruns a system call until it is done.
type rig struct {
	t    *testing.T
	f    *FS
	conn net.Conn
	dir  string
	resp []byte
	size uint32
	sent map[uint16]bool // tags on the wire
	// versionTag is the slot of the Tversion in flight: its reply carries NoTag.
	versionTag int
	trips      []Trip
	reruns     int
}

func newRig(t *testing.T, msize uint32) *rig {
	t.Helper()
	r := &rig{t: t, f: new(FS), dir: mustMkdirTemp(t), size: msize, sent: map[uint16]bool{}, versionTag: -1}
	r.conn = serve(t, r.dir)
	var buf Buffers
	buf, _, r.resp = mmapBuffers(t, msize)
	if errno := r.f.Mount(buf); errno != 0 {
		t.Fatalf("Mount: errno %d", errno)
	}
	r.pump()
	if done, errno := r.f.Mounted(); !done || errno != 0 {
		t.Fatalf("Mounted = %v, %d", done, errno)
	}
	return r
}

// sendAll hands every ready request to the server.
func (r *rig) sendAll() {
	for {
		tag, n, ok := r.f.NextSend(time.Now().UnixNano())
		if !ok {
			return
		}
		req := r.f.req(tag)[:n]
		if p9.Type(req[4]) == p9.Tversion {
			r.versionTag = int(tag)
		}
		if r.sent[tag] {
			r.t.Fatalf("tag %d sent twice", tag)
		}
		r.sent[tag] = true
		if _, err := r.conn.Write(req); err != nil {
			r.t.Fatalf("send: %v", err)
		}
	}
}

// pump carries requests and replies until nothing is in flight.
func (r *rig) pump() {
	r.t.Helper()
	for r.sendAll(); len(r.sent) > 0; r.sendAll() {
		b := readMsg(r.t, r.conn)
		tag := binary.LittleEndian.Uint16(b[5:])
		if tag == p9.NoTag {
			tag = uint16(r.versionTag)
		}
		if !r.sent[tag] {
			r.t.Fatalf("reply for tag %d, not in flight", tag)
		}
		delete(r.sent, tag)
		copy(r.resp[int(tag)*int(r.size):], b)
		r.trips = append(r.trips, r.f.Complete(tag, uint32(len(b)), time.Now().UnixNano()))
	}
}

// do runs one system call of waiter w: call, rerun after each round of replies, until it is
// not EQUEUED. It checks the waiter is woken before each rerun.
func (r *rig) do(w int32, call func() int) int {
	r.t.Helper()
	for runs := 0; ; runs++ {
		if runs > 4*MaxLog {
			r.t.Fatalf("waiter %d: the call does not end", w)
		}
		r.f.Begin(w)
		errno := call()
		if errno != fs.EQUEUED {
			r.f.End(w)
			return errno
		}
		r.reruns++
		r.pump()
		woken := false
		for v, ok := r.f.NextWake(); ok; v, ok = r.f.NextWake() {
			woken = woken || v == w
		}
		if !woken {
			r.t.Fatalf("waiter %d not woken after its replies", w)
		}
	}
}

// path resolves a slash-separated path from the root, as vfs would, one Lookup per name.
func (r *rig) lookup(w int32, path ...string) (uint32, int) {
	r.t.Helper()
	var ino uint32
	errno := r.do(w, func() int {
		ino = RootIno
		for _, name := range path {
			next, errno := r.f.Lookup(w, ino, []byte(name))
			if errno != 0 {
				return errno
			}
			ino = next
		}
		return 0
	})
	return ino, errno
}

func (r *rig) mustLookup(path ...string) uint32 {
	r.t.Helper()
	ino, errno := r.lookup(0, path...)
	if errno != 0 {
		r.t.Fatalf("lookup %v: errno %d", path, errno)
	}
	return ino
}
