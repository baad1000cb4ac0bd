package sched

// CPU time: a thread's runs add up between Next switching a CPU to it and Next switching the CPU
// away. Idle threads' time is not counted.

// stopRun ends the run of prev, which a CPU switched away from at now.
func (s *Scheduler) stopRun(prev int32, now int64) {
	t := &s.threads[prev]
	t.cpuNanos += now - t.runStart
	if t.state == Free {
		s.exitedNanos += t.cpuNanos
	}
}

// CPUTime is the CPU time slot has used up to now, its current run included.
func (s *Scheduler) CPUTime(slot int32, now int64) int64 {
	if !isThread(slot) {
		return 0
	}
	t := &s.threads[slot]
	if t.state == Running {
		return t.cpuNanos + now - t.runStart
	}
	return t.cpuNanos
}

// ProcessCPUTime is the CPU time every program thread has used up to now, the exited ones' and
// the current runs on every CPU included.
func (s *Scheduler) ProcessCPUTime(now int64) int64 {
	sum := s.exitedNanos
	for slot := int32(FirstThread); slot < MaxThreads; slot++ {
		if s.threads[slot].state != Free {
			sum += s.CPUTime(slot, now)
		}
	}
	return sum
}
