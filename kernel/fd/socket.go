package fd

import "github.com/unitrace/unitrace/kernel/abi"

// Sockets. A socket descriptor (KindSocket, file.desc the socket) names a socket whose calls
// the kernel forwards to the launcher, which makes them on a host socket (kernel/sockwire).
// The table keeps what readiness needs without asking the host: the socket's readiness as the
// host's last event said, less what a call since found missing (a read that found nothing
// clears EPOLLIN until the next event sets it). An event that sets a bit is an event for the
// epoll instances watching the socket's descriptors, as a pipe's write is for its read end's.
//
// dup gives a socket another descriptor (with its own O_NONBLOCK, as pipes and the console);
// the socket goes when its last descriptor closes (SocketLive then reports false, and the
// kernel tells the host). A socket can be reserved before it has a descriptor, for a call
// that makes one (socket, accept): its handle is named in the request, and the reply only
// says whether the host made it.

// MaxSockets is how many sockets may exist at once; more is ENFILE (the launcher allows as
// many host sockets).
const MaxSockets = 256

type socket struct {
	refs     int16  // descriptors
	gen      uint16 // bumped at every reservation: a handle names one socket's life
	reserved bool   // taken for a call in flight, not yet on a descriptor
	ready    uint32 // EPOLL* bits
	evented  bool   // an event has set ready at least once: until then it says nothing
	domain   uint16
	typ      uint16
}

func (s *socket) inUse() bool { return s.refs > 0 || s.reserved }

// handleOf is socket i's handle in the wire protocol: its generation and its index plus one,
// never 0.
func (t *Table) handleOf(i int) uint32 { return uint32(t.sockets[i].gen)<<16 | uint32(i+1) }

// SocketReserve takes a free socket of domain and type for a call that makes one; ENFILE when
// MaxSockets are in use.
func (t *Table) SocketReserve(domain, typ int) (i int, handle uint32, errno int) {
	for i := range t.sockets {
		s := &t.sockets[i]
		if !s.inUse() {
			s.gen++
			s.reserved, s.ready, s.evented, s.domain, s.typ = true, 0, false, uint16(domain), uint16(typ)
			return i, t.handleOf(i), 0
		}
	}
	return -1, 0, abi.ENFILE
}

// SocketRelease gives back a reserved socket whose call failed.
func (t *Table) SocketRelease(i int) {
	if i >= 0 && i < MaxSockets && t.sockets[i].refs == 0 {
		t.sockets[i].reserved = false
	}
}

// SocketInstall opens the lowest free descriptor on reserved socket i; EMFILE if none is
// free (the socket stays reserved: the caller releases it and tells the host).
func (t *Table) SocketInstall(i int, cloexec, nonblock bool) (fd int, errno int) {
	if i < 0 || i >= MaxSockets || !t.sockets[i].reserved {
		return -1, abi.EINVAL
	}
	fd = t.open(KindSocket, cloexec, nonblock)
	if fd < 0 {
		return -1, abi.EMFILE
	}
	t.files[fd].desc = int16(i)
	s := &t.sockets[i]
	s.reserved, s.refs = false, 1
	return fd, 0
}

// Socket reports the socket behind fd and its handle; ok is false if fd is not a socket.
func (t *Table) Socket(fd int) (i int, handle uint32, ok bool) {
	if t.Kind(fd) != KindSocket {
		return -1, 0, false
	}
	i = int(t.files[fd].desc) % MaxSockets
	return i, t.handleOf(i), true
}

// SocketHandleOf is socket i's handle.
func (t *Table) SocketHandleOf(i int) uint32 {
	if i < 0 || i >= MaxSockets {
		return 0
	}
	return t.handleOf(i)
}

// SocketType reports socket i's domain and type.
func (t *Table) SocketType(i int) (domain, typ int) {
	if i < 0 || i >= MaxSockets {
		return 0, 0
	}
	return int(t.sockets[i].domain), int(t.sockets[i].typ)
}

// SocketByHandle finds the live or reserved socket a handle names.
func (t *Table) SocketByHandle(h uint32) (i int, ok bool) {
	i = int(h&0xffff) - 1
	if i < 0 || i >= MaxSockets || !t.sockets[i].inUse() || t.handleOf(i) != h {
		return -1, false
	}
	return i, true
}

// SocketLive reports whether socket i still has a descriptor or a reservation.
func (t *Table) SocketLive(i int) bool { return i >= 0 && i < MaxSockets && t.sockets[i].inUse() }

// SocketReady is socket i's readiness.
func (t *Table) SocketReady(i int) uint32 {
	if i < 0 || i >= MaxSockets {
		return 0
	}
	return t.sockets[i].ready
}

// SocketSetReady takes an event's readiness for socket i: the bits it sets that were clear are
// an event for the epoll instances watching the socket's descriptors. It reports whether it
// set any, so that the caller wakes the threads waiting on them (SocketDescriptors).
func (t *Table) SocketSetReady(i int, ready uint32) bool {
	if !t.SocketLive(i) {
		return false
	}
	s := &t.sockets[i]
	fresh := ready &^ s.ready
	s.ready, s.evented = ready, true
	if fresh == 0 {
		return false
	}
	for fd := range t.files {
		f := &t.files[fd]
		if f.kind == KindSocket && int(f.desc) == i && f.watchers.n > 0 {
			t.notify(fd, fresh)
		}
	}
	return true
}

// SocketClearReady clears bits a call found missing (EPOLLIN after a read that found nothing,
// EPOLLOUT after a write that found no room), until the next event sets them.
func (t *Table) SocketClearReady(i int, bits uint32) {
	if i >= 0 && i < MaxSockets {
		t.sockets[i].ready &^= bits
	}
}

// SocketNothingToRead reports whether socket i is known to have nothing to read, accept or
// report: the host's events, which carry the socket's state after every reply before them,
// have said so and nothing since set EPOLLIN, EPOLLPRI, EPOLLRDHUP, EPOLLHUP or EPOLLERR. A
// non-blocking read then answers EAGAIN without asking the host: the data that arrives later
// comes as an event that sets EPOLLIN, an edge for the epoll the caller then waits in.
func (t *Table) SocketNothingToRead(i int) bool {
	if i < 0 || i >= MaxSockets {
		return false
	}
	s := &t.sockets[i]
	return s.evented && s.ready&(EPOLLIN|EPOLLPRI|EPOLLRDHUP|EPOLLHUP|EPOLLERR) == 0
}

// SocketDescriptors writes to out the descriptors of socket i and returns how many.
func (t *Table) SocketDescriptors(i int, out []int32) int {
	n := 0
	for fd := range t.files {
		if n < len(out) && t.files[fd].kind == KindSocket && int(t.files[fd].desc) == i {
			out[n] = int32(fd)
			n++
		}
	}
	return n
}
