package sched

// Ready puts slot at the back of the run queue: a blocked thread woken (or a new one started),
// or a running one giving up its CPU, which stays that CPU's current thread until its Next. It
// reports false, changing nothing, for a thread in neither state.
func (s *Scheduler) Ready(slot int32, now int64) bool {
	if !isThread(slot) {
		return false
	}
	t := &s.threads[slot]
	if t.state != Blocked && t.state != Running {
		return false
	}
	t.state = Runnable
	t.queuedAt = now
	s.queue.push(slot)
	return true
}

// Block stops the running thread slot until a Ready wakes it; it stays its CPU's current
// thread until that CPU's Next. It reports false, changing nothing, if slot is not running.
func (s *Scheduler) Block(slot int32) bool {
	if !isThread(slot) || s.threads[slot].state != Running {
		return false
	}
	s.threads[slot].state = Blocked
	return true
}

// Next switches CPU c, whose current thread stopped running (it blocked, exited, or gave its
// CPU up with Ready), to the thread it runs next, from now on: the oldest runnable thread that
// may run on c, or else c's idle thread. It returns the current thread before and after; they
// are the same when c takes back the thread that gave it up, or stays idle, and then nothing
// changes but that thread's state. A current thread that is still running keeps c, and an
// invalid c returns -1, -1. clock is the CPUs' kernel clock, which the switch charges prev's
// system time by.
func (s *Scheduler) Next(c int, now int64, clock KernelClock) (prev, next int32) {
	if !s.isCPU(c) {
		return -1, -1
	}
	prev = s.Current(c)
	if isThread(prev) && s.threads[prev].state == Running {
		return prev, prev
	}
	next = int32(c)
	if i := s.oldestFor(c); i >= 0 {
		next = s.queue.slots[i]
		s.queue.removeAt(i)
	}
	if next == prev {
		if isThread(next) {
			s.threads[next].state = Running // its run goes on: the same quantum, no CPU time counted
		}
		return prev, next
	}
	if isThread(prev) {
		s.stopRun(prev, now)
	}
	s.switchKernelTime(c, prev, now, clock)
	s.running[c] = next
	if isThread(next) {
		t := &s.threads[next]
		t.state = Running
		t.cpu = int32(c)
		t.runStart = now
	}
	return prev, next
}
