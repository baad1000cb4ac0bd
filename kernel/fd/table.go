// Package fd is the file descriptor table: the console on 0, 1 and 2,
// eventfds, epoll instances, kernel devices, pipes and the files of the file
// system,
// with Linux semantics (eventfd(2), epoll_ctl(2), epoll_wait(2), fcntl(2),
// close(2), dup(2)).
//
// A file's descriptors refer to an open file description that dup shares
// (file.go). Every other descriptor is its own open file, so its descriptor
// flags (FD_CLOEXEC) and status flags (O_NONBLOCK) live side by side.
// Blocking is the caller's business: methods never block; they return EAGAIN
// and the caller decides with Nonblocking whether to sleep, and uses Watchers
// to find the epoll instances whose waiters a change may concern.
//
// The package is kernel-mode Go: a Table holds only integers and fixed
// arrays, never allocates and never panics on any input. It does no locking:
// the caller serialises all calls.
package fd

import (
	"github.com/unitrace/unitrace/kernel/abi"
	"github.com/unitrace/unitrace/kernel/fs"
)

// MaxFDs is the size of the descriptor table: 1024, Linux's default soft RLIMIT_NOFILE
// (INR_OPEN_CUR, include/linux/fs.h), so programs and tests that open many files find the
// room they would find there. Every descriptor costs about 85 bytes of Table (file, descs and
// the four generation arrays).
const MaxFDs = 1024

// MaxWatches is the number of (epoll, fd) interest entries across all epoll
// instances; EPOLL_CTL_ADD beyond it fails with ENOSPC, as Linux does past
// max_user_watches.
const MaxWatches = 1024

// Kind is what an open descriptor refers to.
type Kind uint8

const (
	KindNone Kind = iota // not open
	KindConsole
	KindEventfd
	KindEpoll
	KindDevice  // a kernel device (a virtio-serial port), read and written by the kernel
	KindFile    // a file of the file system, through an open file description (file.go)
	KindPipe    // an end of a pipe (pipe.go)
	KindSocket  // a socket, forwarded to the host (socket.go)
	KindPair    // an end of a socket pair, served here (pair.go)
	KindTimerfd // a timerfd: a timer the kernel keeps (timerfd.go)
)

func (k Kind) String() string {
	switch k {
	case KindNone:
		return "none"
	case KindConsole:
		return "console"
	case KindEventfd:
		return "eventfd"
	case KindEpoll:
		return "epoll"
	case KindDevice:
		return "device"
	case KindFile:
		return "file"
	case KindPipe:
		return "pipe"
	case KindSocket:
		return "socket"
	case KindPair:
		return "socket pair"
	case KindTimerfd:
		return "timerfd"
	}
	return "invalid"
}

// file is one open descriptor and the object behind it.
type file struct {
	count     uint64 // eventfd counter; device number for KindDevice; KindTimerfd: expirations not yet read
	desc      int16  // KindFile: the open file description, an index into Table.descs; KindPipe: the pipe; KindSocket: the socket; KindTimerfd: the timer
	kind      Kind
	cloexec   bool // FD_CLOEXEC
	nonblock  bool // O_NONBLOCK
	semaphore bool // EFD_SEMAPHORE
	writeEnd  bool // KindPipe: the write end (else the read end)
	rdwr      bool // KindPipe: a FIFO opened O_RDWR, both ends at once (fifo.go)
	watchers  list // watches (in any epoll) whose target is this descriptor
	members   list // epoll: the watches this instance owns
	ready     list // epoll: watches that may have events, in arrival order
}

// Table is a descriptor table. Call Init before use.
type Table struct {
	files   [MaxFDs]file
	descs   [MaxFDs]File // open file descriptions, for the descriptors of KindFile
	pipes   [MaxPipes]pipe
	sockets [MaxSockets]socket
	pairs   [MaxPairs]pair
	watches [MaxWatches]watch
	free    ref // free watches, linked through their inEpoll links
	handed  int // watches[0:handed] have been handed out at least once

	// Generation marks let the graph walks (loop checks, wakeup
	// propagation, readiness of nested epolls) visit each descriptor once
	// per walk without clearing anything.
	gen       uint32
	markGen   [MaxFDs]uint32
	markDepth [MaxFDs]int8
	pollGen   [MaxFDs]uint32
	pollVal   [MaxFDs]uint32

	consoleIn bool // the console has bytes to read (SetConsoleInput)

	orphans  [MaxPipes * MaxPairMsgs * MaxRights]int32 // in-flight descriptors no one will receive (pairmsg.go)
	norphans int
}

// Init empties the table and opens descriptors 0, 1 and 2 on the console,
// O_RDWR, blocking, without FD_CLOEXEC.
func (t *Table) Init() {
	*t = Table{}
	for fd := 0; fd < 3; fd++ {
		t.files[fd].kind = KindConsole
	}
}

func (t *Table) isOpen(fd int) bool {
	return fd >= 0 && fd < MaxFDs && t.files[fd].kind != KindNone
}

// Kind reports what fd refers to; KindNone if it is not open or out of range.
func (t *Table) Kind(fd int) Kind {
	if fd < 0 || fd >= MaxFDs {
		return KindNone
	}
	return t.files[fd].kind
}

// Nonblocking reports whether fd has O_NONBLOCK set: when a read or write
// returns EAGAIN, the caller returns it to the program instead of sleeping.
func (t *Table) Nonblocking(fd int) bool {
	if f, ok := t.File(fd); ok {
		return f.Flags&O_NONBLOCK != 0
	}
	return t.isOpen(fd) && t.files[fd].nonblock
}

// open takes the lowest free descriptor, as Linux does, or returns -1.
func (t *Table) open(kind Kind, cloexec, nonblock bool) int {
	for fd := range t.files {
		if t.files[fd].kind == KindNone {
			t.files[fd] = file{kind: kind, cloexec: cloexec, nonblock: nonblock}
			return fd
		}
	}
	return -1
}

// Close closes fd. Every epoll interest in fd is dropped; closing an epoll
// instance also drops the interests it holds. Threads blocked on fd are the
// caller's to wake (Linux keeps such a file alive until they return; here
// their next call sees EBADF). If fd was the last descriptor of an open
// file, last is the file's node, whose reference the caller releases.
func (t *Table) Close(fd int) (last fs.Node, errno int) {
	if !t.isOpen(fd) {
		return fs.Node{}, abi.EBADF
	}
	last = t.drop(fd)
	f := &t.files[fd]
	if f.kind == KindPipe {
		t.closePipeEnd(fd)
	}
	if f.kind == KindSocket {
		t.sockets[f.desc%MaxSockets].refs--
	}
	if f.kind == KindPair {
		t.closePairEnd(fd)
	}
	for f.members.head != none {
		t.removeWatch(f.members.head)
	}
	for f.watchers.head != none {
		t.removeWatch(f.watchers.head)
	}
	*f = file{}
	return last, 0
}

// newGen starts a graph walk: every mark from earlier walks becomes stale.
func (t *Table) newGen() uint32 {
	t.gen++
	if t.gen == 0 { // wrapped: stale marks could now match, so clear them
		t.markGen = [MaxFDs]uint32{}
		t.pollGen = [MaxFDs]uint32{}
		t.gen = 1
	}
	return t.gen
}
