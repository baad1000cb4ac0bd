package p9fs

import (
	"github.com/unitrace/unitrace/kernel/abi"
	"github.com/unitrace/unitrace/kernel/fs"
	"github.com/unitrace/unitrace/kernel/fs/p9"
)

// callLog is one waiter's calls in the system call it is running: what each asked (key) and,
// once the reply is in, what it got. cursor is the next call's place on this run.
type callLog struct {
	cursor, n uint8
	e         [MaxLog]entry
}

// entry is one logged call.
type entry struct {
	key   uint64
	done  bool   // the outcome is in
	held  bool   // tag is held: its reply buffer keeps the call's data (Read, Readdir, Readlink)
	tag   uint16 // the tag of the operation (in flight, or held)
	errno int32
	ino   uint32 // the node the call found or made
	count uint32 // bytes read or written, or of held data
	off   uint32 // where the held data starts in the reply buffer
}

// Begin starts a run of waiter w's system call: its calls replay the log from the first.
func (f *FS) Begin(w int32) {
	if w >= 0 && w < MaxWaiters {
		f.logs[w].cursor = 0
	}
}

// End ends waiter w's system call: its log is dropped and the tags it held are free again.
func (f *FS) End(w int32) {
	if w >= 0 && w < MaxWaiters {
		f.truncate(w, 0)
		f.logs[w].cursor = 0
		clearBit(&f.noTag, w)
	}
}

// truncate drops w's log from entry i on: held tags are released, and operations still in
// flight no longer answer anyone (their effects on nodes still happen).
func (f *FS) truncate(w int32, i uint8) {
	l := &f.logs[w]
	for j := i; j < l.n; j++ {
		e := &l.e[j]
		switch {
		case e.held:
			f.c.Unhold(e.tag)
			f.tagFreed()
		case !e.done:
			if t := &f.tags[e.tag%uint16(len(f.tags))]; t.waiter == int16(w) && t.entry == j {
				t.waiter = -1
			}
		}
		*e = entry{}
	}
	l.n = i
}

// call finds the call with key at w's cursor. A logged call whose outcome is in is replayed
// (replay true). A call still in flight answers EQUEUED (a spurious rerun). Anything else gets
// a fresh entry, for the caller to start its request in (or to record an outcome that needed
// no request); a call that differs from the one logged at its place drops the rest of the log
// first.
func (f *FS) call(w int32, key uint64) (e *entry, replay bool, errno int) {
	if w < 0 || w >= MaxWaiters {
		return nil, false, abi.EIO
	}
	l := &f.logs[w]
	i := l.cursor
	if i < l.n {
		e := &l.e[i%MaxLog]
		if e.key == key {
			if !e.done {
				return nil, false, fs.EQUEUED
			}
			l.cursor++
			return e, true, 0
		}
		f.Stats.Diverged++
		f.truncate(w, i)
	}
	if l.n >= MaxLog {
		f.Stats.LogFull++
		return nil, false, abi.EIO
	}
	e = &l.e[l.n%MaxLog]
	*e = entry{key: key}
	l.n++
	l.cursor++
	return e, false, 0
}

// callAgain is call for the calls a system call may repeat with nothing changed in between
// (lookups and readlinks; a path through a loop of symbolic links makes the same ones up to
// fs.MaxSymlinks times): the answer of the same call earlier in this run is taken again, with
// no place of its own in the log. So a resolution needs one entry per distinct name, and every
// run finds the same.
func (f *FS) callAgain(w int32, key uint64) (e *entry, replay bool, errno int) {
	if w >= 0 && w < MaxWaiters {
		l := &f.logs[w]
		if l.cursor >= l.n || l.e[l.cursor%MaxLog].key != key {
			for i := uint8(0); i < l.cursor && i < l.n; i++ {
				if e := &l.e[i%MaxLog]; e.key == key && e.done {
					return e, true, 0
				}
			}
		}
	}
	return f.call(w, key)
}

// asked is ask's answer: a replayed call's entry (replay), or a new call's entry and the tag
// and request buffer to start its request with.
type asked struct {
	e      *entry
	replay bool
	tag    uint16
	b      []byte
}

// errno is what a call that ended at ask returns: errno, or a replayed call's own.
func (a asked) errno(errno int) int {
	if errno == 0 && a.replay {
		return int(a.e.errno)
	}
	return errno
}

// ask is how every call begins: call (callAgain when again) finds the call in w's log or makes
// its entry, and a new one gets a tag. An errno means the call goes no further: EIO, or EQUEUED
// while it waits for its answer or for a free tag.
func (f *FS) ask(w int32, k uint64, again bool) (asked, int) {
	var a asked
	var errno int
	if again {
		a.e, a.replay, errno = f.callAgain(w, k)
	} else {
		a.e, a.replay, errno = f.call(w, k)
	}
	if errno != 0 || a.replay {
		return a, errno
	}
	tag, b, ok := f.nextTag()
	if !ok {
		return asked{}, f.unstart(w)
	}
	a.tag, a.b = tag, b
	return a, 0
}

// peek reports whether the call at w's cursor is the one with key, and consumes it if so and
// its outcome is in. It serves calls that are made only when something is missing (an open
// fid): on the rerun the thing is there, but the log still has the call at its place.
func (f *FS) peek(w int32, key uint64) (e *entry, found bool) {
	if w < 0 || w >= MaxWaiters {
		return nil, false
	}
	l := &f.logs[w]
	if l.cursor >= l.n || l.e[l.cursor%MaxLog].key != key || !l.e[l.cursor%MaxLog].done {
		return nil, false
	}
	e = &l.e[l.cursor%MaxLog]
	l.cursor++
	return e, true
}

// unstart takes back the entry call just made when its request could not be started for lack
// of a tag: the waiter is woken when one is free, and asks again. When no tag is in flight every
// one is held by system calls that have not ended, and if this waiter holds them all (a path
// through many symbolic links holds each readlink's reply) none will come free: the call fails
// with EIO rather than waiting for ever.
func (f *FS) unstart(w int32) int {
	l := &f.logs[w]
	l.n--
	l.cursor--
	l.e[l.n%MaxLog] = entry{}
	inFlight, mine := false, 0
	for t := uint16(0); t < p9.MaxOps; t++ {
		inFlight = inFlight || f.c.InFlight(t)
	}
	for i := uint8(0); i < l.n; i++ {
		if l.e[i%MaxLog].held {
			mine++
		}
	}
	if !inFlight && mine == p9.MaxOps {
		f.Stats.TagsHeld++
		return abi.EIO
	}
	setBit(&f.noTag, w)
	return fs.EQUEUED
}

// finishEntry records the outcome of the operation on tag t for the waiter it answers, and
// wakes it.
func (f *FS) finishEntry(t *tagState, errno int, ino, count uint32) *entry {
	if t.waiter < 0 || int(t.waiter) >= MaxWaiters {
		return nil
	}
	l := &f.logs[t.waiter]
	if t.entry >= l.n {
		return nil
	}
	e := &l.e[t.entry%MaxLog]
	if e.done {
		return nil
	}
	e.done, e.errno, e.ino, e.count = true, int32(errno), ino, count
	setBit(&f.wake, int32(t.waiter))
	return e
}

// key hashes a call's kind and arguments (FNV-1a, 64 bits).
type key uint64

const (
	fnvOffset key = 14695981039346656037
	fnvPrime  key = 1099511628211
)

func newKey(kind callKind) key { return (fnvOffset ^ key(kind)) * fnvPrime }

func (k key) u64(v uint64) key {
	for i := 0; i < 8; i++ {
		k = (k ^ key(byte(v>>(8*i)))) * fnvPrime
	}
	return k
}

func (k key) bytes(b []byte) key {
	k = k.u64(uint64(len(b)))
	for _, c := range b {
		k = (k ^ key(c)) * fnvPrime
	}
	return k
}

type callKind uint8

const (
	kLookup callKind = iota + 1
	kOpen
	kRead
	kWrite
	kReaddir
	kReadlink
	kStat
	kCreate
	kMkdir
	kSymlink
	kLink
	kUnlink
	kRename
	kSetattr
	kStatfs
	kFsync
)
