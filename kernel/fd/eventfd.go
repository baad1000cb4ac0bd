package fd

import "github.com/unitrace/unitrace/kernel/abi"

// maxCount is the largest value an eventfd counter can hold; 2^64-1 itself
// is reserved (writing it is EINVAL, and Linux reports EPOLLERR if an
// in-kernel signal ever overflows to it).
const maxCount = 1<<64 - 2

// Eventfd implements eventfd2(initval, flags): a new eventfd on the lowest
// free descriptor. flags may hold EFD_SEMAPHORE, EFD_CLOEXEC and
// EFD_NONBLOCK; anything else is EINVAL. A full table is EMFILE.
func (t *Table) Eventfd(initval uint32, flags int) (fd int, errno int) {
	if flags&^(EFD_SEMAPHORE|EFD_CLOEXEC|EFD_NONBLOCK) != 0 {
		return -1, abi.EINVAL
	}
	fd = t.open(KindEventfd, flags&EFD_CLOEXEC != 0, flags&EFD_NONBLOCK != 0)
	if fd < 0 {
		return -1, abi.EMFILE
	}
	t.files[fd].count = uint64(initval)
	t.files[fd].semaphore = flags&EFD_SEMAPHORE != 0
	return fd, 0
}

// EventfdRead implements an 8-byte read(2) of an eventfd (the caller rejects
// shorter buffers with EINVAL, as Linux does): it returns the counter and
// resets it, or in semaphore mode returns 1 and decrements it. A zero counter
// is EAGAIN: the caller sleeps and retries unless Nonblocking(fd). A read
// that succeeds makes room for writers, so the caller wakes blocked writers
// and the waiters of Watchers(fd).
func (t *Table) EventfdRead(fd int) (val uint64, errno int) {
	if !t.isOpen(fd) {
		return 0, abi.EBADF
	}
	f := &t.files[fd]
	if f.kind != KindEventfd {
		return 0, abi.EINVAL
	}
	if f.count == 0 {
		return 0, abi.EAGAIN
	}
	if f.semaphore {
		val = 1
	} else {
		val = f.count
	}
	f.count -= val
	t.notify(fd, EPOLLOUT)
	return val, 0
}

// EventfdWrite implements an 8-byte write(2) of v to an eventfd: the counter
// grows by v. v = 2^64-1 is EINVAL; a sum above 2^64-2 is EAGAIN and the
// caller sleeps and retries unless Nonblocking(fd). After a successful write
// (even of 0, which Linux also treats as an event) the caller wakes blocked
// readers and the waiters of Watchers(fd).
func (t *Table) EventfdWrite(fd int, v uint64) (errno int) {
	if !t.isOpen(fd) {
		return abi.EBADF
	}
	f := &t.files[fd]
	if f.kind != KindEventfd {
		return abi.EINVAL
	}
	if v == 1<<64-1 {
		return abi.EINVAL
	}
	if v > maxCount-f.count {
		return abi.EAGAIN
	}
	f.count += v
	t.notify(fd, EPOLLIN)
	return 0
}

// EventfdCount reports an eventfd's counter, for /proc-style debugging and
// tests; ok is false if fd is not an eventfd.
func (t *Table) EventfdCount(fd int) (count uint64, ok bool) {
	if !t.isOpen(fd) || t.files[fd].kind != KindEventfd {
		return 0, false
	}
	return t.files[fd].count, true
}

// eventfdPoll is the eventfd's readiness, as Linux's eventfd_poll computes it.
func eventfdPoll(count uint64) uint32 {
	var ev uint32
	if count > 0 {
		ev |= EPOLLIN
	}
	if count == 1<<64-1 {
		ev |= EPOLLERR
	}
	if count < maxCount {
		ev |= EPOLLOUT
	}
	return ev
}
