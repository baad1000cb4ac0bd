package fd

import "github.com/unitrace/unitrace/kernel/abi"

// Readiness follows Linux's eventpoll design: an epoll instance keeps a
// ready list of the watches that had an event since they were last
// reported. Writing or reading an eventfd is an event (EPOLLIN or EPOLLOUT)
// that queues the interested watches; EpollReady takes watches off the list,
// re-polls each target, reports the ones with events, and queues
// level-triggered ones again at the tail so a small out buffer rotates
// through them. Edge-triggered watches are not queued again until the next
// event; a one-shot watch is disabled until EPOLL_CTL_MOD re-arms it.

// queue appends a watch to its epoll's ready list.
func (t *Table) queue(r ref) {
	w := t.w(r)
	w.ready = true
	t.pushBack(&t.files[w.epfd].ready, r, onReady)
}

// notify is an event on fd whose kind is key (EPOLLIN, EPOLLOUT): every
// enabled watch of fd that wants it is queued, and each epoll instance that
// queued one is itself an event (EPOLLIN) for the instances watching it.
func (t *Table) notify(fd int, key uint32) {
	t.newGen()
	t.notifyWalk(fd, key, 0)
}

func (t *Table) notifyWalk(fd int, key uint32, depth int) {
	if depth > maxNests || t.markGen[fd] == t.gen {
		return // each instance is woken once per event
	}
	t.markGen[fd] = t.gen
	for r := t.files[fd].watchers.head; r != none; r = t.w(r).link[onTarget].next {
		w := t.w(r)
		if w.events&^privateBits == 0 || w.events&key == 0 {
			continue // a fired one-shot watch, or not interested
		}
		if !w.ready {
			t.queue(r)
		}
		t.notifyWalk(int(w.epfd), EPOLLIN, depth+1)
	}
}

// poll is fd's current readiness (an epoll instance is readable when one of
// its queued watches has events). Results for epoll instances are memoised
// for the current generation: nothing a walk does changes the readiness of
// an instance below the one being walked.
func (t *Table) poll(fd int, depth int) uint32 {
	f := &t.files[fd]
	switch f.kind {
	case KindConsole:
		return consolePoll(t.consoleIn)
	case KindEventfd:
		return eventfdPoll(f.count)
	case KindPipe:
		return t.pipePoll(f)
	case KindSocket:
		return t.sockets[f.desc%MaxSockets].ready
	case KindPair:
		return t.pairPoll(f)
	case KindTimerfd:
		return timerfdPoll(f.count)
	case KindEpoll:
		if depth > maxNests+1 {
			return 0
		}
		if t.pollGen[fd] == t.gen {
			return t.pollVal[fd]
		}
		var ev uint32
		for r := f.ready.head; r != none; r = t.w(r).link[onReady].next {
			w := t.w(r)
			if t.poll(int(w.fd), depth+1)&w.events != 0 {
				ev = EPOLLIN | EPOLLRDNORM
				break
			}
		}
		t.pollGen[fd], t.pollVal[fd] = t.gen, ev
		return ev
	}
	return 0
}

// EpollReady is the non-blocking half of epoll_wait(epfd, out, len(out)): it
// fills out with the events ready now and returns how many. Zero means
// nothing is ready: the caller sleeps (with its timeout) until a waiter of
// epfd is woken, and calls again. len(out) == 0 is EINVAL (maxevents <= 0);
// then EBADF for a closed epfd and EINVAL for one that is not an epoll.
func (t *Table) EpollReady(epfd int, out []Event) (n int, errno int) {
	if len(out) == 0 {
		return 0, abi.EINVAL
	}
	if !t.isOpen(epfd) {
		return 0, abi.EBADF
	}
	ep := &t.files[epfd]
	if ep.kind != KindEpoll {
		return 0, abi.EINVAL
	}
	t.newGen()
	// Only the watches queued now are candidates; the ones queued again
	// below go behind them and wait for the next call.
	for todo := ep.ready.n; todo > 0 && n < len(out); todo-- {
		r := ep.ready.head
		w := t.w(r)
		t.unlink(&ep.ready, r, onReady)
		w.ready = false
		revents := t.poll(int(w.fd), 1) & w.events
		if revents == 0 {
			continue
		}
		out[n] = Event{Events: revents, Data: w.data}
		n++
		switch {
		case w.events&EPOLLONESHOT != 0:
			w.events &= privateBits
		case w.events&EPOLLET == 0:
			t.queue(r)
		}
	}
	return n, 0
}

// Watchers writes to out the epoll instances that watch fd, directly or
// through other instances, each once, and returns how many. After an event
// on fd the caller wakes the threads waiting on each of them. With
// len(out) >= MaxFDs none is ever left out.
func (t *Table) Watchers(fd int, out []int32) int {
	if !t.isOpen(fd) {
		return 0
	}
	t.newGen()
	t.markGen[fd] = t.gen
	n := t.appendWatchers(fd, out, 0)
	for i := 0; i < n; i++ { // breadth first, with out as the queue
		n = t.appendWatchers(int(out[i]), out, n)
	}
	return n
}

// appendWatchers adds to out[n:] the unmarked epoll instances that watch fd
// directly, marking them, and returns the new length.
func (t *Table) appendWatchers(fd int, out []int32, n int) int {
	for r := t.files[fd].watchers.head; r != none && n < len(out); r = t.w(r).link[onTarget].next {
		ep := int(t.w(r).epfd)
		if t.markGen[ep] != t.gen {
			t.markGen[ep] = t.gen
			out[n] = int32(ep)
			n++
		}
	}
	return n
}
