package fd

import "testing"

// TestConsoleReadiness checks that console descriptors are always writable, readable while the
// kernel says input waits, and that each arrival is an edge for edge-triggered watches.
func TestConsoleReadiness(t *testing.T) {
	var tb Table
	tb.Init()
	ep, _ := tb.EpollCreate(0) // 3
	con, _ := tb.Dup(0, 0, false)
	if errno := tb.EpollCtl(ep, EPOLL_CTL_ADD, 0, Event{Events: EPOLLIN | EPOLLET, Data: 10}); errno != 0 {
		t.Fatalf("ADD console fd 0: %d", errno)
	}
	if errno := tb.EpollCtl(ep, EPOLL_CTL_ADD, con, Event{Events: EPOLLIN | EPOLLOUT, Data: 20}); errno != 0 {
		t.Fatalf("ADD console dup: %d", errno)
	}
	out := make([]Event, 4)
	ready := func() map[uint64]uint32 {
		n, errno := tb.EpollReady(ep, out)
		if errno != 0 {
			t.Fatalf("EpollReady: %d", errno)
		}
		m := map[uint64]uint32{}
		for _, e := range out[:n] {
			m[e.Data] = e.Events
		}
		return m
	}
	if got := ready(); len(got) != 1 || got[20] != EPOLLOUT {
		t.Errorf("no input: %v, want only the dup writable", got)
	}
	tb.SetConsoleInput(true, true)
	if got := ready(); got[10] != EPOLLIN || got[20] != EPOLLIN|EPOLLOUT {
		t.Errorf("input arrived: %v", got)
	}
	if got := ready(); got[10] != 0 || got[20] != EPOLLIN|EPOLLOUT {
		t.Errorf("no new input: %v, want the edge-triggered watch quiet", got)
	}
	tb.SetConsoleInput(true, true) // more bytes: a new edge
	if got := ready(); got[10] != EPOLLIN {
		t.Errorf("more input arrived: %v, want a new edge", got)
	}
	tb.SetConsoleInput(false, false)
	if got := ready(); got[10] != 0 || got[20] != EPOLLOUT || tb.ConsoleInput() {
		t.Errorf("input read: %v", got)
	}
	fds := make([]int32, MaxFDs)
	if n := tb.ConsoleDescriptors(fds); n != 4 || fds[3] != int32(con) {
		t.Errorf("ConsoleDescriptors = %v", fds[:n])
	}
}
