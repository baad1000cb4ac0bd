package sched

import "fmt"

// invariants checks the Scheduler's own bookkeeping: the queue holds each runnable thread once
// and nothing else, each CPU runs its idle thread or a program thread that knows it runs
// there, no thread is two CPUs' current one, and every thread may run somewhere. It returns
// what is wrong, or "".
func (s *Scheduler) invariants() string {
	if s.queue.n < 0 || s.queue.n > MaxThreads {
		return fmt.Sprintf("queue length %d", s.queue.n)
	}
	var queued [MaxThreads]bool
	for i := 0; i < s.queue.n; i++ {
		slot := s.queue.slots[i]
		switch {
		case !isThread(slot):
			return fmt.Sprintf("queue[%d] = %d, no program thread", i, slot)
		case queued[slot]:
			return fmt.Sprintf("thread %d queued twice", slot)
		case s.threads[slot].state != Runnable:
			return fmt.Sprintf("queued thread %d is %v", slot, s.threads[slot].state)
		}
		queued[slot] = true
	}
	var currentOf [MaxThreads]int
	for c := 0; c < MaxCPUs; c++ {
		if s.All()&(1<<uint(c)) == 0 {
			continue
		}
		cur := s.running[c]
		switch {
		case IsIdle(cur) && cur != int32(c):
			return fmt.Sprintf("CPU %d runs CPU %d's idle thread", c, cur)
		case IsIdle(cur):
			continue
		case !isThread(cur):
			return fmt.Sprintf("CPU %d runs slot %d", c, cur)
		case s.threads[cur].cpu != int32(c):
			return fmt.Sprintf("CPU %d runs thread %d, which says it is on CPU %d", c, cur, s.threads[cur].cpu)
		case currentOf[cur] != 0:
			return fmt.Sprintf("thread %d is the current thread of CPUs %d and %d", cur, currentOf[cur]-1, c)
		}
		currentOf[cur] = c + 1
	}
	for slot := int32(FirstThread); slot < MaxThreads; slot++ {
		t := &s.threads[slot]
		switch {
		case t.state == Runnable && !queued[slot]:
			return fmt.Sprintf("runnable thread %d is not queued", slot)
		case t.state == Running && currentOf[slot] == 0:
			return fmt.Sprintf("running thread %d is no CPU's current thread", slot)
		case t.state != Free && (t.affinity == 0 || t.affinity&^s.All() != 0):
			return fmt.Sprintf("thread %d may run on %#x, CPUs %#x", slot, t.affinity, s.All())
		}
	}
	return ""
}

func (st State) String() string {
	switch st {
	case Free:
		return "free"
	case Runnable:
		return "runnable"
	case Running:
		return "running"
	case Blocked:
		return "blocked"
	}
	return fmt.Sprintf("State(%d)", uint8(st))
}
