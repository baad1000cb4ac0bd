package fd

import "github.com/unitrace/unitrace/kernel/abi"

// Pipes. pipe2 makes a pipe: a bounded byte buffer with a read end and a write end, each a
// descriptor of KindPipe (file.desc is the pipe, file.writeEnd says which end). dup gives an end
// another descriptor (with its own O_NONBLOCK, as the console's; Linux shares the flag through
// the open file description); the pipe counts the descriptors of each end and goes when both
// counts reach zero.
//
// As everywhere in this package nothing blocks: a read of an empty pipe with writers, or a
// write that does not fit, is EAGAIN, and the caller sleeps on the pipe's descriptors
// (PipeDescriptors) unless Nonblocking. Whatever changes a pipe (a read, a write, the last
// close of an end) is an event for the epoll instances watching its other end, and the caller
// wakes the threads waiting on both ends.

// PipeSize is a pipe's capacity: Linux's default, 16 pages (pipe_fs_i.h PIPE_DEF_BUFFERS).
const PipeSize = 64 << 10

// PipeBuf is POSIX's PIPE_BUF on Linux (limits.h): a write of at most this many bytes is
// atomic, all or nothing.
const PipeBuf = 4096

// MaxPipes is how many pipes may exist at once; pipe2 beyond it is ENFILE, Linux's answer past
// its own limits. Each holds its buffer in the table (MaxPipes*PipeSize bytes in all).
const MaxPipes = 16

type pipe struct {
	buf     [PipeSize]byte
	head    uint32 // index in buf of the oldest byte
	n       uint32 // bytes buffered
	readers int16  // descriptors of the read end
	writers int16  // descriptors of the write end
	shut    bool   // a socket pair's direction closed by shutdown (pair.go)
	// heldIn and heldOut: a splice with a socket has the pipe's room (it receives into it) or
	// its bytes (it sends them) while its request is with the host (PipeHold): other writers,
	// or readers, wait, as Linux's splice holds the pipe's lock; and the pipe is not made
	// anew while held, its buffer being where the host's reply goes.
	heldIn, heldOut bool

	fifo   uint64 // a named FIFO's inode key plus one (fifo.go); 0 for pipe2's pipes
	rOpens uint32 // opens of a FIFO's read end so far: a blocked writer waits for it to change
	wOpens uint32 // opens of its write end so far

	// A socket pair's direction: bytes ever written and read, and the messages that carry
	// control data or, on a datagram pair, delimit each datagram (pairmsg.go).
	wtotal, rtotal uint64
	msgs           [MaxPairMsgs]PairMsg
	msgHead, nmsgs uint8
}

func (p *pipe) inUse() bool { return p.readers > 0 || p.writers > 0 || p.heldIn || p.heldOut }

// Pipe2 implements pipe2(flags) (and pipe, with flags 0): a new pipe whose read end is the
// lowest free descriptor and whose write end the next. flags may hold O_CLOEXEC and O_NONBLOCK,
// for both ends; O_DIRECT (packet mode) and anything else are EINVAL. Fewer than two free
// descriptors is EMFILE; MaxPipes pipes in use ENFILE.
func (t *Table) Pipe2(flags int) (rfd, wfd int, errno int) {
	if flags&^(O_CLOEXEC|O_NONBLOCK) != 0 {
		return -1, -1, abi.EINVAL
	}
	p := -1
	for i := range t.pipes {
		if !t.pipes[i].inUse() {
			p = i
			break
		}
	}
	free := 0
	for fd := range t.files {
		if t.files[fd].kind == KindNone {
			free++
		}
	}
	switch {
	case free < 2:
		return -1, -1, abi.EMFILE
	case p < 0:
		return -1, -1, abi.ENFILE
	}
	cloexec, nonblock := flags&O_CLOEXEC != 0, flags&O_NONBLOCK != 0
	rfd = t.open(KindPipe, cloexec, nonblock)
	wfd = t.open(KindPipe, cloexec, nonblock)
	t.files[rfd].desc = int16(p)
	t.files[wfd].desc = int16(p)
	t.files[wfd].writeEnd = true
	pp := &t.pipes[p]
	pp.head, pp.n, pp.readers, pp.writers = 0, 0, 1, 1
	return rfd, wfd, 0
}

// Pipe reports the pipe behind fd and whether fd is its write end; ok is false if fd is not a
// pipe end.
func (t *Table) Pipe(fd int) (p int, writeEnd, ok bool) {
	if t.Kind(fd) != KindPipe {
		return -1, false, false
	}
	return int(t.files[fd].desc) % MaxPipes, t.files[fd].writeEnd, true
}

// PipeDescriptors writes to out the descriptors of both ends of pipe p and returns how many:
// the threads blocked on them are the ones a change of p may concern. With len(out) >= MaxFDs
// none is left out.
func (t *Table) PipeDescriptors(p int, out []int32) int {
	n := 0
	for fd := range t.files {
		f := &t.files[fd]
		if n < len(out) && (t.usesPipe(f, p, false) || t.usesPipe(f, p, true)) {
			out[n] = int32(fd)
			n++
		}
	}
	return n
}

// pipeOf returns fd's pipe and its number if fd is the end named (writeEnd), or EBADF for the
// other end (a read end is not open for writing, nor a write end for reading), EINVAL for
// another kind. A socket pair's end has a pipe each way (pair.go).
func (t *Table) pipeOf(fd int, writeEnd bool) (*pipe, int, int) {
	switch {
	case !t.isOpen(fd):
		return nil, -1, abi.EBADF
	case t.files[fd].kind == KindPair:
		p, _ := t.PipeFor(fd, writeEnd)
		return &t.pipes[p], p, 0
	case t.files[fd].kind != KindPipe:
		return nil, -1, abi.EINVAL
	case t.files[fd].writeEnd != writeEnd && !t.files[fd].rdwr:
		return nil, -1, abi.EBADF
	}
	p := int(t.files[fd].desc) % MaxPipes
	return &t.pipes[p], p, 0
}

// PipeRead implements read(2) of a pipe's read end into dst: it takes up to len(dst) bytes, in
// order. An empty pipe reads 0 (end of file) once no write end is open, and is EAGAIN while one
// is. A read that took bytes is an event (EPOLLOUT) for the write end.
func (t *Table) PipeRead(fd int, dst []byte) (n int, errno int) {
	p, pn, errno := t.pipeOf(fd, false)
	if errno != 0 {
		return 0, errno
	}
	if len(dst) == 0 {
		return 0, 0
	}
	if p.heldOut {
		return 0, abi.EAGAIN // a splice sends the first bytes
	}
	if p.n == 0 {
		if p.writers == 0 || p.shut {
			return 0, 0
		}
		return 0, abi.EAGAIN
	}
	n = min(len(dst), int(p.n))
	first := min(n, PipeSize-int(p.head))
	copy(dst[:first], p.buf[p.head:])
	copy(dst[first:n], p.buf[:n-first])
	p.head = (p.head + uint32(n)) % PipeSize
	p.n -= uint32(n)
	p.rtotal += uint64(n)
	if p.n == 0 {
		p.head = 0
	}
	t.notifyPipe(pn, true, EPOLLOUT)
	return n, 0
}

// PipeWrite implements write(2) of src to a pipe's write end. Writing nothing is 0. With no
// read end open it is
// EPIPE (the caller sends SIGPIPE, as Linux does). A write of at most PipeBuf bytes is atomic:
// all of it, or EAGAIN while it does not fit; a longer one takes what room there is, EAGAIN
// only when there is none. A write that stored bytes is an event (EPOLLIN) for the read end.
func (t *Table) PipeWrite(fd int, src []byte) (n int, errno int) {
	p, pn, errno := t.pipeOf(fd, true)
	if errno != 0 {
		return 0, errno
	}
	if len(src) == 0 {
		return 0, 0 // before the readers, as Linux's pipe_write
	}
	if p.readers == 0 || p.shut {
		return 0, abi.EPIPE
	}
	room := PipeSize - int(p.n)
	if room == 0 || (len(src) <= PipeBuf && room < len(src)) || p.heldIn {
		return 0, abi.EAGAIN
	}
	n = min(len(src), room)
	tail := (int(p.head) + int(p.n)) % PipeSize
	first := min(n, PipeSize-tail)
	copy(p.buf[tail:tail+first], src[:first])
	copy(p.buf[:n-first], src[first:n])
	p.n += uint32(n)
	p.wtotal += uint64(n)
	t.notifyPipe(pn, false, EPOLLIN)
	return n, 0
}

// PipeData returns the first contiguous run of the bytes pipe read end fd holds, for splice to
// read in place; PipeConsume then drops what it took. An empty run with no writer left (or a
// socket pair's direction shut) is end of file; empty while a writer is open, EAGAIN. The write
// end, or another kind, is PipeRead's error.
func (t *Table) PipeData(fd int) (b []byte, errno int) { return t.PipeDataAt(fd, 0) }

// PipeDataAt is PipeData from the byte skip bytes after the first on (tee reads on without
// taking): an empty run, with no error, once skip reaches the bytes' end.
func (t *Table) PipeDataAt(fd int, skip int) (b []byte, errno int) {
	p, _, errno := t.pipeOf(fd, false)
	if errno != 0 {
		return nil, errno
	}
	if p.heldOut {
		return nil, abi.EAGAIN
	}
	if p.n == 0 {
		if p.writers == 0 || p.shut {
			return nil, 0
		}
		return nil, abi.EAGAIN
	}
	if skip < 0 || skip >= int(p.n) {
		return nil, 0
	}
	start := (int(p.head) + skip) % PipeSize
	return p.buf[start : start+min(int(p.n)-skip, PipeSize-start)], 0
}

// PipeConsume drops the first n bytes of pipe read end fd (at most what it holds), as a read
// of them would: an event (EPOLLOUT) for the write end.
func (t *Table) PipeConsume(fd int, n int) {
	p, pn, errno := t.pipeOf(fd, false)
	if errno != 0 || n <= 0 {
		return
	}
	n = min(n, int(p.n))
	p.head = (p.head + uint32(n)) % PipeSize
	p.n -= uint32(n)
	if p.n == 0 {
		p.head = 0
	}
	t.notifyPipe(pn, true, EPOLLOUT)
}

// PipeRoom returns the first contiguous run of free room after the bytes of pipe write end fd,
// for splice to fill in place; PipeCommit then adds what it put there. No reader left is EPIPE
// (the caller sends SIGPIPE); no room, EAGAIN. The read end, or another kind, is PipeWrite's
// error.
func (t *Table) PipeRoom(fd int) (b []byte, errno int) {
	p, _, errno := t.pipeOf(fd, true)
	switch {
	case errno != 0:
		return nil, errno
	case p.readers == 0 || p.shut:
		return nil, abi.EPIPE
	case p.n == PipeSize, p.heldIn:
		return nil, abi.EAGAIN
	}
	tail := (int(p.head) + int(p.n)) % PipeSize
	end := PipeSize
	if tail < int(p.head) {
		end = int(p.head)
	}
	return p.buf[tail:end], 0
}

// PipeCommit adds the n bytes put in the room PipeRoom gave (at most that room) to pipe write
// end fd, as a write of them would: an event (EPOLLIN) for the read end.
func (t *Table) PipeCommit(fd int, n int) {
	p, pn, errno := t.pipeOf(fd, true)
	if errno != 0 || n <= 0 {
		return
	}
	p.n += uint32(min(n, PipeSize-int(p.n)))
	t.notifyPipe(pn, false, EPOLLIN)
}

// PipeHold holds pipe end fd's pipe for a splice whose request is with the host: its room
// (in, at a write end) or its bytes (!in, at a read end), which PipeRoom or PipeData gave; until
// PipeRelease other writers, or readers, find EAGAIN and the pipe stays. It returns the pipe, or
// -1 if fd is not that end of a pipe.
func (t *Table) PipeHold(fd int, in bool) int {
	p, pn, errno := t.pipeOf(fd, in)
	if errno != 0 || t.files[fd].kind != KindPipe {
		return -1
	}
	if in {
		p.heldIn = true
	} else {
		p.heldOut = true
	}
	return pn
}

// PipeRelease ends PipeHold's hold of pipe pn, first adding (in) or dropping n bytes of the
// room or bytes it held, as PipeCommit and PipeConsume do, while the pipe still has a
// descriptor: the ends of a pipe whose descriptors all closed meanwhile do not see them, and
// it is free again. The release is an event for both ends.
func (t *Table) PipeRelease(pn int, in bool, n int) {
	if pn < 0 || pn >= MaxPipes {
		return
	}
	p := &t.pipes[pn]
	if in {
		p.heldIn = false
		if n > 0 && p.readers > 0 {
			p.n += uint32(min(n, PipeSize-int(p.n)))
		}
	} else {
		p.heldOut = false
		if n > 0 && p.readers > 0 {
			n = min(n, int(p.n))
			p.head = (p.head + uint32(n)) % PipeSize
			p.n -= uint32(n)
			if p.n == 0 {
				p.head = 0
			}
		}
	}
	if !p.inUse() {
		p.head, p.n, p.shut = 0, 0, false
		return
	}
	t.notifyPipe(pn, false, EPOLLIN)
	t.notifyPipe(pn, true, EPOLLOUT)
}

// PipeBuffered reports how many bytes pipe end fd's pipe holds (FIONREAD's answer); ok is
// false if fd is not a pipe end.
func (t *Table) PipeBuffered(fd int) (n int, ok bool) {
	p, _, ok := t.Pipe(fd)
	if !ok {
		return 0, false
	}
	return int(t.pipes[p].n), true
}

// notifyPipe is an event of kind key for the descriptors that read pipe p (toWriters false)
// or write it: its ends', or socket pair ends'.
func (t *Table) notifyPipe(p int, toWriters bool, key uint32) {
	for fd := range t.files {
		f := &t.files[fd]
		if f.watchers.n > 0 && t.usesPipe(f, p, toWriters) {
			t.notify(fd, key)
		}
	}
}

// closePipeEnd drops descriptor fd's count on its pipe; the last descriptor of an end is an
// event for the other end (end of file or a broken pipe), and with both ends gone the pipe is
// free.
func (t *Table) closePipeEnd(fd int) {
	f := &t.files[fd]
	if f.rdwr {
		t.dropPipeCount(int(f.desc)%MaxPipes, !f.writeEnd)
	}
	t.dropPipeCount(int(f.desc)%MaxPipes, f.writeEnd)
}

// dropPipeCount drops one writer (writer) or reader of pipe pn.
func (t *Table) dropPipeCount(pn int, writer bool) {
	p := &t.pipes[pn]
	if writer {
		if p.writers--; p.writers == 0 {
			t.notifyPipe(pn, false, EPOLLIN|EPOLLHUP|EPOLLRDHUP)
		}
	} else {
		if p.readers--; p.readers == 0 {
			t.notifyPipe(pn, true, EPOLLOUT|EPOLLERR)
		}
	}
	if !p.inUse() {
		t.orphanMsgs(p)
		p.head, p.n, p.shut, p.fifo = 0, 0, false, 0
		p.wtotal, p.rtotal = 0, 0
	}
}

// pipePoll is a pipe end's readiness, as Linux's pipe_poll computes it: the read end is
// readable with bytes buffered and hung up once no writer is left; the write end is writable
// with room for an atomic write (PipeBuf) and in error once no reader is left.
func (t *Table) pipePoll(f *file) uint32 {
	p := &t.pipes[int(f.desc)%MaxPipes]
	var ev uint32
	if !f.writeEnd || f.rdwr {
		if p.n > 0 {
			ev |= EPOLLIN | EPOLLRDNORM
		}
		if p.writers == 0 {
			ev |= EPOLLHUP
		}
		if !f.rdwr {
			return ev
		}
	}
	if PipeSize-p.n >= PipeBuf {
		ev |= EPOLLOUT | EPOLLWRNORM
	}
	if p.readers == 0 {
		ev |= EPOLLERR
	}
	return ev
}

// pipeFcntl is Fcntl for a pipe end's F_GETFL (the end's access mode, O_RDONLY or O_WRONLY,
// and O_NONBLOCK), F_GETPIPE_SZ (PipeSize) and F_SETPIPE_SZ: the capacity is fixed, so a
// request up to PipeSize is granted as PipeSize (Linux too may give more than asked) and a
// larger one is EPERM, Linux's answer past the pipe-max-size an unprivileged process may set.
func (t *Table) pipeFcntl(fd, cmd int, arg uintptr) (ret int, errno int) {
	f := &t.files[fd]
	switch cmd {
	case F_GETFL:
		if f.writeEnd {
			ret = O_WRONLY
		}
		if f.rdwr {
			ret = O_RDWR
		}
		if f.nonblock {
			ret |= O_NONBLOCK
		}
		return ret, 0
	case F_GETPIPE_SZ:
		return PipeSize, 0
	}
	// F_SETPIPE_SZ
	if int(int32(arg)) < 0 {
		return 0, abi.EINVAL
	}
	if uint32(arg) > PipeSize {
		return 0, abi.EPERM
	}
	return PipeSize, 0
}

// ReopenPipe opens the lowest free descriptor on an end of pipe end fd's pipe: its write end if
// write, else its read end, whichever end fd is, with FD_CLOEXEC and O_NONBLOCK from flags. It
// is open(2) of /proc/self/fd/N for a pipe, which Linux serves as an open of the pipe's inode
// (a FIFO): the access mode chooses the end. fd not a pipe end is EBADF; no free descriptor
// EMFILE.
func (t *Table) ReopenPipe(fd int, write bool, flags int) (nfd int, errno int) {
	p, _, ok := t.Pipe(fd)
	if !ok {
		return -1, abi.EBADF
	}
	nfd = t.open(KindPipe, flags&O_CLOEXEC != 0, flags&O_NONBLOCK != 0)
	if nfd < 0 {
		return -1, abi.EMFILE
	}
	t.files[nfd].desc = int16(p)
	t.files[nfd].writeEnd = write
	if write {
		t.pipes[p].writers++
	} else {
		t.pipes[p].readers++
	}
	return nfd, 0
}
