package sched

// The questions the kernel asks at its decision points: at the end of every kernel entry (is
// there a thread to take, must the current one move), on every tick (is a switch due), and when
// a thread becomes runnable (which idle CPU to wake for it).

// RunnableFor reports whether CPU c has a runnable thread it may take.
func (s *Scheduler) RunnableFor(c int) bool { return s.isCPU(c) && s.oldestFor(c) >= 0 }

// TickDue reports whether CPU c's tick at now should switch it to a runnable thread: one it may
// take is waiting, and c is idle, or runs a time-sliced thread that has used its quantum. A
// FIFO thread keeps its CPU.
func (s *Scheduler) TickDue(c int, now int64) bool {
	if !s.RunnableFor(c) {
		return false
	}
	cur := s.Current(c)
	if !isThread(cur) {
		return true
	}
	t := &s.threads[cur]
	return t.class == TimeSliced && now-t.runStart >= Quantum
}

// Excluded reports whether CPU c runs a thread whose affinity no longer allows c: the thread
// must give c up (Ready, then Next) and go to a CPU it may run on.
func (s *Scheduler) Excluded(c int) bool {
	if !s.isCPU(c) {
		return false
	}
	cur := s.Current(c)
	return isThread(cur) && s.threads[cur].state == Running && s.threads[cur].affinity&(1<<uint(c)) == 0
}

// IdleFor is the mask of the CPUs, other than me, that run their idle thread and may run the
// runnable thread slot: those worth waking for it. It is empty when me itself is idle and may
// run slot (me takes it when its kernel entry ends).
func (s *Scheduler) IdleFor(slot int32, me int) uint64 {
	if !isThread(slot) {
		return 0
	}
	mask := s.threads[slot].affinity & s.All()
	if s.isCPU(me) && IsIdle(s.running[me]) && mask&(1<<uint(me)) != 0 {
		return 0
	}
	var idle uint64
	for c := 0; c < MaxCPUs; c++ {
		if c != me && mask&(1<<uint(c)) != 0 && IsIdle(s.running[c]) {
			idle |= 1 << uint(c)
		}
	}
	return idle
}
