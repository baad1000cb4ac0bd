package sched

// CPU time: a thread's runs add up between Next switching a CPU to it and Next switching the CPU
// away; idle threads' time is not counted. Within that, its system time is the part spent in
// the kernel: from EnterKernel (every kernel entry the thread takes) or from Next switching to
// it inside an entry, to LeaveKernel or to Next switching away. User time is the rest.
//
// The process's sums are kept without a pass over the threads, so a tick can read them: the
// CPU time of finished runs (doneNanos, under the kernel lock) plus each CPU's current run, and
// the system time each CPU has charged (its sysNanos) plus each CPU's current kernel stretch.
// EnterKernel and LeaveKernel run on every entry and exit, without the kernel lock: they touch
// only the calling CPU's fields and the thread it runs.

// cpuClock is one CPU's system-time bookkeeping.
type cpuClock struct {
	// kernelSince is when the CPU's current program thread entered the kernel, or 0 while it
	// runs outside (or the CPU runs its idle thread).
	kernelSince int64
	// sysNanos is the system time of every kernel stretch that ended on this CPU.
	sysNanos int64
}

// stopRun ends the run of prev, which a CPU switched away from at now.
func (s *Scheduler) stopRun(prev int32, now int64) {
	t := &s.threads[prev]
	t.cpuNanos += now - t.runStart
	s.doneNanos += now - t.runStart
}

// switchKernelTime moves CPU c's kernel stretch from prev to next at now: Next switches threads
// inside a kernel entry, so the stretch goes on for next (if it is a program thread).
func (s *Scheduler) switchKernelTime(c int, prev, next int32, now int64) {
	k := &s.clocks[c]
	if k.kernelSince != 0 && isThread(prev) {
		d := now - k.kernelSince
		s.threads[prev].sysNanos += d
		k.sysNanos += d
	}
	k.kernelSince = 0
	if isThread(next) {
		k.kernelSince = now
	}
}

// EnterKernel records that CPU c's current thread entered the kernel at now (a system call, an
// interrupt, an exception). now must not be 0.
//
//go:nosplit
func (s *Scheduler) EnterKernel(c int, now int64) {
	c &= MaxCPUs - 1
	if isThread(s.running[c]) {
		s.clocks[c].kernelSince = now
	}
}

// LeaveKernel records that CPU c's current thread returns from the kernel at now.
//
//go:nosplit
func (s *Scheduler) LeaveKernel(c int, now int64) {
	c &= MaxCPUs - 1
	k := &s.clocks[c]
	if slot := s.running[c]; k.kernelSince != 0 && isThread(slot) {
		d := now - k.kernelSince
		s.threads[slot].sysNanos += d
		k.sysNanos += d
	}
	k.kernelSince = 0
}

// Times is slot's CPU time up to now, its current run included, and the system part of it.
func (s *Scheduler) Times(slot int32, now int64) (total, system int64) {
	if !isThread(slot) {
		return 0, 0
	}
	t := &s.threads[slot]
	total, system = t.cpuNanos, t.sysNanos
	if t.state == Running {
		total += now - t.runStart
		if k := &s.clocks[t.cpu]; k.kernelSince != 0 {
			system += now - k.kernelSince
		}
	}
	return total, system
}

// CPUTime is the CPU time slot has used up to now, its current run included.
func (s *Scheduler) CPUTime(slot int32, now int64) int64 {
	total, _ := s.Times(slot, now)
	return total
}

// ProcessTimes is the CPU time every program thread has used up to now, the exited ones' and the
// current runs on every CPU included, and the system part of it.
func (s *Scheduler) ProcessTimes(now int64) (total, system int64) {
	total = s.doneNanos
	for c := range s.running {
		k := &s.clocks[c]
		system += k.sysNanos
		if slot := s.running[c]; isThread(slot) && s.threads[slot].state == Running {
			total += now - s.threads[slot].runStart
			if k.kernelSince != 0 {
				system += now - k.kernelSince
			}
		}
	}
	return total, system
}

// ProcessCPUTime is the CPU time every program thread has used up to now.
func (s *Scheduler) ProcessCPUTime(now int64) int64 {
	total, _ := s.ProcessTimes(now)
	return total
}
