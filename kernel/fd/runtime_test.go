package fd

import (
	"slices"
	"testing"

	"github.com/unitrace/unitrace/kernel/abi"
)

// TestRuntimeNetpollPath replays the calls the Go runtime makes at start-up
// and in netpollBreak/netpoll (runtime/netpoll_epoll.go: netpollinit creates the epoll
// instance and an eventfd, netpollBreak writes the eventfd, netpoll waits in epoll_pwait).
func TestRuntimeNetpollPath(t *testing.T) {
	var tb Table
	tb.Init()
	for fd := 0; fd < 3; fd++ {
		if ret, errno := tb.Fcntl(fd, F_GETFD, 0); ret != 0 || errno != 0 {
			t.Fatalf("fcntl(%d, F_GETFD) = %d, %d", fd, ret, errno)
		}
		if ret, errno := tb.Fcntl(fd, F_GETFL, 0); ret != O_RDWR || errno != 0 {
			t.Fatalf("fcntl(%d, F_GETFL) = %#x, %d; want O_RDWR", fd, ret, errno)
		}
	}
	epfd, errno := tb.EpollCreate(EPOLL_CLOEXEC)
	if epfd != 3 || errno != 0 {
		t.Fatalf("epoll_create1 = %d, %d", epfd, errno)
	}
	efd, errno := tb.Eventfd(0, EFD_CLOEXEC|EFD_NONBLOCK)
	if efd != 4 || errno != 0 {
		t.Fatalf("eventfd2 = %d, %d", efd, errno)
	}
	const data = 0xc000123450
	if errno := tb.EpollCtl(epfd, EPOLL_CTL_ADD, efd, Event{EPOLLIN, data}); errno != 0 {
		t.Fatalf("epoll_ctl ADD = %d", errno)
	}
	out := make([]Event, 128)
	if n, errno := tb.EpollReady(epfd, out); n != 0 || errno != 0 {
		t.Fatalf("epoll_pwait before wakeup = %d, %d", n, errno)
	}
	if _, errno := tb.EventfdRead(efd); errno != abi.EAGAIN || !tb.Nonblocking(efd) {
		t.Fatalf("read of empty nonblocking eventfd = %d", errno)
	}
	// netpollBreak: write 1, then wake the epoll waiters.
	if errno := tb.EventfdWrite(efd, 1); errno != 0 {
		t.Fatalf("eventfd write = %d", errno)
	}
	ws := make([]int32, MaxFDs)
	if got := ws[:tb.Watchers(efd, ws)]; !slices.Equal(got, []int32{int32(epfd)}) {
		t.Fatalf("Watchers = %v, want [%d]", got, epfd)
	}
	n, errno := tb.EpollReady(epfd, out)
	if n != 1 || errno != 0 || out[0] != (Event{EPOLLIN, data}) {
		t.Fatalf("epoll_pwait = %d, %d, %+v", n, errno, out[:n])
	}
	if v, errno := tb.EventfdRead(efd); v != 1 || errno != 0 {
		t.Fatalf("eventfd read = %d, %d", v, errno)
	}
	if n, _ := tb.EpollReady(epfd, out); n != 0 {
		t.Fatalf("still ready after the read: %+v", out[:n])
	}
	if ret, _ := tb.Fcntl(efd, F_GETFD, 0); ret != FD_CLOEXEC {
		t.Fatalf("eventfd F_GETFD = %d", ret)
	}
	if ret, _ := tb.Fcntl(efd, F_GETFL, 0); ret != O_RDWR|O_NONBLOCK {
		t.Fatalf("eventfd F_GETFL = %#x", ret)
	}
	checkInvariants(t, &tb)
}
