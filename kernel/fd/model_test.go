package fd

import (
	"slices"

	"github.com/unitrace/unitrace/kernel/abi"
)

// The reference model: the same Linux rules written plainly, with pointers,
// slices and maps, and no lists, generations or memoisation.

type mFile struct {
	kind                      Kind
	cloexec, nonblock, semaph bool
	count                     uint64
}

type mWatch struct {
	epfd, fd int
	events   uint32
	data     uint64
}

type model struct {
	files   [MaxFDs]*mFile
	watches []*mWatch         // in order of creation
	ready   map[int][]*mWatch // ready list of each epoll
}

func newModel() *model {
	m := &model{ready: map[int][]*mWatch{}}
	for fd := 0; fd < 3; fd++ {
		m.files[fd] = &mFile{kind: KindConsole}
	}
	return m
}

func (m *model) open(fd int) *mFile {
	if fd < 0 || fd >= MaxFDs {
		return nil
	}
	return m.files[fd]
}

func (m *model) alloc(f *mFile) int {
	for fd := range m.files {
		if m.files[fd] == nil {
			m.files[fd] = f
			return fd
		}
	}
	return -1
}

func (m *model) eventfd(init uint32, flags int) (int, int) {
	if flags&^(EFD_SEMAPHORE|EFD_CLOEXEC|EFD_NONBLOCK) != 0 {
		return -1, abi.EINVAL
	}
	fd := m.alloc(&mFile{kind: KindEventfd, count: uint64(init), cloexec: flags&EFD_CLOEXEC != 0,
		nonblock: flags&EFD_NONBLOCK != 0, semaph: flags&EFD_SEMAPHORE != 0})
	if fd < 0 {
		return -1, abi.EMFILE
	}
	return fd, 0
}

func (m *model) epollCreate(flags int) (int, int) {
	if flags&^EPOLL_CLOEXEC != 0 {
		return -1, abi.EINVAL
	}
	fd := m.alloc(&mFile{kind: KindEpoll, cloexec: flags != 0})
	if fd < 0 {
		return -1, abi.EMFILE
	}
	return fd, 0
}

func (m *model) isReady(w *mWatch) bool { return slices.Contains(m.ready[w.epfd], w) }

func (m *model) poll(fd int) uint32 {
	f := m.files[fd]
	switch f.kind {
	case KindConsole:
		return EPOLLOUT | EPOLLWRNORM // the model's console never has input
	case KindEventfd:
		var ev uint32
		if f.count > 0 {
			ev |= EPOLLIN
		}
		if f.count < 1<<64-2 {
			ev |= EPOLLOUT
		}
		return ev
	case KindEpoll:
		for _, w := range m.ready[fd] {
			if m.poll(w.fd)&w.events != 0 {
				return EPOLLIN | EPOLLRDNORM
			}
		}
	}
	return 0
}

func (m *model) notify(fd int, key uint32, visited map[int]bool) {
	if visited[fd] {
		return
	}
	visited[fd] = true
	for _, w := range slices.Clone(m.watches) {
		if w.fd != fd || w.events&^privateBits == 0 || w.events&key == 0 {
			continue
		}
		if !m.isReady(w) {
			m.ready[w.epfd] = append(m.ready[w.epfd], w)
		}
		m.notify(w.epfd, EPOLLIN, visited)
	}
}

func (m *model) read(fd int) (uint64, int) {
	f := m.open(fd)
	switch {
	case f == nil:
		return 0, abi.EBADF
	case f.kind != KindEventfd:
		return 0, abi.EINVAL
	case f.count == 0:
		return 0, abi.EAGAIN
	}
	v := f.count
	if f.semaph {
		v = 1
	}
	f.count -= v
	m.notify(fd, EPOLLOUT, map[int]bool{})
	return v, 0
}

func (m *model) write(fd int, v uint64) int {
	f := m.open(fd)
	switch {
	case f == nil:
		return abi.EBADF
	case f.kind != KindEventfd, v == 1<<64-1:
		return abi.EINVAL
	case f.count+v < f.count || f.count+v > 1<<64-2:
		return abi.EAGAIN
	}
	f.count += v
	m.notify(fd, EPOLLIN, map[int]bool{})
	return 0
}

func (m *model) find(epfd, fd int) *mWatch {
	for _, w := range m.watches {
		if w.epfd == epfd && w.fd == fd {
			return w
		}
	}
	return nil
}

// longestFrom is the longest path of epoll->epoll edges from fd, or -1 if a
// path from fd runs into a cycle.
func (m *model) longestFrom(fd int, edges [][2]int, onPath map[int]bool) int {
	if onPath[fd] {
		return -1
	}
	onPath[fd] = true
	defer delete(onPath, fd)
	best := 0
	for _, e := range edges {
		if e[0] == fd {
			d := m.longestFrom(e[1], edges, onPath)
			if d < 0 {
				return -1
			}
			best = max(best, d+1)
		}
	}
	return best
}

func (m *model) loops(epfd, fd int) bool {
	edges := [][2]int{{epfd, fd}}
	for _, w := range m.watches {
		if m.files[w.fd].kind == KindEpoll {
			edges = append(edges, [2]int{w.epfd, w.fd})
		}
	}
	for _, e := range edges {
		if d := m.longestFrom(e[0], edges, map[int]bool{}); d < 0 || d > maxNests {
			return true
		}
	}
	return false
}

func (m *model) queueIfReady(w *mWatch) {
	if !m.isReady(w) && m.poll(w.fd)&w.events != 0 {
		m.ready[w.epfd] = append(m.ready[w.epfd], w)
		m.notify(w.epfd, EPOLLIN, map[int]bool{})
	}
}

func (m *model) ctl(epfd, op, fd int, ev Event) int {
	ef, tf := m.open(epfd), m.open(fd)
	if ef == nil || tf == nil {
		return abi.EBADF
	}
	if epfd == fd || ef.kind != KindEpoll {
		return abi.EINVAL
	}
	excl := ev.Events&EPOLLEXCLUSIVE != 0 && op != EPOLL_CTL_DEL
	if excl && op == EPOLL_CTL_MOD {
		return abi.EINVAL
	}
	if excl && op == EPOLL_CTL_ADD && (tf.kind == KindEpoll || ev.Events&^(EPOLLIN|EPOLLOUT|EPOLLERR|EPOLLHUP|EPOLLWAKEUP|EPOLLET|EPOLLEXCLUSIVE) != 0) {
		return abi.EINVAL
	}
	if op == EPOLL_CTL_ADD && tf.kind == KindEpoll && m.loops(epfd, fd) {
		return abi.ELOOP
	}
	w := m.find(epfd, fd)
	switch op {
	case EPOLL_CTL_ADD:
		if w != nil {
			return abi.EEXIST
		}
		if len(m.watches) == MaxWatches {
			return abi.ENOSPC
		}
		w = &mWatch{epfd, fd, ev.Events | EPOLLERR | EPOLLHUP, ev.Data}
		m.watches = append(m.watches, w)
		m.queueIfReady(w)
		return 0
	case EPOLL_CTL_DEL:
		if w == nil {
			return abi.ENOENT
		}
		m.drop(func(x *mWatch) bool { return x == w })
		return 0
	case EPOLL_CTL_MOD:
		if w == nil {
			return abi.ENOENT
		}
		if w.events&EPOLLEXCLUSIVE != 0 {
			return abi.EINVAL
		}
		w.events, w.data = ev.Events|EPOLLERR|EPOLLHUP, ev.Data
		m.queueIfReady(w)
		return 0
	}
	return abi.EINVAL
}

func (m *model) drop(del func(*mWatch) bool) {
	m.watches = slices.DeleteFunc(m.watches, del)
	for ep, l := range m.ready {
		m.ready[ep] = slices.DeleteFunc(l, del)
	}
}

func (m *model) epollReady(epfd, max int) ([]Event, int) {
	f := m.open(epfd)
	switch {
	case max == 0:
		return nil, abi.EINVAL
	case f == nil:
		return nil, abi.EBADF
	case f.kind != KindEpoll:
		return nil, abi.EINVAL
	}
	var out []Event
	for todo := len(m.ready[epfd]); todo > 0 && len(out) < max; todo-- {
		w := m.ready[epfd][0]
		m.ready[epfd] = m.ready[epfd][1:]
		rev := m.poll(w.fd) & w.events
		if rev == 0 {
			continue
		}
		out = append(out, Event{rev, w.data})
		if w.events&EPOLLONESHOT != 0 {
			w.events &= privateBits
		} else if w.events&EPOLLET == 0 {
			m.ready[epfd] = append(m.ready[epfd], w)
		}
	}
	return out, 0
}

func (m *model) watchers(fd int) []int32 {
	if m.open(fd) == nil {
		return nil
	}
	seen := map[int]bool{fd: true}
	var out []int32
	for frontier := []int{fd}; len(frontier) > 0; {
		cur := frontier[0]
		frontier = frontier[1:]
		for _, w := range m.watches {
			if w.fd == cur && !seen[w.epfd] {
				seen[w.epfd] = true
				out = append(out, int32(w.epfd))
				frontier = append(frontier, w.epfd)
			}
		}
	}
	slices.Sort(out)
	return out
}

func (m *model) close(fd int) int {
	if m.open(fd) == nil {
		return abi.EBADF
	}
	m.drop(func(w *mWatch) bool { return w.fd == fd || w.epfd == fd })
	delete(m.ready, fd)
	m.files[fd] = nil
	return 0
}

func (m *model) fcntl(fd, cmd int, arg uintptr) (int, int) {
	f := m.open(fd)
	if f == nil {
		return 0, abi.EBADF
	}
	switch cmd {
	case F_GETFD:
		if f.cloexec {
			return 1, 0
		}
		return 0, 0
	case F_SETFD:
		f.cloexec = arg&1 != 0
		return 0, 0
	case F_GETFL:
		if f.nonblock {
			return O_RDWR | O_NONBLOCK, 0
		}
		return O_RDWR, 0
	case F_SETFL:
		f.nonblock = arg&O_NONBLOCK != 0
		return 0, 0
	}
	return 0, abi.EINVAL
}
