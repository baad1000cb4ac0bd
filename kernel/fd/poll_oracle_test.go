package fd

import (
	"testing"

	"github.com/unitrace/unitrace/kernel/fs"
	"github.com/unitrace/unitrace/kernel/pollset"
	"golang.org/x/sys/unix"
)

// The oracle for poll: the host's Linux. Each case builds the same state twice, in a Table and
// with real descriptors on the host, and compares what poll(2) reports for every event bit asked
// with Table.Poll through pollset.Revents, as the kernel's poll computes it.

// pollAll asks for every event poll knows.
const pollAll = 0x7fff &^ pollset.POLLNVAL

type pollCase struct {
	name  string
	build func(t *testing.T, tb *Table) (tfd int, hfd int, cleanup func())
}

func hostPipe(t *testing.T) [2]int {
	var p [2]int
	if err := unix.Pipe2(p[:], unix.O_CLOEXEC|unix.O_NONBLOCK); err != nil {
		t.Fatal(err)
	}
	return p
}

func hostPair(t *testing.T) [2]int {
	p, err := unix.Socketpair(unix.AF_UNIX, unix.SOCK_STREAM|unix.SOCK_CLOEXEC|unix.SOCK_NONBLOCK, 0)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func closeAll(fds ...int) func() {
	return func() {
		for _, fd := range fds {
			if fd >= 0 {
				unix.Close(fd)
			}
		}
	}
}

var pollCases = []pollCase{
	{"empty pipe, read end", func(t *testing.T, tb *Table) (int, int, func()) {
		r, _, _ := tb.Pipe2(0)
		p := hostPipe(t)
		return r, p[0], closeAll(p[0], p[1])
	}},
	{"empty pipe, write end", func(t *testing.T, tb *Table) (int, int, func()) {
		_, w, _ := tb.Pipe2(0)
		p := hostPipe(t)
		return w, p[1], closeAll(p[0], p[1])
	}},
	{"pipe with bytes, read end", func(t *testing.T, tb *Table) (int, int, func()) {
		r, w, _ := tb.Pipe2(0)
		tb.PipeWrite(w, []byte("hello"))
		p := hostPipe(t)
		unix.Write(p[1], []byte("hello"))
		return r, p[0], closeAll(p[0], p[1])
	}},
	{"pipe with bytes, writer gone", func(t *testing.T, tb *Table) (int, int, func()) {
		r, w, _ := tb.Pipe2(0)
		tb.PipeWrite(w, []byte("hello"))
		tb.Close(w)
		p := hostPipe(t)
		unix.Write(p[1], []byte("hello"))
		unix.Close(p[1])
		return r, p[0], closeAll(p[0])
	}},
	{"empty pipe, writer gone", func(t *testing.T, tb *Table) (int, int, func()) {
		r, w, _ := tb.Pipe2(0)
		tb.Close(w)
		p := hostPipe(t)
		unix.Close(p[1])
		return r, p[0], closeAll(p[0])
	}},
	{"pipe, reader gone", func(t *testing.T, tb *Table) (int, int, func()) {
		r, w, _ := tb.Pipe2(0)
		tb.Close(r)
		p := hostPipe(t)
		unix.Close(p[0])
		return w, p[1], closeAll(p[1])
	}},
	{"full pipe, write end", func(t *testing.T, tb *Table) (int, int, func()) {
		_, w, _ := tb.Pipe2(0)
		buf := make([]byte, PipeSize)
		tb.PipeWrite(w, buf)
		p := hostPipe(t)
		for {
			if _, err := unix.Write(p[1], buf); err != nil {
				break
			}
		}
		return w, p[1], closeAll(p[0], p[1])
	}},
	{"eventfd at 0", func(t *testing.T, tb *Table) (int, int, func()) {
		e, _ := tb.Eventfd(0, 0)
		h, _ := unix.Eventfd(0, unix.EFD_CLOEXEC)
		return e, h, closeAll(h)
	}},
	{"eventfd at 5", func(t *testing.T, tb *Table) (int, int, func()) {
		e, _ := tb.Eventfd(5, 0)
		h, _ := unix.Eventfd(5, unix.EFD_CLOEXEC)
		return e, h, closeAll(h)
	}},
	{"socket pair, empty", func(t *testing.T, tb *Table) (int, int, func()) {
		a, _, _ := tb.Socketpair(0)
		p := hostPair(t)
		return a, p[0], closeAll(p[0], p[1])
	}},
	{"socket pair with bytes", func(t *testing.T, tb *Table) (int, int, func()) {
		a, b, _ := tb.Socketpair(0)
		tb.PipeWrite(b, []byte("abc"))
		p := hostPair(t)
		unix.Write(p[1], []byte("abc"))
		return a, p[0], closeAll(p[0], p[1])
	}},
	{"socket pair, peer shut down for writing", func(t *testing.T, tb *Table) (int, int, func()) {
		a, b, _ := tb.Socketpair(0)
		tb.PairShutdown(b, 1)
		p := hostPair(t)
		unix.Shutdown(p[1], unix.SHUT_WR)
		return a, p[0], closeAll(p[0], p[1])
	}},
	{"socket pair, shut down both ways", func(t *testing.T, tb *Table) (int, int, func()) {
		a, _, _ := tb.Socketpair(0)
		tb.PairShutdown(a, 2)
		p := hostPair(t)
		unix.Shutdown(p[0], unix.SHUT_RDWR)
		return a, p[0], closeAll(p[0], p[1])
	}},
	{"socket pair, peer closed", func(t *testing.T, tb *Table) (int, int, func()) {
		a, b, _ := tb.Socketpair(0)
		tb.Close(b)
		p := hostPair(t)
		unix.Close(p[1])
		return a, p[0], closeAll(p[0])
	}},
	{"timerfd, nothing to read", func(t *testing.T, tb *Table) (int, int, func()) {
		f, _ := tb.OpenTimerfd(0, 0)
		h, _ := unix.TimerfdCreate(unix.CLOCK_MONOTONIC, unix.TFD_CLOEXEC)
		return f, h, closeAll(h)
	}},
	{"timerfd, expired", func(t *testing.T, tb *Table) (int, int, func()) {
		f, _ := tb.OpenTimerfd(0, 0)
		tb.SetTimerfdTicks(f, 1)
		h, _ := unix.TimerfdCreate(unix.CLOCK_MONOTONIC, unix.TFD_CLOEXEC)
		unix.TimerfdSettime(h, 0, &unix.ItimerSpec{Value: unix.Timespec{Nsec: 1}}, nil)
		pf := []unix.PollFd{{Fd: int32(h), Events: unix.POLLIN}}
		unix.Poll(pf, 1000)
		return f, h, closeAll(h)
	}},
	{"epoll instance with a ready watch", func(t *testing.T, tb *Table) (int, int, func()) {
		ep, _ := tb.EpollCreate(0)
		e, _ := tb.Eventfd(1, 0)
		tb.EpollCtl(ep, EPOLL_CTL_ADD, e, Event{Events: EPOLLIN})
		hep, _ := unix.EpollCreate1(unix.EPOLL_CLOEXEC)
		he, _ := unix.Eventfd(1, unix.EFD_CLOEXEC)
		unix.EpollCtl(hep, unix.EPOLL_CTL_ADD, he, &unix.EpollEvent{Events: unix.EPOLLIN})
		return ep, hep, closeAll(hep, he)
	}},
	{"a regular file", func(t *testing.T, tb *Table) (int, int, func()) {
		f, _ := tb.OpenFile(fs.Node{Ino: 1}, O_RDWR)
		h, err := unix.Open(t.TempDir()+"/f", unix.O_RDWR|unix.O_CREAT|unix.O_CLOEXEC, 0o600)
		if err != nil {
			t.Fatal(err)
		}
		return f, h, closeAll(h)
	}},
}

func TestPollOracle(t *testing.T) {
	for _, c := range pollCases {
		t.Run(c.name, func(t *testing.T) {
			var tb Table
			tb.Init()
			tfd, hfd, cleanup := c.build(t, &tb)
			defer cleanup()
			ready, errno := tb.Poll(tfd)
			if errno != 0 {
				t.Fatalf("Poll: %d", errno)
			}
			for _, events := range []int16{pollAll, unix.POLLIN, unix.POLLOUT, 0} {
				pf := []unix.PollFd{{Fd: int32(hfd), Events: events}}
				if _, err := unix.Poll(pf, 0); err != nil {
					t.Fatal(err)
				}
				if got, want := pollset.Revents(ready, uint16(events)), uint16(pf[0].Revents); got != want {
					t.Errorf("events %#x: revents %#x, Linux %#x", uint16(events), got, want)
				}
			}
		})
	}
}
