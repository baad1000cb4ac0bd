package fd

import (
	"slices"
	"testing"

	"github.com/unitrace/unitrace/kernel/abi"
)

// ready returns the events EpollReady reports for epfd with room for max.
func ready(t *testing.T, tb *Table, epfd, max int) []Event {
	t.Helper()
	out := make([]Event, max)
	n, errno := tb.EpollReady(epfd, out)
	if errno != 0 {
		t.Fatalf("EpollReady(%d) errno %d", epfd, errno)
	}
	checkInvariants(t, tb)
	return out[:n]
}

func TestEpollCtlErrors(t *testing.T) {
	var tb Table
	tb.Init()
	ep, _ := tb.EpollCreate(0)  // 3
	efd, _ := tb.Eventfd(0, 0)  // 4
	ep2, _ := tb.EpollCreate(0) // 5
	efd2, _ := tb.Eventfd(0, 0) // 6
	tb.EpollCtl(ep, EPOLL_CTL_ADD, efd2, Event{Events: EPOLLIN | EPOLLEXCLUSIVE})
	const in = EPOLLIN
	tests := []struct {
		name         string
		epfd, op, fd int
		events       uint32
		errno        int
	}{
		{"closed epfd", 9, EPOLL_CTL_ADD, efd, in, abi.EBADF},
		{"closed fd", ep, EPOLL_CTL_ADD, 9, in, abi.EBADF},
		{"negative fd", ep, EPOLL_CTL_ADD, -1, in, abi.EBADF},
		{"console target, bad op", ep, 99, 1, in, abi.EINVAL},
		{"epfd not epoll", efd, EPOLL_CTL_ADD, efd2, in, abi.EINVAL},
		{"epfd is fd", ep, EPOLL_CTL_ADD, ep, in, abi.EINVAL},
		{"exclusive MOD", ep, EPOLL_CTL_MOD, efd, in | EPOLLEXCLUSIVE, abi.EINVAL},
		{"exclusive with epoll target", ep, EPOLL_CTL_ADD, ep2, in | EPOLLEXCLUSIVE, abi.EINVAL},
		{"exclusive with PRI", ep, EPOLL_CTL_ADD, efd, in | EPOLLPRI | EPOLLEXCLUSIVE, abi.EINVAL},
		{"exclusive with ONESHOT", ep, EPOLL_CTL_ADD, efd, in | EPOLLONESHOT | EPOLLEXCLUSIVE, abi.EINVAL},
		{"bad op", ep, 0, efd, in, abi.EINVAL},
		{"bad op 4", ep, 4, efd, in, abi.EINVAL},
		{"DEL unwatched", ep, EPOLL_CTL_DEL, efd, in, abi.ENOENT},
		{"MOD unwatched", ep, EPOLL_CTL_MOD, efd, in, abi.ENOENT},
		{"ADD", ep, EPOLL_CTL_ADD, efd, in, 0},
		{"ADD again", ep, EPOLL_CTL_ADD, efd, EPOLLOUT, abi.EEXIST},
		{"MOD", ep, EPOLL_CTL_MOD, efd, EPOLLOUT, 0},
		{"MOD of an exclusive watch", ep, EPOLL_CTL_MOD, efd2, in, abi.EINVAL},
		{"DEL of an exclusive watch", ep, EPOLL_CTL_DEL, efd2, in | EPOLLEXCLUSIVE, 0},
		{"DEL", ep, EPOLL_CTL_DEL, efd, 0, 0},
		{"DEL again", ep, EPOLL_CTL_DEL, efd, 0, abi.ENOENT},
		{"exclusive ADD", ep, EPOLL_CTL_ADD, efd, in | EPOLLOUT | EPOLLET | EPOLLEXCLUSIVE, 0},
		{"nested epoll", ep, EPOLL_CTL_ADD, ep2, in, 0},
		{"cycle of two", ep2, EPOLL_CTL_ADD, ep, in, abi.ELOOP},
	}
	for _, tt := range tests {
		if errno := tb.EpollCtl(tt.epfd, tt.op, tt.fd, Event{Events: tt.events}); errno != tt.errno {
			t.Errorf("%s: EpollCtl(%d, %d, %d, %#x) = %d, want %d", tt.name, tt.epfd, tt.op, tt.fd, tt.events, errno, tt.errno)
		}
		checkInvariants(t, &tb)
	}
	for _, tt := range []struct {
		epfd, max, errno int
	}{{ep, 0, abi.EINVAL}, {9, 1, abi.EBADF}, {9, 0, abi.EINVAL}, {efd, 1, abi.EINVAL}, {0, 1, abi.EINVAL}} {
		if _, errno := tb.EpollReady(tt.epfd, make([]Event, tt.max)); errno != tt.errno {
			t.Errorf("EpollReady(%d, %d) = %d, want %d", tt.epfd, tt.max, errno, tt.errno)
		}
	}
}

func TestEpollTriggerModes(t *testing.T) {
	type step struct {
		do   string // "w" write 1, "r" read, "mod" re-arm with the same events
		want int    // events reported after the step (room for 4)
	}
	tests := []struct {
		name   string
		events uint32
		steps  []step
	}{
		{"level", EPOLLIN, []step{
			{"", 0}, {"w", 1}, {"", 1}, {"", 1}, {"r", 0}, {"", 0}, {"w", 1},
		}},
		{"edge", EPOLLIN | EPOLLET, []step{
			{"", 0}, {"w", 1}, {"", 0}, {"w", 1}, {"", 0}, {"r", 0}, {"w", 1},
		}},
		{"oneshot", EPOLLIN | EPOLLONESHOT, []step{
			{"w", 1}, {"", 0}, {"w", 0}, {"mod", 1}, {"", 0}, {"r", 0}, {"mod", 0}, {"w", 1},
		}},
		{"edge oneshot", EPOLLIN | EPOLLET | EPOLLONESHOT, []step{
			{"w", 1}, {"w", 0}, {"mod", 1}, {"", 0},
		}},
		// An eventfd starts writable: EPOLLOUT is ready at ADD.
		{"level out", EPOLLOUT, []step{{"", 1}, {"w", 1}, {"r", 1}}},
		// The edge for EPOLLOUT is a read, not a write.
		{"edge out", EPOLLOUT | EPOLLET, []step{{"", 1}, {"", 0}, {"w", 0}, {"r", 1}, {"", 0}}},
	}
	for _, tt := range tests {
		var tb Table
		tb.Init()
		ep, _ := tb.EpollCreate(0)
		efd, _ := tb.Eventfd(0, EFD_NONBLOCK)
		if errno := tb.EpollCtl(ep, EPOLL_CTL_ADD, efd, Event{tt.events, 42}); errno != 0 {
			t.Fatalf("%s: ADD = %d", tt.name, errno)
		}
		for i, s := range tt.steps {
			switch s.do {
			case "w":
				tb.EventfdWrite(efd, 1)
			case "r":
				tb.EventfdRead(efd)
			case "mod":
				tb.EpollCtl(ep, EPOLL_CTL_MOD, efd, Event{tt.events, 42})
			}
			got := ready(t, &tb, ep, 4)
			if len(got) != s.want {
				t.Errorf("%s: step %d (%q): %d events %+v, want %d", tt.name, i, s.do, len(got), got, s.want)
			}
			for _, ev := range got {
				if ev.Data != 42 || ev.Events&^(tt.events|EPOLLERR|EPOLLHUP) != 0 || ev.Events == 0 {
					t.Errorf("%s: step %d: bad event %+v", tt.name, i, ev)
				}
			}
		}
	}
}

func TestEpollReportsOnlyWatchedEvents(t *testing.T) {
	var tb Table
	tb.Init()
	ep, _ := tb.EpollCreate(0)
	efd, _ := tb.Eventfd(1, 0)
	tb.EpollCtl(ep, EPOLL_CTL_ADD, efd, Event{EPOLLIN | EPOLLOUT | EPOLLPRI, 1})
	if got := ready(t, &tb, ep, 4); !slices.Equal(got, []Event{{EPOLLIN | EPOLLOUT, 1}}) {
		t.Fatalf("got %+v", got)
	}
	tb.EpollCtl(ep, EPOLL_CTL_MOD, efd, Event{EPOLLPRI, 2})
	if got := ready(t, &tb, ep, 4); len(got) != 0 {
		t.Fatalf("PRI only: got %+v", got)
	}
}

// TestEpollRotation checks that with a small buffer, level-triggered events
// are reported round-robin rather than always the same first ones.
func TestEpollRotation(t *testing.T) {
	var tb Table
	tb.Init()
	ep, _ := tb.EpollCreate(0)
	for i := 0; i < 4; i++ {
		efd, _ := tb.Eventfd(1, 0)
		tb.EpollCtl(ep, EPOLL_CTL_ADD, efd, Event{EPOLLIN, uint64(i)})
	}
	var seen []uint64
	for i := 0; i < 4; i++ {
		for _, ev := range ready(t, &tb, ep, 3) {
			seen = append(seen, ev.Data)
		}
	}
	want := []uint64{0, 1, 2, 3, 0, 1, 2, 3, 0, 1, 2, 3}
	if !slices.Equal(seen, want) {
		t.Fatalf("order %v, want %v", seen, want)
	}
}

func TestEpollNested(t *testing.T) {
	var tb Table
	tb.Init()
	outer, _ := tb.EpollCreate(0)
	inner, _ := tb.EpollCreate(0)
	efd, _ := tb.Eventfd(0, 0)
	tb.EpollCtl(inner, EPOLL_CTL_ADD, efd, Event{EPOLLIN, 1})
	if errno := tb.EpollCtl(outer, EPOLL_CTL_ADD, inner, Event{EPOLLIN, 2}); errno != 0 {
		t.Fatalf("nested ADD = %d", errno)
	}
	if got := ready(t, &tb, outer, 4); len(got) != 0 {
		t.Fatalf("outer ready before any event: %+v", got)
	}
	tb.EventfdWrite(efd, 1)
	ws := make([]int32, MaxFDs)
	if got := ws[:tb.Watchers(efd, ws)]; !slices.Equal(got, []int32{int32(inner), int32(outer)}) {
		t.Fatalf("Watchers = %v", got)
	}
	for i := 0; i < 2; i++ { // level-triggered: reported while the eventfd is readable
		if got := ready(t, &tb, outer, 4); !slices.Equal(got, []Event{{EPOLLIN, 2}}) {
			t.Fatalf("outer round %d: %+v", i, got)
		}
	}
	if got := ready(t, &tb, inner, 4); !slices.Equal(got, []Event{{EPOLLIN, 1}}) {
		t.Fatalf("inner: %+v", got)
	}
	tb.EventfdRead(efd)
	if got := ready(t, &tb, outer, 4); len(got) != 0 {
		t.Fatalf("outer after read: %+v", got)
	}
	// Watching with EPOLLOUT: an epoll is never writable.
	tb.EpollCtl(outer, EPOLL_CTL_MOD, inner, Event{EPOLLOUT, 3})
	tb.EventfdWrite(efd, 1)
	if got := ready(t, &tb, outer, 4); len(got) != 0 {
		t.Fatalf("EPOLLOUT on an epoll: %+v", got)
	}
	// EPOLLRDNORM is reported too when watched.
	tb.EpollCtl(outer, EPOLL_CTL_MOD, inner, Event{EPOLLIN | EPOLLRDNORM, 4})
	if got := ready(t, &tb, outer, 4); !slices.Equal(got, []Event{{EPOLLIN | EPOLLRDNORM, 4}}) {
		t.Fatalf("RDNORM: %+v", got)
	}
	// Closing the inner instance drops the outer's watch of it.
	tb.Close(inner)
	checkInvariants(t, &tb)
	if got := ready(t, &tb, outer, 4); len(got) != 0 {
		t.Fatalf("after close: %+v", got)
	}
	if tb.files[outer].members.n != 0 || tb.files[efd].watchers.n != 0 {
		t.Fatal("watches survived the close")
	}
}

// TestEpollNestingLimits builds chains of epoll instances: five are allowed,
// a sixth link is ELOOP, as is any cycle.
func TestEpollNestingLimits(t *testing.T) {
	var tb Table
	tb.Init()
	var eps []int
	for i := 0; i < 7; i++ {
		ep, _ := tb.EpollCreate(0)
		eps = append(eps, ep)
	}
	add := func(a, b int) int { return tb.EpollCtl(eps[a], EPOLL_CTL_ADD, eps[b], Event{Events: EPOLLIN}) }
	// Build 0 -> 1 -> 2 -> 3 -> 4 from the middle outwards.
	for _, e := range [][2]int{{2, 3}, {1, 2}, {3, 4}, {0, 1}} {
		if errno := add(e[0], e[1]); errno != 0 {
			t.Fatalf("add %v = %d", e, errno)
		}
	}
	for _, tt := range []struct {
		a, b  int
		errno int
	}{
		{4, 5, abi.ELOOP},
		{5, 0, abi.ELOOP},
		{4, 0, abi.ELOOP},
		{3, 1, abi.ELOOP},
		{2, 0, abi.ELOOP},
		{0, 4, 0}, // a shortcut keeps the longest chain at five
		{0, 2, 0},
		{5, 6, 0}, // a separate pair
		{6, 0, abi.ELOOP},
		{1, 5, 0}, // 0 -> 1 -> 5 -> 6: four instances
		{3, 5, abi.ELOOP},
		{2, 5, 0}, // 0 -> 1 -> 2 -> 5 -> 6: five
	} {
		if errno := add(tt.a, tt.b); errno != tt.errno {
			t.Errorf("add %d -> %d = %d, want %d", tt.a, tt.b, errno, tt.errno)
		}
		checkInvariants(t, &tb)
	}
	// An event at the bottom of the longest chain reaches the top.
	efd, _ := tb.Eventfd(0, 0)
	if errno := tb.EpollCtl(eps[4], EPOLL_CTL_ADD, efd, Event{EPOLLIN, 9}); errno != 0 {
		t.Fatalf("ADD of the eventfd = %d", errno)
	}
	if got := ready(t, &tb, eps[0], 8); len(got) != 0 {
		t.Fatalf("top ready before the event: %+v", got)
	}
	tb.EventfdWrite(efd, 1)
	ws := make([]int32, MaxFDs)
	got := ws[:tb.Watchers(efd, ws)]
	slices.Sort(got)
	if want := []int32{int32(eps[0]), int32(eps[1]), int32(eps[2]), int32(eps[3]), int32(eps[4])}; !slices.Equal(got, want) {
		t.Fatalf("Watchers = %v, want %v", got, want)
	}
	// eps[0] watches 1, 2 and 4 (and 5, not ready); each is readable now.
	if got := ready(t, &tb, eps[0], 8); len(got) != 3 {
		t.Fatalf("top reports %+v, want three events", got)
	}
}

func TestEpollWatchLimit(t *testing.T) {
	var tb Table
	tb.Init()
	var eps []int
	for i := 0; i < 5; i++ {
		ep, _ := tb.EpollCreate(0)
		eps = append(eps, ep)
	}
	added := 0
	for fd := 0; fd < MaxFDs && added < MaxWatches; fd++ {
		if tb.Kind(fd) == KindNone {
			tb.Eventfd(0, 0)
		}
		if tb.Kind(fd) != KindEventfd {
			continue
		}
		for _, ep := range eps {
			if added < MaxWatches && tb.EpollCtl(ep, EPOLL_CTL_ADD, fd, Event{Events: EPOLLIN}) == 0 {
				added++
			}
		}
	}
	if added != MaxWatches {
		t.Fatalf("added %d watches", added)
	}
	efd, _ := tb.Eventfd(0, 0)
	if errno := tb.EpollCtl(eps[0], EPOLL_CTL_ADD, efd, Event{Events: EPOLLIN}); errno != abi.ENOSPC {
		t.Fatalf("ADD beyond MaxWatches = %d, want ENOSPC", errno)
	}
	tb.Close(eps[2])
	checkInvariants(t, &tb)
	if errno := tb.EpollCtl(eps[0], EPOLL_CTL_ADD, efd, Event{Events: EPOLLIN}); errno != 0 {
		t.Fatalf("ADD after freeing = %d", errno)
	}
	checkInvariants(t, &tb)
}

func TestCloseDropsWatches(t *testing.T) {
	var tb Table
	tb.Init()
	ep1, _ := tb.EpollCreate(0)
	ep2, _ := tb.EpollCreate(0)
	efd, _ := tb.Eventfd(1, 0)
	tb.EpollCtl(ep1, EPOLL_CTL_ADD, efd, Event{EPOLLIN, 1})
	tb.EpollCtl(ep2, EPOLL_CTL_ADD, efd, Event{EPOLLIN, 2})
	if _, errno := tb.Close(efd); errno != 0 {
		t.Fatalf("Close = %d", errno)
	}
	checkInvariants(t, &tb)
	if got := ready(t, &tb, ep1, 4); len(got) != 0 {
		t.Fatalf("event from a closed fd: %+v", got)
	}
	// The number is reused by a new eventfd, which nobody watches.
	if fd, _ := tb.Eventfd(1, 0); fd != efd {
		t.Fatalf("reused fd %d, want %d", fd, efd)
	}
	if got := ready(t, &tb, ep2, 4); len(got) != 0 {
		t.Fatalf("event from the reused fd: %+v", got)
	}
	if errno := tb.EpollCtl(ep1, EPOLL_CTL_DEL, efd, Event{}); errno != abi.ENOENT {
		t.Fatalf("DEL after close = %d", errno)
	}
	if n := tb.Watchers(efd, make([]int32, 4)); n != 0 {
		t.Fatalf("Watchers of the new fd = %d", n)
	}
}
