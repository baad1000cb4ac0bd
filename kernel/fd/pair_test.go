package fd

import (
	"testing"

	"github.com/unitrace/unitrace/kernel/abi"
)

// TestPairBothWays: bytes go each way, a closed end is end of file for the other and EPIPE for
// its writes, and dup keeps an end open.
func TestPairBothWays(t *testing.T) {
	var tb Table
	tb.Init()
	a, b, errno := tb.Socketpair(O_NONBLOCK)
	if errno != 0 || tb.Kind(a) != KindPair || tb.Kind(b) != KindPair {
		t.Fatalf("Socketpair = %d, %d, %d", a, b, errno)
	}
	buf := make([]byte, 16)
	if _, errno := tb.PipeRead(a, buf); errno != abi.EAGAIN {
		t.Fatalf("read of an empty pair: %d, want EAGAIN", errno)
	}
	for _, w := range []struct{ from, to int }{{a, b}, {b, a}} {
		if n, errno := tb.PipeWrite(w.from, []byte("ping")); n != 4 || errno != 0 {
			t.Fatalf("write %d: %d, %d", w.from, n, errno)
		}
		if n, errno := tb.PipeRead(w.to, buf); n != 4 || errno != 0 || string(buf[:4]) != "ping" {
			t.Fatalf("read %d: %d, %d, %q", w.to, n, errno, buf[:n])
		}
	}
	d, _ := tb.Dup(b, 0, false)
	tb.Close(b)
	if _, errno := tb.PipeWrite(a, []byte("x")); errno != 0 {
		t.Fatalf("write with the other end dup'd: %d", errno)
	}
	tb.Close(d)
	if n, errno := tb.PipeRead(a, buf); n != 0 || errno != 0 {
		t.Fatalf("read after the other end closed: %d, %d; want end of file", n, errno)
	}
	if _, errno := tb.PipeWrite(a, []byte("x")); errno != abi.EPIPE {
		t.Fatalf("write after the other end closed: %d, want EPIPE", errno)
	}
	if ev := tb.poll(a, 0); ev&(EPOLLIN|EPOLLRDHUP|EPOLLHUP) != EPOLLIN|EPOLLRDHUP|EPOLLHUP {
		t.Errorf("poll of an end whose peer closed: %#x", ev)
	}
	tb.Close(a)
	for i := range tb.pipes {
		if tb.pipes[i].inUse() {
			t.Errorf("pipe %d still in use after both ends closed", i)
		}
	}
}

// TestPairShutdown: SHUT_WR is end of file for the peer after what was written, and EPIPE for
// the end's own writes; the other direction still works.
func TestPairShutdown(t *testing.T) {
	var tb Table
	tb.Init()
	a, b, _ := tb.Socketpair(0)
	tb.PipeWrite(a, []byte("last"))
	if errno := tb.PairShutdown(a, 1); errno != 0 {
		t.Fatal(errno)
	}
	buf := make([]byte, 8)
	if n, _ := tb.PipeRead(b, buf); n != 4 {
		t.Fatalf("read before end of file: %d", n)
	}
	if n, errno := tb.PipeRead(b, buf); n != 0 || errno != 0 {
		t.Fatalf("read after SHUT_WR: %d, %d", n, errno)
	}
	if _, errno := tb.PipeWrite(a, []byte("x")); errno != abi.EPIPE {
		t.Fatalf("write after SHUT_WR: %d", errno)
	}
	if n, errno := tb.PipeWrite(b, []byte("back")); n != 4 || errno != 0 {
		t.Fatalf("the other direction: %d, %d", n, errno)
	}
	if errno := tb.PairShutdown(a, 3); errno != abi.EINVAL {
		t.Errorf("how 3: %d", errno)
	}
	if errno := tb.PairShutdown(0, 1); errno != abi.ENOTSOCK {
		t.Errorf("the console: %d", errno)
	}
}

// TestPairEpoll: a write is an edge for the other end's watchers, not for the writer's.
func TestPairEpoll(t *testing.T) {
	var tb Table
	tb.Init()
	a, b, _ := tb.Socketpair(O_NONBLOCK)
	ep, _ := tb.EpollCreate(0)
	tb.EpollCtl(ep, EPOLL_CTL_ADD, b, Event{Events: EPOLLIN | EPOLLET, Data: 2})
	var ev [2]Event
	if n, _ := tb.EpollReady(ep, ev[:]); n != 0 {
		t.Fatalf("%d events before a write", n)
	}
	tb.PipeWrite(a, []byte("hi"))
	if n, _ := tb.EpollReady(ep, ev[:]); n != 1 || ev[0].Data != 2 || ev[0].Events&EPOLLIN == 0 {
		t.Fatalf("after a write: %d %+v", n, ev[0])
	}
}

// TestPairsRunOut: pairs take two pipes each, from the pipes' pool.
func TestPairsRunOut(t *testing.T) {
	var tb Table
	tb.Init()
	for i := 0; i < MaxPairs; i++ {
		if _, _, errno := tb.Socketpair(0); errno != 0 {
			t.Fatalf("pair %d: %d", i, errno)
		}
	}
	if _, _, errno := tb.Socketpair(0); errno != abi.ENFILE {
		t.Fatalf("past the pipes: %d, want ENFILE", errno)
	}
	if _, _, errno := tb.Pipe2(0); errno != abi.ENFILE {
		t.Fatalf("a pipe past them: %d, want ENFILE", errno)
	}
	if _, _, errno := tb.Socketpair(0x40); errno != abi.EINVAL {
		t.Fatalf("bad flags: %d", errno)
	}
}
