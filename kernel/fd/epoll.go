package fd

import "github.com/unitrace/unitrace/kernel/abi"

// Event is struct epoll_event: the event mask and the caller's opaque data.
type Event struct {
	Events uint32
	Data   uint64
}

// EpollCreate implements epoll_create1(flags): a new epoll instance on the
// lowest free descriptor. flags may hold EPOLL_CLOEXEC only, else EINVAL;
// a full table is EMFILE.
func (t *Table) EpollCreate(flags int) (fd int, errno int) {
	if flags&^EPOLL_CLOEXEC != 0 {
		return -1, abi.EINVAL
	}
	fd = t.open(KindEpoll, flags&EPOLL_CLOEXEC != 0, false)
	if fd < 0 {
		return -1, abi.EMFILE
	}
	return fd, 0
}

// EpollCtl implements epoll_ctl(epfd, op, fd, &ev); ev is ignored for
// EPOLL_CTL_DEL. Errors are checked in Linux's order:
//
//	EBADF   epfd or fd is not open
//	EPERM   fd cannot be polled (the console, a file of the file system)
//	EINVAL  epfd is not an epoll instance, or epfd == fd, or EPOLLEXCLUSIVE
//	        is misused (with MOD, with an epoll target, with bits other
//	        than IN/OUT/ERR/HUP/WAKEUP/ET), or op is unknown
//	ELOOP   adding an epoll instance would make a cycle or a chain of more
//	        than five instances
//	EEXIST  ADD of a watched fd;  ENOENT  MOD or DEL of an unwatched fd
//	ENOSPC  all MaxWatches interest entries are in use
//
// EPOLLERR and EPOLLHUP are always watched. EPOLLEXCLUSIVE is accepted but
// wakes every watcher, which its contract ("one or more") allows. An ADD or
// MOD can make epfd ready at once, so after a successful one the caller
// wakes the waiters of epfd and of Watchers(epfd), as Linux's ep_insert and
// ep_modify do.
func (t *Table) EpollCtl(epfd, op, fd int, ev Event) (errno int) {
	if !t.isOpen(epfd) || !t.isOpen(fd) {
		return abi.EBADF
	}
	target := t.files[fd].kind
	if target == KindDevice || target == KindFile {
		return abi.EPERM // no poll method: regular files, directories and /dev's devices on Linux too
	}
	if epfd == fd || t.files[epfd].kind != KindEpoll {
		return abi.EINVAL
	}
	if op != EPOLL_CTL_DEL && ev.Events&EPOLLEXCLUSIVE != 0 {
		if op == EPOLL_CTL_MOD {
			return abi.EINVAL
		}
		if op == EPOLL_CTL_ADD && (target == KindEpoll || ev.Events&^exclusiveOKBits != 0) {
			return abi.EINVAL
		}
	}
	if op == EPOLL_CTL_ADD && target == KindEpoll && t.wouldLoop(epfd, fd) {
		return abi.ELOOP
	}
	r := t.find(epfd, fd)
	switch op {
	case EPOLL_CTL_ADD:
		if r != none {
			return abi.EEXIST
		}
		r = t.newWatch(epfd, fd, Event{ev.Events | EPOLLERR | EPOLLHUP, ev.Data})
		if r == none {
			return abi.ENOSPC
		}
		t.queueIfReady(r)
		return 0
	case EPOLL_CTL_DEL:
		if r == none {
			return abi.ENOENT
		}
		t.removeWatch(r)
		return 0
	case EPOLL_CTL_MOD:
		if r == none {
			return abi.ENOENT
		}
		w := t.w(r)
		if w.events&EPOLLEXCLUSIVE != 0 {
			return abi.EINVAL
		}
		w.events = ev.Events | EPOLLERR | EPOLLHUP
		w.data = ev.Data
		t.queueIfReady(r) // re-arms a fired one-shot watch too
		return 0
	}
	return abi.EINVAL
}

// queueIfReady puts a new or changed watch on its epoll's ready list if its
// target has events for it now, and tells epolls that watch that epoll.
func (t *Table) queueIfReady(r ref) {
	w := t.w(r)
	t.newGen()
	if w.ready || t.poll(int(w.fd), 1)&w.events == 0 {
		return
	}
	t.queue(r)
	t.notify(int(w.epfd), EPOLLIN)
}

// wouldLoop reports whether epfd watching the epoll instance to would make a
// cycle, or a chain of more than maxNests links. Like Linux's
// ep_loop_check, it measures the longest chain below to and the longest
// above epfd, each walk visiting an instance once.
func (t *Table) wouldLoop(epfd, to int) bool {
	t.newGen()
	down := t.depthBelow(to, epfd, 0)
	if down > maxNests {
		return true
	}
	t.newGen()
	return down+1+t.depthAbove(epfd, 0) > maxNests
}

// depthBelow is the longest chain of epoll-watches-epoll links starting at
// fd, or maxNests+1 if the walk reaches avoid (a cycle) or goes too deep.
func (t *Table) depthBelow(fd, avoid, depth int) int {
	if t.markGen[fd] == t.gen {
		return int(t.markDepth[fd])
	}
	result := 0
	for r := t.files[fd].members.head; r != none && result <= maxNests; r = t.w(r).link[inEpoll].next {
		child := int(t.w(r).fd)
		if t.files[child].kind != KindEpoll {
			continue
		}
		if child == avoid || depth >= maxNests {
			result = maxNests + 1
		} else {
			result = max(result, t.depthBelow(child, avoid, depth+1)+1)
		}
	}
	t.markGen[fd], t.markDepth[fd] = t.gen, int8(min(result, maxNests+1))
	return result
}

// depthAbove is the longest chain of epoll instances watching fd, directly
// or through one another. The graph is acyclic, and so at most maxNests
// deep, because every ADD of an epoll passed wouldLoop; the depth guard only
// bounds the recursion should that ever be false.
func (t *Table) depthAbove(fd, depth int) int {
	if t.markGen[fd] == t.gen {
		return int(t.markDepth[fd])
	}
	result := 0
	for r := t.files[fd].watchers.head; r != none; r = t.w(r).link[onTarget].next {
		if depth >= maxNests {
			result = maxNests + 1
			break
		}
		result = max(result, t.depthAbove(int(t.w(r).epfd), depth+1)+1)
	}
	t.markGen[fd], t.markDepth[fd] = t.gen, int8(min(result, maxNests+1))
	return result
}
