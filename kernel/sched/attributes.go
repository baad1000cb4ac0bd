package sched

// A thread's scheduling attributes: the CPUs it may run on and its class. Both come from system
// calls (sched_setaffinity, sched_setscheduler) and are inherited by clone children (Inherit).

// SetAffinity lets slot run only on the CPUs of mask that the scheduler runs (other bits are
// ignored). It reports false, changing nothing, if that leaves none, or slot is no thread. If
// slot runs on a CPU the new mask excludes, it returns that CPU (the thread must give it up:
// Excluded says so there), else -1.
func (s *Scheduler) SetAffinity(slot int32, mask uint64) (mustLeave int, ok bool) {
	m := mask & s.All()
	if !isThread(slot) || s.threads[slot].state == Free || m == 0 {
		return -1, false
	}
	t := &s.threads[slot]
	t.affinity = m
	if t.state == Running && m&(1<<uint(t.cpu)) == 0 {
		return int(t.cpu), true
	}
	return -1, true
}

// Affinity is the mask of the CPUs slot may run on (0 for no thread).
func (s *Scheduler) Affinity(slot int32) uint64 {
	if !isThread(slot) || s.threads[slot].state == Free {
		return 0
	}
	return s.threads[slot].affinity
}

// SetClass makes slot time-sliced or FIFO. It takes effect at the next tick.
func (s *Scheduler) SetClass(slot int32, c Class) {
	if isThread(slot) && s.threads[slot].state != Free && (c == TimeSliced || c == FIFO) {
		s.threads[slot].class = c
	}
}

// ClassOf is slot's class.
func (s *Scheduler) ClassOf(slot int32) Class {
	if !isThread(slot) {
		return TimeSliced
	}
	return s.threads[slot].class
}
