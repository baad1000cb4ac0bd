package fd

import (
	"testing"

	"github.com/unitrace/unitrace/kernel/abi"
)

func TestFcntl(t *testing.T) {
	var tb Table
	tb.Init()
	efd, _ := tb.Eventfd(0, 0)
	ep, _ := tb.EpollCreate(EPOLL_CLOEXEC)
	tests := []struct {
		fd, cmd int
		arg     uintptr
		ret     int
		errno   int
	}{
		{0, F_GETFD, 0, 0, 0},
		{ep, F_GETFD, 0, FD_CLOEXEC, 0},
		{0, F_SETFD, FD_CLOEXEC, 0, 0},
		{0, F_GETFD, 0, FD_CLOEXEC, 0},
		{0, F_SETFD, 0xfe, 0, 0}, // only bit 0 counts
		{0, F_GETFD, 0, 0, 0},
		{0, F_SETFD, 1 << 32, 0, 0}, // arg is an int: high bits dropped
		{0, F_GETFD, 0, 0, 0},
		{2, F_GETFL, 0, O_RDWR, 0},
		{2, F_SETFL, O_NONBLOCK | O_CLOEXEC | 0x400 /* O_APPEND */, 0, 0},
		{2, F_GETFL, 0, O_RDWR | O_NONBLOCK, 0},
		{2, F_SETFL, 0, 0, 0},
		{2, F_GETFL, 0, O_RDWR, 0},
		{efd, F_SETFL, O_NONBLOCK, 0, 0},
		{efd, F_GETFL, 0, O_RDWR | O_NONBLOCK, 0},
		{ep, F_GETFL, 0, O_RDWR, 0},
		{1, 0 /* F_DUPFD */, 0, 0, abi.EINVAL},
		{1, 1030 /* F_DUPFD_CLOEXEC */, 0, 0, abi.EINVAL},
		{1, -1, 0, 0, abi.EINVAL},
		{9, F_GETFD, 0, 0, abi.EBADF},
		{9, 12345, 0, 0, abi.EBADF},
		{-1, F_GETFD, 0, 0, abi.EBADF},
		{MaxFDs, F_GETFL, 0, 0, abi.EBADF},
	}
	for _, tt := range tests {
		ret, errno := tb.Fcntl(tt.fd, tt.cmd, tt.arg)
		if ret != tt.ret || errno != tt.errno {
			t.Errorf("Fcntl(%d, %d, %#x) = %#x, %d; want %#x, %d", tt.fd, tt.cmd, tt.arg, ret, errno, tt.ret, tt.errno)
		}
	}
	if !tb.Nonblocking(efd) || tb.Nonblocking(2) || tb.Nonblocking(-5) {
		t.Error("Nonblocking disagrees with F_SETFL")
	}
}

func TestLowestFreeDescriptor(t *testing.T) {
	var tb Table
	tb.Init()
	for want := 3; want < MaxFDs; want++ {
		if fd, errno := tb.Eventfd(0, 0); fd != want || errno != 0 {
			t.Fatalf("Eventfd = %d, %d; want %d", fd, errno, want)
		}
	}
	if fd, errno := tb.Eventfd(0, 0); fd != -1 || errno != abi.EMFILE {
		t.Fatalf("Eventfd on a full table = %d, %d", fd, errno)
	}
	if fd, errno := tb.EpollCreate(0); fd != -1 || errno != abi.EMFILE {
		t.Fatalf("EpollCreate on a full table = %d, %d", fd, errno)
	}
	for _, fd := range []int{200, 1, 17} {
		if _, errno := tb.Close(fd); errno != 0 {
			t.Fatalf("Close(%d) = %d", fd, errno)
		}
	}
	if _, errno := tb.Close(17); errno != abi.EBADF {
		t.Fatalf("second Close(17) = %d", errno)
	}
	for _, want := range []int{1, 17, 200} {
		if fd, _ := tb.EpollCreate(0); fd != want {
			t.Fatalf("EpollCreate = %d, want %d", fd, want)
		}
	}
	if tb.Kind(1) != KindEpoll || tb.Kind(0) != KindConsole || tb.Kind(-1) != KindNone || tb.Kind(MaxFDs) != KindNone {
		t.Fatal("Kind disagrees")
	}
	if _, errno := tb.Close(-1); errno != abi.EBADF {
		t.Fatalf("Close(-1) = %d", errno)
	}
}

func TestEpollCreateFlags(t *testing.T) {
	var tb Table
	tb.Init()
	for _, tt := range []struct{ flags, errno int }{
		{0, 0}, {EPOLL_CLOEXEC, 0}, {1, abi.EINVAL}, {O_NONBLOCK, abi.EINVAL}, {-1, abi.EINVAL},
	} {
		if _, errno := tb.EpollCreate(tt.flags); errno != tt.errno {
			t.Errorf("EpollCreate(%#x) = %d, want %d", tt.flags, errno, tt.errno)
		}
	}
}

func TestKindString(t *testing.T) {
	for k, want := range map[Kind]string{KindNone: "none", KindConsole: "console", KindEventfd: "eventfd", KindEpoll: "epoll", KindTimerfd: "timerfd", 10: "invalid"} {
		if k.String() != want {
			t.Errorf("Kind(%d).String() = %q", k, k.String())
		}
	}
}
