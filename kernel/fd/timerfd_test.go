package fd

import (
	"testing"

	"github.com/unitrace/unitrace/kernel/abi"
)

func TestTimerfdReadiness(t *testing.T) {
	var tb Table
	tb.Init()
	tfd, errno := tb.OpenTimerfd(5, O_CLOEXEC|O_NONBLOCK)
	if errno != 0 || tfd != 3 || tb.Kind(tfd) != KindTimerfd || !tb.Nonblocking(tfd) {
		t.Fatalf("OpenTimerfd: %d %d", tfd, errno)
	}
	if id, ok := tb.Timerfd(tfd); !ok || id != 5 {
		t.Errorf("Timerfd: %d %v", id, ok)
	}
	if fdflags, _ := tb.Fcntl(tfd, F_GETFD, 0); fdflags != FD_CLOEXEC {
		t.Errorf("F_GETFD %d", fdflags)
	}
	ep, _ := tb.EpollCreate(0)
	// An edge-triggered watch fires once per new expiry count, as Linux's wake-up per expiry.
	if errno := tb.EpollCtl(ep, EPOLL_CTL_ADD, tfd, Event{Events: EPOLLIN | EPOLLET, Data: 9}); errno != 0 {
		t.Fatalf("EpollCtl: %d", errno)
	}
	var out [4]Event
	if n, _ := tb.EpollReady(ep, out[:]); n != 0 {
		t.Errorf("ready before an expiry: %d", n)
	}
	if ready, _ := tb.Poll(tfd); ready != 0 {
		t.Errorf("Poll before an expiry: %#x", ready)
	}
	tb.SetTimerfdTicks(tfd, 1)
	if n, _ := tb.EpollReady(ep, out[:]); n != 1 || out[0] != (Event{EPOLLIN, 9}) {
		t.Errorf("after an expiry: %d %+v", n, out[0])
	}
	if n, _ := tb.EpollReady(ep, out[:]); n != 0 {
		t.Errorf("edge-triggered twice: %d", n)
	}
	if ready, _ := tb.Poll(tfd); ready != EPOLLIN {
		t.Errorf("Poll: %#x", ready)
	}
	tb.SetTimerfdTicks(tfd, 3)
	if n, _ := tb.EpollReady(ep, out[:]); n != 1 {
		t.Errorf("after more expiries: %d", n)
	}
	tb.SetTimerfdTicks(tfd, 0) // read
	if ready, _ := tb.Poll(tfd); ready != 0 {
		t.Errorf("Poll after the read: %#x", ready)
	}
	if _, errno := tb.Dup(tfd, 0, false); errno != abi.EINVAL {
		t.Errorf("Dup: %d", errno)
	}
	tb.SetTimerfdTicks(0, 5) // not a timerfd: ignored
	if _, ok := tb.Timerfd(0); ok {
		t.Errorf("the console is a timerfd")
	}
	if _, errno := tb.Close(tfd); errno != 0 || tb.Kind(tfd) != KindNone {
		t.Errorf("Close: %d", errno)
	}
}

func TestPollAndBuffered(t *testing.T) {
	var tb Table
	tb.Init()
	if _, errno := tb.Poll(50); errno != abi.EBADF {
		t.Errorf("Poll of a closed fd: %d", errno)
	}
	if ready, _ := tb.Poll(1); ready != EPOLLOUT|EPOLLWRNORM {
		t.Errorf("console: %#x", ready)
	}
	r, w, _ := tb.Pipe2(0)
	if ready, _ := tb.Poll(w); ready&EPOLLOUT == 0 {
		t.Errorf("write end: %#x", ready)
	}
	tb.PipeWrite(w, []byte("hello"))
	if ready, _ := tb.Poll(r); ready&EPOLLIN == 0 {
		t.Errorf("read end: %#x", ready)
	}
	for _, fd := range []int{r, w} {
		if n, ok := tb.Buffered(fd); !ok || n != 5 {
			t.Errorf("Buffered(%d) = %d %v", fd, n, ok)
		}
	}
	tb.Close(w)
	if ready, _ := tb.Poll(r); ready&(EPOLLIN|EPOLLHUP) != EPOLLIN|EPOLLHUP {
		t.Errorf("read end without a writer: %#x", ready)
	}
	a, b, _ := tb.Socketpair(0)
	tb.PipeWrite(a, []byte("abc"))
	if n, ok := tb.Buffered(b); !ok || n != 3 {
		t.Errorf("pair: %d %v", n, ok)
	}
	if n, ok := tb.Buffered(a); !ok || n != 0 {
		t.Errorf("pair's writer: %d %v", n, ok)
	}
	if _, ok := tb.Buffered(0); ok {
		t.Errorf("Buffered of the console")
	}
	efd, _ := tb.Eventfd(0, 0)
	if ready, _ := tb.Poll(efd); ready != EPOLLOUT {
		t.Errorf("eventfd: %#x", ready)
	}
}
