package fd

import "github.com/unitrace/unitrace/kernel/abi"

// DefaultPollMask is the readiness of a descriptor that cannot be polled (Linux's
// DEFAULT_POLLMASK): poll and select report regular files and devices without a poll method
// readable and writable at all times.
const DefaultPollMask = EPOLLIN | EPOLLOUT | EPOLLRDNORM | EPOLLWRNORM

// Poll is fd's readiness as poll(2) and select(2) see it, in epoll's bits (which are poll's): what
// an epoll watch of it would report, and DefaultPollMask for the files and trace ports that epoll
// refuses (EPERM). A descriptor that is not open is EBADF.
func (t *Table) Poll(fd int) (ready uint32, errno int) {
	if !t.isOpen(fd) {
		return 0, abi.EBADF
	}
	switch t.files[fd].kind {
	case KindFile, KindDevice:
		return DefaultPollMask, 0
	}
	t.newGen()
	return t.poll(fd, 1), 0
}

// Buffered is FIONREAD's answer for a pipe end or a socket pair end: the bytes its reader would
// find (a pipe's write end, too, reports the bytes its pipe holds, as on Linux). ok is false for
// any other descriptor.
func (t *Table) Buffered(fd int) (n int, ok bool) {
	if !t.isOpen(fd) {
		return 0, false
	}
	f := &t.files[fd]
	switch f.kind {
	case KindPipe:
		return int(t.pipes[f.desc%MaxPipes].n), true
	case KindPair:
		r, _ := t.pairPipes(f)
		return int(t.pipes[r%MaxPipes].n), true
	}
	return 0, false
}
