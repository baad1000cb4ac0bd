package fd

import (
	"testing"

	"github.com/unitrace/unitrace/kernel/abi"
)

func TestEventfdFlags(t *testing.T) {
	tests := []struct {
		flags     int
		errno     int
		cloexec   bool
		nonblock  bool
		semaphore bool
	}{
		{0, 0, false, false, false},
		{EFD_SEMAPHORE, 0, false, false, true},
		{EFD_CLOEXEC | EFD_NONBLOCK, 0, true, true, false},
		{EFD_SEMAPHORE | EFD_CLOEXEC | EFD_NONBLOCK, 0, true, true, true},
		{2, abi.EINVAL, false, false, false},
		{-1, abi.EINVAL, false, false, false},
		{O_RDWR | EFD_NONBLOCK, abi.EINVAL, false, false, false},
	}
	for _, tt := range tests {
		var tb Table
		tb.Init()
		fd, errno := tb.Eventfd(7, tt.flags)
		if errno != tt.errno {
			t.Errorf("Eventfd(7, %#x) errno = %d, want %d", tt.flags, errno, tt.errno)
			continue
		}
		if errno != 0 {
			if fd != -1 || tb.Kind(3) != KindNone {
				t.Errorf("failed Eventfd(%#x) opened fd %d", tt.flags, fd)
			}
			continue
		}
		f := tb.files[fd]
		if fd != 3 || f.kind != KindEventfd || f.count != 7 || f.cloexec != tt.cloexec ||
			f.nonblock != tt.nonblock || f.semaphore != tt.semaphore {
			t.Errorf("Eventfd(7, %#x) = fd %d, %+v", tt.flags, fd, f)
		}
	}
}

func TestEventfdReadWrite(t *testing.T) {
	const max = 1<<64 - 2
	type op struct {
		write bool
		v     uint64 // value written, or expected value read
		errno int
	}
	tests := []struct {
		name  string
		init  uint32
		flags int
		ops   []op
	}{
		{"counter", 3, 0, []op{
			{false, 3, 0}, {false, 0, abi.EAGAIN}, {true, 5, 0}, {true, 6, 0}, {false, 11, 0},
		}},
		{"semaphore", 2, EFD_SEMAPHORE, []op{
			{false, 1, 0}, {false, 1, 0}, {false, 0, abi.EAGAIN}, {true, 1, 0}, {false, 1, 0},
		}},
		{"zero write is fine", 0, 0, []op{{true, 0, 0}, {false, 0, abi.EAGAIN}}},
		{"all ones is EINVAL", 0, 0, []op{{true, 1<<64 - 1, abi.EINVAL}, {false, 0, abi.EAGAIN}}},
		{"fill to the maximum", 0, 0, []op{
			{true, max, 0}, {true, 1, abi.EAGAIN}, {true, 0, 0}, {false, max, 0},
		}},
		{"overflow by one", 5, 0, []op{{true, max - 5, 0}, {true, 1, abi.EAGAIN}, {false, max, 0}}},
	}
	for _, tt := range tests {
		var tb Table
		tb.Init()
		fd, _ := tb.Eventfd(tt.init, tt.flags)
		for i, o := range tt.ops {
			if o.write {
				if errno := tb.EventfdWrite(fd, o.v); errno != o.errno {
					t.Errorf("%s: op %d: write(%#x) = %d, want %d", tt.name, i, o.v, errno, o.errno)
				}
				continue
			}
			v, errno := tb.EventfdRead(fd)
			if v != o.v || errno != o.errno {
				t.Errorf("%s: op %d: read = %#x, %d; want %#x, %d", tt.name, i, v, errno, o.v, o.errno)
			}
		}
	}
}

func TestEventfdWrongDescriptor(t *testing.T) {
	var tb Table
	tb.Init()
	ep, _ := tb.EpollCreate(0)
	for _, tt := range []struct {
		fd, errno int
	}{{-1, abi.EBADF}, {MaxFDs, abi.EBADF}, {10, abi.EBADF}, {1, abi.EINVAL}, {ep, abi.EINVAL}} {
		if _, errno := tb.EventfdRead(tt.fd); errno != tt.errno {
			t.Errorf("EventfdRead(%d) = %d, want %d", tt.fd, errno, tt.errno)
		}
		if errno := tb.EventfdWrite(tt.fd, 1); errno != tt.errno {
			t.Errorf("EventfdWrite(%d) = %d, want %d", tt.fd, errno, tt.errno)
		}
		if _, ok := tb.EventfdCount(tt.fd); ok {
			t.Errorf("EventfdCount(%d) ok", tt.fd)
		}
	}
}

func TestEventfdPoll(t *testing.T) {
	for _, tt := range []struct {
		count uint64
		want  uint32
	}{
		{0, EPOLLOUT},
		{1, EPOLLIN | EPOLLOUT},
		{1<<64 - 3, EPOLLIN | EPOLLOUT},
		{1<<64 - 2, EPOLLIN},
		{1<<64 - 1, EPOLLIN | EPOLLERR},
	} {
		if got := eventfdPoll(tt.count); got != tt.want {
			t.Errorf("eventfdPoll(%#x) = %#x, want %#x", tt.count, got, tt.want)
		}
	}
}

func TestEventfdCount(t *testing.T) {
	var tb Table
	tb.Init()
	fd, _ := tb.Eventfd(5, 0)
	tb.EventfdWrite(fd, 6)
	if c, ok := tb.EventfdCount(fd); c != 11 || !ok {
		t.Fatalf("EventfdCount = %d, %v", c, ok)
	}
}

// TestGenerationWrap checks that marks left from before the generation
// counter wrapped cannot be mistaken for fresh ones.
func TestGenerationWrap(t *testing.T) {
	var tb Table
	tb.Init()
	ep, _ := tb.EpollCreate(0)
	efd, _ := tb.Eventfd(0, 0)
	tb.EpollCtl(ep, EPOLL_CTL_ADD, efd, Event{EPOLLIN, 1})
	tb.gen = 1<<32 - 1
	tb.markGen[ep], tb.markGen[efd] = 1, 1 // would match gen 1 after the wrap
	tb.EventfdWrite(efd, 1)
	if tb.gen != 1 {
		t.Fatalf("gen = %d after wrap", tb.gen)
	}
	if n, _ := tb.EpollReady(ep, make([]Event, 1)); n != 1 {
		t.Fatal("event lost across the generation wrap")
	}
}
