package fd

// ref names a watch: its index in Table.watches plus one, so the zero value
// means "none" and a zero Table has empty lists.
type ref int16

const none ref = 0

// A watch sits on three intrusive lists at once; these name its links.
const (
	onTarget = iota // the watchers list of the watched descriptor
	inEpoll         // the members list of the owning epoll (or the free list)
	onReady         // the ready list of the owning epoll
	numLists
)

type links struct{ next, prev ref }

// list is the head of an intrusive doubly linked list of watches.
type list struct {
	head, tail ref
	n          int16
}

// watch is one epoll interest: epfd watches fd for events.
type watch struct {
	data   uint64
	events uint32 // as given to epoll_ctl plus EPOLLERR|EPOLLHUP
	epfd   int16
	fd     int16
	ready  bool // on the ready list
	link   [numLists]links
}

func (t *Table) w(r ref) *watch { return &t.watches[r-1] }

func (t *Table) pushBack(l *list, r ref, which int) {
	w := t.w(r)
	w.link[which] = links{next: none, prev: l.tail}
	if l.tail == none {
		l.head = r
	} else {
		t.w(l.tail).link[which].next = r
	}
	l.tail = r
	l.n++
}

func (t *Table) unlink(l *list, r ref, which int) {
	lk := t.w(r).link[which]
	if lk.prev == none {
		l.head = lk.next
	} else {
		t.w(lk.prev).link[which].next = lk.next
	}
	if lk.next == none {
		l.tail = lk.prev
	} else {
		t.w(lk.next).link[which].prev = lk.prev
	}
	t.w(r).link[which] = links{}
	l.n--
}

// find returns epfd's watch of fd, or none.
func (t *Table) find(epfd, fd int) ref {
	for r := t.files[fd].watchers.head; r != none; r = t.w(r).link[onTarget].next {
		if int(t.w(r).epfd) == epfd {
			return r
		}
	}
	return none
}

// newWatch links a new watch of fd into epfd, or returns none if all
// MaxWatches are in use.
func (t *Table) newWatch(epfd, fd int, ev Event) ref {
	r := t.free
	if r != none {
		t.free = t.w(r).link[inEpoll].next
	} else if t.handed < MaxWatches {
		t.handed++
		r = ref(t.handed)
	} else {
		return none
	}
	*t.w(r) = watch{data: ev.Data, events: ev.Events, epfd: int16(epfd), fd: int16(fd)}
	t.pushBack(&t.files[fd].watchers, r, onTarget)
	t.pushBack(&t.files[epfd].members, r, inEpoll)
	return r
}

// removeWatch unlinks a watch from every list and frees it.
func (t *Table) removeWatch(r ref) {
	w := t.w(r)
	if w.ready {
		t.unlink(&t.files[w.epfd].ready, r, onReady)
	}
	t.unlink(&t.files[w.fd].watchers, r, onTarget)
	t.unlink(&t.files[w.epfd].members, r, inEpoll)
	*w = watch{}
	w.link[inEpoll].next = t.free
	t.free = r
}
