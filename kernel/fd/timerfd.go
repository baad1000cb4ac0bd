package fd

import "github.com/unitrace/unitrace/kernel/abi"

// Timerfds: a descriptor of KindTimerfd stands for a timer the kernel keeps (package timerfd);
// file.desc is the timer's id there and file.count mirrors its expirations not yet read, which
// make the descriptor readable. The kernel updates the count (SetTimerfdTicks) whenever the
// timer expires or is read or set, and wakes the descriptor's waiters.

// OpenTimerfd opens the lowest free descriptor on timer id, with TFD_CLOEXEC and TFD_NONBLOCK
// (O_CLOEXEC, O_NONBLOCK) from flags. A full table is EMFILE.
func (t *Table) OpenTimerfd(id int, flags int) (fd int, errno int) {
	fd = t.open(KindTimerfd, flags&O_CLOEXEC != 0, flags&O_NONBLOCK != 0)
	if fd < 0 {
		return -1, abi.EMFILE
	}
	t.files[fd].desc = int16(id)
	return fd, 0
}

// Timerfd returns the timer behind fd, if fd is a timerfd.
func (t *Table) Timerfd(fd int) (id int, ok bool) {
	if t.Kind(fd) != KindTimerfd {
		return 0, false
	}
	return int(t.files[fd].desc), true
}

// SetTimerfdTicks records the expirations of timerfd fd's timer not yet read. More than there
// were is an event (EPOLLIN) for the watches of fd; the caller then wakes the waiters of fd and
// of Watchers(fd).
func (t *Table) SetTimerfdTicks(fd int, ticks uint64) {
	if t.Kind(fd) != KindTimerfd {
		return
	}
	f := &t.files[fd]
	more := ticks > f.count
	f.count = ticks
	if more {
		t.notify(fd, EPOLLIN)
	}
}

// timerfdPoll is a timerfd's readiness, as Linux's timerfd_poll computes it: EPOLLIN (alone)
// while it has expirations to read; never writable.
func timerfdPoll(ticks uint64) uint32 {
	if ticks > 0 {
		return EPOLLIN
	}
	return 0
}
