package fd

import "github.com/unitrace/unitrace/kernel/abi"

// Socket pairs: socketpair(AF_UNIX, SOCK_STREAM) makes two connected stream sockets, served in
// the guest. A pair is two pipes, one each way: end 0 reads pipe a and writes pipe b, end 1
// reads b and writes a. Each descriptor of an end (KindPair; file.desc the pair, file.writeEnd
// says end 1) counts as a reader of the pipe it reads and a writer of the pipe it writes, so
// the pipes' own rules give the pair's: a read of an empty direction is EAGAIN while the other
// end is open and end of file once it is gone, a write with the other end gone is EPIPE, and
// each change is an event for the other end's descriptors (the pipe's notifications reach pair
// descriptors too, pipe.go). shutdown closes a direction without closing a descriptor.
//
// The pipes come from the table's pipes, so pipes and pairs together are at most MaxPipes
// pipes (ENFILE past them).

// MaxPairs bounds the pairs: each takes two of the table's pipes.
const MaxPairs = MaxPipes / 2

type pair struct {
	a, b     int16 // pipes: end 0 reads a and writes b
	inUse    bool
	dgram    bool    // SOCK_DGRAM: every send is a message of its own (pairmsg.go)
	passcred [2]bool // SO_PASSCRED of each end
	nl       netlinkState
}

// Socketpair implements socketpair(AF_UNIX, SOCK_STREAM | flags, 0): two descriptors, the
// lowest free ones, on the two ends. flags may hold O_CLOEXEC and O_NONBLOCK (SOCK_CLOEXEC and
// SOCK_NONBLOCK have their values), else EINVAL; fewer than two free descriptors is EMFILE, no
// two free pipes ENFILE.
func (t *Table) Socketpair(flags int) (fd0, fd1 int, errno int) {
	return t.SocketpairOf(flags, false)
}

// SocketpairOf is Socketpair, of SOCK_DGRAM sockets if dgram.
func (t *Table) SocketpairOf(flags int, dgram bool) (fd0, fd1 int, errno int) {
	if flags&^(O_CLOEXEC|O_NONBLOCK) != 0 {
		return -1, -1, abi.EINVAL
	}
	free := 0
	for fd := range t.files {
		if t.files[fd].kind == KindNone {
			free++
		}
	}
	pr := -1
	for i := range t.pairs {
		if !t.pairs[i].inUse {
			pr = i
			break
		}
	}
	var pipes [2]int
	k := 0
	for i := range t.pipes {
		if k < 2 && !t.pipes[i].inUse() {
			pipes[k] = i
			k++
		}
	}
	switch {
	case free < 2:
		return -1, -1, abi.EMFILE
	case pr < 0 || k < 2:
		return -1, -1, abi.ENFILE
	}
	cloexec, nonblock := flags&O_CLOEXEC != 0, flags&O_NONBLOCK != 0
	fd0 = t.open(KindPair, cloexec, nonblock)
	fd1 = t.open(KindPair, cloexec, nonblock)
	t.files[fd0].desc, t.files[fd1].desc = int16(pr), int16(pr)
	t.files[fd1].writeEnd = true
	t.pairs[pr] = pair{a: int16(pipes[0]), b: int16(pipes[1]), inUse: true, dgram: dgram}
	for _, p := range pipes {
		t.pipes[p] = pipe{readers: 1, writers: 1}
	}
	return fd0, fd1, 0
}

// pairPipes are the pipes pair descriptor f reads and writes.
func (t *Table) pairPipes(f *file) (r, w int) {
	pr := &t.pairs[int(f.desc)%MaxPairs]
	if f.writeEnd {
		return int(pr.b), int(pr.a)
	}
	return int(pr.a), int(pr.b)
}

// PipeFor reports the pipe a read (write false) or write of descriptor fd moves bytes through:
// a pipe end's own pipe, if fd is the end for it, or the pipe of a pair end's direction.
func (t *Table) PipeFor(fd int, write bool) (p int, ok bool) {
	switch t.Kind(fd) {
	case KindPipe:
		if t.files[fd].writeEnd != write && !t.files[fd].rdwr {
			return -1, false
		}
		return int(t.files[fd].desc) % MaxPipes, true
	case KindPair:
		r, w := t.pairPipes(&t.files[fd])
		if write {
			return w, true
		}
		return r, true
	}
	return -1, false
}

// usesPipe reports whether descriptor f reads pipe p (toWriters false) or writes it.
func (t *Table) usesPipe(f *file, p int, toWriters bool) bool {
	switch f.kind {
	case KindPipe:
		return int(f.desc) == p && (f.writeEnd == toWriters || f.rdwr)
	case KindPair:
		r, w := t.pairPipes(f)
		return (!toWriters && r == p) || (toWriters && w == p)
	}
	return false
}

// closePairEnd drops descriptor fd's counts on its pair's two pipes, as closing a read end of
// one and a write end of the other; with both pipes gone the pair is free.
func (t *Table) closePairEnd(fd int) {
	f := &t.files[fd]
	r, w := t.pairPipes(f)
	t.dropPipeCount(r, false)
	t.dropPipeCount(w, true)
	if !t.pipes[r].inUse() && !t.pipes[w].inUse() {
		t.pairs[int(f.desc)%MaxPairs] = pair{}
	}
}

// PairShutdown implements shutdown(fd, how) for a pair end: SHUT_RD (0) closes the direction
// fd reads, SHUT_WR (1) the one it writes (the other end reads end of file once it has read
// what was written), SHUT_RDWR (2) both. Its descriptors stay open. EINVAL for another how,
// ENOTSOCK for a descriptor that is not a pair end.
func (t *Table) PairShutdown(fd, how int) int {
	if t.Kind(fd) != KindPair {
		return abi.ENOTSOCK
	}
	if how < 0 || how > 2 {
		return abi.EINVAL
	}
	r, w := t.pairPipes(&t.files[fd])
	if how != 1 {
		t.shutPipe(r)
	}
	if how != 0 {
		t.shutPipe(w)
	}
	return 0
}

// shutPipe ends pipe p's traffic for good: reads find end of file once it is empty, writes
// EPIPE, and both sides are told.
func (t *Table) shutPipe(p int) {
	pp := &t.pipes[p]
	if pp.shut {
		return
	}
	pp.shut = true
	t.notifyPipe(p, false, EPOLLIN|EPOLLRDHUP)
	t.notifyPipe(p, true, EPOLLOUT|EPOLLERR)
}

// pairPoll is a pair end's readiness: readable with bytes in the direction it reads, and
// EPOLLRDHUP once nothing more can come that way; writable with room in the other, or once
// that direction is closed (a write fails at once); EPOLLHUP once both directions are closed,
// as Linux's unix_poll.
func (t *Table) pairPoll(f *file) uint32 {
	r, w := t.pairPipes(f)
	rp, wp := &t.pipes[r], &t.pipes[w]
	var ev uint32
	rdDone := rp.writers == 0 || rp.shut
	wrDone := wp.readers == 0 || wp.shut
	if rp.n > 0 || rp.nmsgs > 0 || rdDone {
		ev |= EPOLLIN | EPOLLRDNORM
	}
	if rdDone {
		ev |= EPOLLRDHUP
	}
	if rdDone && wrDone {
		ev |= EPOLLHUP
	}
	if wrDone || PipeSize-wp.n >= PipeBuf {
		// unix_writable: room to write, or a write that fails at once (EPIPE) once the peer
		// is gone or the direction shut; Linux sets WRBAND with it for AF_UNIX.
		ev |= EPOLLOUT | EPOLLWRNORM | EPOLLWRBAND
	}
	return ev
}
