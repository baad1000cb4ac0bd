package fd

import "testing"

// checkInvariants verifies every intrusive list against the watch fields.
func checkInvariants(t testing.TB, tb *Table) {
	t.Helper()
	inUse := 0
	for fd := range tb.files {
		f := &tb.files[fd]
		if f.kind == KindNone && (f.watchers.n != 0 || f.members.n != 0 || f.ready.n != 0) {
			t.Fatalf("closed fd %d has lists", fd)
		}
		if f.kind != KindEpoll && (f.members.n != 0 || f.ready.n != 0) {
			t.Fatalf("fd %d (%v) has epoll lists", fd, f.kind)
		}
		inUse += int(f.members.n)
		checkList(t, tb, &f.watchers, onTarget, func(w *watch) bool { return int(w.fd) == fd })
		checkList(t, tb, &f.members, inEpoll, func(w *watch) bool { return int(w.epfd) == fd })
		checkList(t, tb, &f.ready, onReady, func(w *watch) bool { return int(w.epfd) == fd && w.ready })
	}
	ready, free := 0, 0
	for r := tb.free; r != none; r = tb.w(r).link[inEpoll].next {
		free++
		if free > MaxWatches {
			t.Fatal("free list loops")
		}
	}
	for i := 0; i < tb.handed; i++ {
		if tb.watches[i].ready {
			ready++
		}
	}
	readyListed := 0
	for fd := range tb.files {
		readyListed += int(tb.files[fd].ready.n)
	}
	if ready != readyListed {
		t.Fatalf("%d watches flagged ready, %d on ready lists", ready, readyListed)
	}
	if inUse+free != tb.handed {
		t.Fatalf("%d in use + %d free != %d handed out", inUse, free, tb.handed)
	}
}

func checkList(t testing.TB, tb *Table, l *list, which int, belongs func(*watch) bool) {
	n := 0
	prev := none
	for r := l.head; r != none; r = tb.w(r).link[which].next {
		w := tb.w(r)
		if w.link[which].prev != prev || !belongs(w) {
			t.Fatalf("list %d: bad watch %d %+v", which, r, *w)
		}
		prev = r
		n++
		if n > MaxWatches {
			t.Fatalf("list %d loops", which)
		}
	}
	if l.tail != prev || int(l.n) != n {
		t.Fatalf("list %d: tail %d/%d, n %d/%d", which, l.tail, prev, l.n, n)
	}
}
