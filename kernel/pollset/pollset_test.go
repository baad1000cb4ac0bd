package pollset

import (
	"testing"
	"unsafe"

	"golang.org/x/sys/unix"
)

func TestABI(t *testing.T) {
	for _, c := range []struct{ got, want int }{
		{POLLIN, unix.POLLIN}, {POLLPRI, unix.POLLPRI}, {POLLOUT, unix.POLLOUT}, {POLLERR, unix.POLLERR},
		{POLLHUP, unix.POLLHUP}, {POLLNVAL, unix.POLLNVAL}, {POLLRDNORM, unix.EPOLLRDNORM},
		{POLLRDBAND, unix.EPOLLRDBAND}, {POLLWRNORM, unix.EPOLLWRNORM}, {POLLWRBAND, unix.EPOLLWRBAND},
		{POLLRDHUP, unix.POLLRDHUP}, {PollfdSize, int(unsafe.Sizeof(unix.PollFd{}))},
	} {
		if c.got != c.want {
			t.Errorf("%#x != %#x", c.got, c.want)
		}
	}
}

// The cases are what a Linux 6.18 host answered: a pipe's read end with bytes asked for POLLIN
// reports POLLIN; after its writer closed POLLIN|POLLHUP; a regular file asked for everything
// reports DefaultMask (0x145); a write end asked for POLLIN reports nothing.
func TestRevents(t *testing.T) {
	for _, c := range []struct {
		ready  uint32
		events uint16
		want   uint16
	}{
		{POLLIN | POLLRDNORM, POLLIN, POLLIN},
		{POLLIN | POLLRDNORM | POLLHUP, POLLIN, POLLIN | POLLHUP},
		{DefaultMask, 0x7fff, 0x145},
		{POLLOUT | POLLWRNORM, POLLIN, 0},
		{POLLERR | POLLOUT, 0, POLLERR},
		{1 << 31, 0xffff, 0}, // epoll's private bits never leak
	} {
		if got := Revents(c.ready, c.events); got != c.want {
			t.Errorf("Revents(%#x, %#x) = %#x, want %#x", c.ready, c.events, got, c.want)
		}
	}
}

func TestSelect(t *testing.T) {
	for _, c := range []struct {
		ready     uint32
		want, got uint8
	}{
		{POLLIN, 7, 1}, {POLLOUT, 7, 2}, {POLLPRI, 7, 4}, {POLLHUP, 3, 1}, {POLLERR, 3, 3},
		{DefaultMask, 7, 3}, {DefaultMask, 4, 0}, {POLLIN | POLLOUT, 2, 2}, {0, 7, 0},
	} {
		if got := Select(c.ready, c.want); got != c.got {
			t.Errorf("Select(%#x, %d) = %d, want %d", c.ready, c.want, got, c.got)
		}
	}
}

func TestSets(t *testing.T) {
	for _, c := range []struct {
		nfds int
		want uintptr
	}{{-1, 0}, {0, 0}, {1, 8}, {64, 8}, {65, 16}, {1024, 128}} {
		if got := SetBytes(c.nfds); got != c.want {
			t.Errorf("SetBytes(%d) = %d", c.nfds, got)
		}
	}
	// The layout is x/sys/unix's FdSet.
	var s unix.FdSet
	b := unsafe.Slice((*byte)(unsafe.Pointer(&s)), unsafe.Sizeof(s))
	for _, fd := range []int{0, 7, 8, 63, 64, 100, 1023} {
		Put(b, fd, true)
		if !s.IsSet(fd) || !Has(b, fd) {
			t.Errorf("fd %d", fd)
		}
		Put(b, fd, false)
		if s.IsSet(fd) || Has(b, fd) {
			t.Errorf("fd %d cleared", fd)
		}
	}
	Put(b, -1, true)
	Put(b, 1<<20, true)
	if Has(b, -1) || Has(b, 1<<20) {
		t.Errorf("out of range")
	}
}
