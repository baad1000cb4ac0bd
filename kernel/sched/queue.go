package sched

// runQueue holds the runnable threads, oldest first. A CPU takes the oldest one it may run, so
// a thread can leave from the middle: removal shifts the rest down, which for a few hundred
// slots at most is cheaper than keeping links.
type runQueue struct {
	slots [MaxThreads]int32
	n     int
}

// push appends slot. The caller makes sure it is not queued already, so it always fits.
func (q *runQueue) push(slot int32) {
	if q.n < len(q.slots) {
		q.slots[q.n] = slot
		q.n++
	}
}

// removeAt takes the i-th oldest slot out.
func (q *runQueue) removeAt(i int) {
	copy(q.slots[i:q.n-1], q.slots[i+1:q.n])
	q.n--
}

// remove takes slot out, wherever it is.
func (q *runQueue) remove(slot int32) {
	for i := 0; i < q.n; i++ {
		if q.slots[i] == slot {
			q.removeAt(i)
			return
		}
	}
}

// takable reports whether CPU c may take the queued thread slot: its affinity allows c, and no
// other CPU still has it as its current thread (one that gave its CPU up with Ready and whose
// CPU has not called Next yet).
func (s *Scheduler) takable(slot int32, c int) bool {
	t := &s.threads[slot]
	return t.affinity&(1<<uint(c)) != 0 && (t.cpu == int32(c) || !s.onCPU(slot))
}

// oldestFor is the queue position of the oldest thread CPU c may take, or -1.
func (s *Scheduler) oldestFor(c int) int {
	for i := 0; i < s.queue.n; i++ {
		if s.takable(s.queue.slots[i], c) {
			return i
		}
	}
	return -1
}

// Queued is the number of runnable threads.
func (s *Scheduler) Queued() int { return s.queue.n }

// QueuedOn is the mask of the CPUs some runnable thread may run on: the union of their
// affinities.
func (s *Scheduler) QueuedOn() uint64 {
	var on uint64
	for i := 0; i < s.queue.n; i++ {
		on |= s.threads[s.queue.slots[i]].affinity
	}
	return on
}

// Waiting is the runnable thread that has waited longest, and since when; ok is false if none
// is runnable.
func (s *Scheduler) Waiting() (slot int32, since int64, ok bool) {
	oldest := -1
	for i := 0; i < s.queue.n; i++ {
		if oldest < 0 || s.threads[s.queue.slots[i]].queuedAt < s.threads[s.queue.slots[oldest]].queuedAt {
			oldest = i
		}
	}
	if oldest < 0 {
		return 0, 0, false
	}
	slot = s.queue.slots[oldest]
	return slot, s.threads[slot].queuedAt, true
}
