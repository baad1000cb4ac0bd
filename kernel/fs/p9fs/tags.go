package p9fs

import (
	"github.com/unitrace/unitrace/kernel/fs"
	"github.com/unitrace/unitrace/kernel/fs/p9"
)

// tagState is the file system's side of one tag: the request waiting to go, or gone, and
// what its reply is for.
type tagState struct {
	phase  tagPhase
	n      uint32 // the request's length
	waiter int16  // whose call it answers; -1: nobody's (clunks, the mount, an abandoned call)
	entry  uint8  // the call's place in the waiter's log
	step   step   // what the reply answers
	ino    uint32 // the node the operation is about (or makes)
	dir    uint32 // Lookup, Create: the directory the name is in
	slot   uint8  // the open slot an open fills
	fid    uint32 // Create: the open fid Tlcreate made, while the walk to a handle runs
	iounit uint32 // and its iounit
	off    int64  // Write: where the bytes went
	sentAt int64  // when the transport took it
	nlen   uint8
	name   [fs.NameMax]byte // Lookup, Create: the name, for the node
}

type tagPhase uint8

const (
	tagIdle  tagPhase = iota
	tagReady          // a request is built: NextSend hands it out
	tagSent           // the transport has it
)

// step says what a reply answers, and so what happens next.
type step uint8

const (
	stepNone step = iota
	stepVersion
	stepAttach
	stepRootAttr
	stepLookupWalk // then stepLookupAttr for a file with no node yet, or a clunk
	stepLookupAttr
	stepCreate // Tlcreate, then stepCreateWalk for a handle that can be walked from
	stepCreateWalk
	stepClunk
	stepGetattr
	stepOpen
	stepData // Read, Readdir, Readlink: the data stays in the reply buffer
	stepWrite
	stepStatfs
	stepEmpty // an errno is all there is
)

// queue records that tag's request (n bytes in its request buffer) is ready to go.
func (f *FS) queue(tag uint16, n int, t tagState) {
	t.phase, t.n = tagReady, uint32(n)
	f.tags[tag%p9.MaxOps] = t
}

// start queues the request a Client operation just built for waiter w's new entry e.
func (f *FS) start(w int32, e *entry, tag uint16, n int, t tagState) int {
	t.waiter = int16(w)
	t.entry = f.logs[w].n - 1
	e.tag = tag
	f.queue(tag, n, t)
	return fs.EQUEUED
}

// NextSend returns a request to hand to the transport: its tag and length (the bytes are in
// the tag's request buffer; the reply goes into its reply buffer). It first starts the clunks
// waiting for a tag. now is the time it goes, for the round trip's latency.
func (f *FS) NextSend(now int64) (tag uint16, n uint32, ok bool) {
	for f.nclunk > 0 {
		t, free := f.c.NextTag()
		if !free {
			break
		}
		f.nclunk--
		if _, n, errno := f.c.Clunk(f.req(t), f.clunks[f.nclunk]); errno == 0 {
			f.queue(t, n, tagState{waiter: -1, step: stepClunk})
		}
	}
	for i := range f.tags {
		if t := &f.tags[i]; t.phase == tagReady {
			t.phase, t.sentAt = tagSent, now
			f.Stats.Requests++
			return uint16(i), t.n, true
		}
	}
	return 0, 0, false
}

// Trip describes one finished round trip, for the kernel's tracepoint.
type Trip struct {
	Type    p9.Type // the request's
	Latency int64   // from NextSend to Complete
	Bytes   uint32  // of the reply
	Err     p9.Err  // why a reply was rejected (it then counts as EIO)
}

// Complete hands over the reply the transport wrote into tag's reply buffer, n bytes of it.
// The operation either goes on (its next request is queued for NextSend) or ends: the call it
// answers is done, and its waiter is on the NextWake list.
func (f *FS) Complete(tag uint16, n uint32, now int64) Trip {
	if tag >= p9.MaxOps || f.tags[tag].phase != tagSent {
		f.Stats.Unexpected++
		return Trip{}
	}
	t := &f.tags[tag]
	req, resp := f.req(tag), f.resp(tag)
	trip := Trip{Type: p9.Type(req[4]), Latency: now - t.sentAt, Bytes: n}
	res := f.c.Reply(tag, resp[:min(n, uint32(len(resp)))], req)
	if res.Err != p9.OK {
		f.Stats.BadReplies++
		trip.Err = res.Err
	}
	if !res.Done {
		t.phase, t.n = tagReady, uint32(res.Next)
		return trip
	}
	done := *t
	*t = tagState{waiter: -1}
	f.finish(tag, &done, res)
	if !f.c.InFlight(tag) && f.tags[tag].phase == tagIdle {
		f.tagFreed()
	}
	return trip
}

// Fail ends every operation in flight with errno: the transport is gone.
func (f *FS) Fail(errno int) {
	for i := range f.tags {
		if t := &f.tags[i]; t.phase != tagIdle {
			done := *t
			*t = tagState{waiter: -1}
			f.finishEntry(&done, errno, 0, 0)
		}
	}
	if f.state == mounting {
		f.failMount(errno)
	}
	f.tagFreed()
}

// nextTag returns the tag the next operation will take and its request buffer. The tag
// just answered is free, so a step that follows a reply always gets one.
func (f *FS) nextTag() (uint16, []byte, bool) {
	tag, ok := f.c.NextTag()
	return tag, f.req(tag), ok
}

// chain queues the next operation of a multi-step call (started on tag by the caller, with
// the result n, errno of its start), with the same waiter and entry; its errno is the start's.
func (f *FS) chain(t *tagState, s step, tag uint16, n int, errno int) int {
	if errno != 0 {
		return errno
	}
	next := *t
	next.step = s
	if e := f.entryOf(t); e != nil {
		e.tag = tag
	}
	f.queue(tag, n, next)
	return 0
}

// entryOf returns the log entry t answers, if its waiter still waits for it.
func (f *FS) entryOf(t *tagState) *entry {
	if t.waiter < 0 || int(t.waiter) >= MaxWaiters {
		return nil
	}
	l := &f.logs[t.waiter]
	if t.entry >= l.n || l.e[t.entry%MaxLog].done {
		return nil
	}
	return &l.e[t.entry%MaxLog]
}
