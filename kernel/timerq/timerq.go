// Package timerq keeps the deadlines of sleeping threads (nanosleep, futex
// and epoll timeouts), earliest first, so the tick can wake the expired ones
// and the kernel can program a one-shot timer for the next.
//
// The package is kernel-mode Go: a Queue holds only integers, never
// allocates, and never panics on any input. Its zero value is empty. It does
// no locking: the caller serialises all calls.
package timerq

// Capacity is the number of thread slots: valid tids are 0..Capacity-1, and
// each has at most one deadline.
const Capacity = 512

type entry struct {
	deadline int64
	tid      int32
}

// before orders entries by deadline and, for equal deadlines, by tid, so the
// order of expiry never depends on the history of the heap.
func (a entry) before(b entry) bool {
	return a.deadline < b.deadline || a.deadline == b.deadline && a.tid < b.tid
}

// Queue is a binary min-heap of deadlines with a tid→heap-position index, so
// Add, Remove and a replacing Add are O(log n).
type Queue struct {
	heap [Capacity]entry
	// pos is the heap position of each tid plus one; 0 means no deadline,
	// which keeps the zero Queue valid.
	pos [Capacity]int16
	n   int
}

func validTid(tid int32) bool { return tid >= 0 && tid < Capacity }

// Add sets tid's deadline, replacing any deadline tid already has. It returns
// false, changing nothing, only if tid is not a valid slot.
func (q *Queue) Add(tid int32, deadline int64) bool {
	if !validTid(tid) {
		return false
	}
	if p := int(q.pos[tid]) - 1; p >= 0 {
		q.heap[p].deadline = deadline
		q.fix(p)
		return true
	}
	if q.n >= Capacity { // unreachable: one entry per valid tid
		return false
	}
	q.set(q.n, entry{deadline, tid})
	q.n++
	q.up(q.n - 1)
	return true
}

// Remove drops tid's deadline; it reports whether tid had one.
func (q *Queue) Remove(tid int32) bool {
	if !validTid(tid) || q.pos[tid] == 0 {
		return false
	}
	q.removeAt(int(q.pos[tid]) - 1)
	return true
}

// Expired removes the deadlines that are <= now, earliest first, up to
// len(out) of them, writes their tids to out and returns how many. Deadlines
// that did not fit stay queued for the next call.
func (q *Queue) Expired(now int64, out []int32) int {
	n := 0
	for n < len(out) && q.n > 0 && q.heap[0].deadline <= now {
		out[n] = q.heap[0].tid
		n++
		q.removeAt(0)
	}
	return n
}

// Next reports the earliest deadline, or ok=false if the queue is empty.
func (q *Queue) Next() (deadline int64, ok bool) {
	if q.n == 0 {
		return 0, false
	}
	return q.heap[0].deadline, true
}

// Deadline reports tid's deadline, or ok=false if it has none.
func (q *Queue) Deadline(tid int32) (deadline int64, ok bool) {
	if !validTid(tid) || q.pos[tid] == 0 {
		return 0, false
	}
	return q.heap[q.pos[tid]-1].deadline, true
}

// Len is the number of queued deadlines.
func (q *Queue) Len() int { return q.n }

func (q *Queue) set(i int, e entry) {
	q.heap[i] = e
	q.pos[e.tid] = int16(i + 1)
}

func (q *Queue) removeAt(i int) {
	q.pos[q.heap[i].tid] = 0
	q.n--
	if i == q.n {
		return
	}
	q.set(i, q.heap[q.n])
	q.fix(i)
}

// fix restores the heap order after the entry at i changed.
func (q *Queue) fix(i int) {
	if !q.up(i) {
		q.down(i)
	}
}

// up moves the entry at i towards the root; it reports whether it moved.
func (q *Queue) up(i int) bool {
	e := q.heap[i]
	start := i
	for i > 0 {
		parent := (i - 1) / 2
		if !e.before(q.heap[parent]) {
			break
		}
		q.set(i, q.heap[parent])
		i = parent
	}
	q.set(i, e)
	return i != start
}

func (q *Queue) down(i int) {
	e := q.heap[i]
	for {
		child := 2*i + 1
		if child >= q.n {
			break
		}
		if right := child + 1; right < q.n && q.heap[right].before(q.heap[child]) {
			child = right
		}
		if !q.heap[child].before(e) {
			break
		}
		q.set(i, q.heap[child])
		i = child
	}
	q.set(i, e)
}
