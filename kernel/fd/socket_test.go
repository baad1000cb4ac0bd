package fd

import (
	"testing"

	"github.com/unitrace/unitrace/kernel/abi"
)

// TestSocketLife: a reserved socket gets a descriptor, dup shares it, it lives until its last
// descriptor closes, and its handle names that life only.
func TestSocketLife(t *testing.T) {
	var tb Table
	tb.Init()
	i, h, errno := tb.SocketReserve(2, 1)
	if errno != 0 || h == 0 {
		t.Fatalf("SocketReserve = %d, %#x, %d", i, h, errno)
	}
	if got, ok := tb.SocketByHandle(h); !ok || got != i {
		t.Fatalf("SocketByHandle(reserved) = %d, %v", got, ok)
	}
	fd, errno := tb.SocketInstall(i, true, true)
	if errno != 0 || tb.Kind(fd) != KindSocket || !tb.Nonblocking(fd) {
		t.Fatalf("SocketInstall = %d, %d; kind %v", fd, errno, tb.Kind(fd))
	}
	if d, typ := tb.SocketType(i); d != 2 || typ != 1 {
		t.Errorf("SocketType = %d, %d", d, typ)
	}
	dup, errno := tb.Dup(fd, 0, false)
	if errno != 0 {
		t.Fatalf("Dup: %d", errno)
	}
	if j, hh, ok := tb.Socket(dup); !ok || j != i || hh != h {
		t.Fatalf("Socket(dup) = %d, %#x, %v", j, hh, ok)
	}
	var out [4]int32
	if n := tb.SocketDescriptors(i, out[:]); n != 2 {
		t.Errorf("SocketDescriptors = %d, want 2", n)
	}
	tb.Close(fd)
	if !tb.SocketLive(i) {
		t.Fatal("the socket died with a descriptor left")
	}
	tb.Close(dup)
	if tb.SocketLive(i) {
		t.Fatal("the socket outlived its descriptors")
	}
	if _, ok := tb.SocketByHandle(h); ok {
		t.Error("a dead socket's handle still names it")
	}
	j, h2, _ := tb.SocketReserve(10, 2)
	if j != i || h2 == h {
		t.Errorf("reuse: slot %d handle %#x, old %#x: a handle must not outlive its socket", j, h2, h)
	}
	tb.SocketRelease(j)
	if tb.SocketLive(j) {
		t.Error("a released reservation is live")
	}
	if _, _, ok := tb.Socket(0); ok {
		t.Error("the console is a socket")
	}
	if _, ok := tb.SocketByHandle(0); ok {
		t.Error("handle 0 names a socket")
	}
}

func TestSocketsRunOut(t *testing.T) {
	var tb Table
	tb.Init()
	for k := 0; k < MaxSockets; k++ {
		if _, _, errno := tb.SocketReserve(2, 1); errno != 0 {
			t.Fatalf("reservation %d: %d", k, errno)
		}
	}
	if _, _, errno := tb.SocketReserve(2, 1); errno != abi.ENFILE {
		t.Fatalf("one past MaxSockets: %d, want ENFILE", errno)
	}
}

// TestSocketReadiness: an event's new bits wake an edge-triggered epoll once; bits a call
// cleared come back as new with the next event.
func TestSocketReadiness(t *testing.T) {
	var tb Table
	tb.Init()
	i, _, _ := tb.SocketReserve(2, 1)
	fd, _ := tb.SocketInstall(i, false, true)
	ep, _ := tb.EpollCreate(0)
	if errno := tb.EpollCtl(ep, EPOLL_CTL_ADD, fd, Event{Events: EPOLLIN | EPOLLOUT | EPOLLET, Data: 7}); errno != 0 {
		t.Fatalf("EpollCtl: %d", errno)
	}
	var ev [4]Event
	if n, _ := tb.EpollReady(ep, ev[:]); n != 0 {
		t.Fatalf("%d events before any readiness", n)
	}
	if !tb.SocketSetReady(i, EPOLLOUT) {
		t.Fatal("EPOLLOUT was new")
	}
	if n, _ := tb.EpollReady(ep, ev[:]); n != 1 || ev[0].Events != EPOLLOUT || ev[0].Data != 7 {
		t.Fatalf("EpollReady = %d %+v", n, ev[0])
	}
	if tb.SocketSetReady(i, EPOLLOUT) {
		t.Error("the same readiness again is no edge")
	}
	if n, _ := tb.EpollReady(ep, ev[:]); n != 0 {
		t.Errorf("edge-triggered: %d events without a new edge", n)
	}
	setReadyAndCheck(t, &tb, i, EPOLLOUT|EPOLLIN, ep, EPOLLOUT|EPOLLIN)
	tb.SocketClearReady(i, EPOLLIN) // a read found nothing
	if got := tb.SocketReady(i); got != EPOLLOUT {
		t.Errorf("after the clear: %#x", got)
	}
	setReadyAndCheck(t, &tb, i, EPOLLOUT|EPOLLIN, ep, EPOLLOUT|EPOLLIN)
}

func setReadyAndCheck(t *testing.T, tb *Table, i int, ready uint32, ep int, want uint32) {
	t.Helper()
	if !tb.SocketSetReady(i, ready) {
		t.Fatalf("SocketSetReady(%#x): no new bits", ready)
	}
	var ev [4]Event
	if n, _ := tb.EpollReady(ep, ev[:]); n != 1 || ev[0].Events != want {
		t.Fatalf("EpollReady = %d %+v, want %#x", n, ev[0], want)
	}
}
