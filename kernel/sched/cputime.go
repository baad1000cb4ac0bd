package sched

// CPU time: a thread's runs add up between Next switching a CPU to it and Next switching the CPU
// away; idle threads' time is not counted. Within that, its system time is the part its CPU
// spent inside kernel entries, and user time is the rest.
//
// The kernel entries are not timed here: each CPU's entry stubs keep its kernel clock (the
// KernelClock the kernel passes in), the time the CPU has spent inside kernel entries since boot,
// the entry it is in included, whatever it ran. A run's system time is how far the clock of its
// CPU moved during the run: Next notes the clock when a run starts (the CPU's sysBase) and charges
// the difference when it ends. So an entry or exit costs the scheduler nothing, and the idle
// threads' entries (interrupts that wake a CPU) are charged to nobody.
//
// The process's sums are kept without a pass over the threads, so a tick can read them: the
// CPU time and system time of finished runs (doneNanos, doneSys, under the kernel lock) plus each
// CPU's current run.

// KernelClock reads CPU c's kernel clock at now (both in ns): the time c has spent inside kernel
// entries up to now, the one it is in included. It must never go back, and never move faster
// than now. The calls that charge or report system time take one; nil counts no time as system
// time.
type KernelClock func(c int, now int64) int64

// cpuClock is one CPU's system-time bookkeeping.
type cpuClock struct {
	// sysBase is the CPU's kernel clock when its current thread started to run there.
	sysBase int64
}

// read is k's reading of CPU c at now, or 0 without one.
func (k KernelClock) read(c int, now int64) int64 {
	if k == nil {
		return 0
	}
	return k(c, now)
}

// stopRun ends the run of prev, which a CPU switched away from at now.
func (s *Scheduler) stopRun(prev int32, now int64) {
	t := &s.threads[prev]
	t.cpuNanos += now - t.runStart
	s.doneNanos += now - t.runStart
}

// switchKernelTime charges prev, the thread CPU c switches away from at now, with the kernel time
// of its run, and starts next's run from the clock's reading.
func (s *Scheduler) switchKernelTime(c int, prev int32, now int64, clock KernelClock) {
	k := clock.read(c, now)
	if isThread(prev) {
		d := k - s.clocks[c].sysBase
		s.threads[prev].sysNanos += d
		s.doneSys += d
	}
	s.clocks[c].sysBase = k
}

// runSystem is the system time of the current run on CPU c up to now.
func (s *Scheduler) runSystem(c int, now int64, clock KernelClock) int64 {
	return clock.read(c, now) - s.clocks[c].sysBase
}

// Times is slot's CPU time up to now, its current run included, and the system part of it by
// clock.
func (s *Scheduler) Times(slot int32, now int64, clock KernelClock) (total, system int64) {
	if !isThread(slot) {
		return 0, 0
	}
	t := &s.threads[slot]
	total, system = t.cpuNanos, t.sysNanos
	if t.state == Running {
		total += now - t.runStart
		system += s.runSystem(int(t.cpu), now, clock)
	}
	return total, min(system, total)
}

// CPUTime is the CPU time slot has used up to now, its current run included. It reads no
// kernel clock: the ticks ask it for the CPU-time timers.
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

// ProcessTimes is the CPU time every program thread has used up to now, the exited ones' and the
// current runs on every CPU included, and the system part of it by clock.
func (s *Scheduler) ProcessTimes(now int64, clock KernelClock) (total, system int64) {
	total, system = s.doneNanos, s.doneSys
	for c := range s.running {
		if slot := s.running[c]; isThread(slot) && s.threads[slot].state == Running {
			total += now - s.threads[slot].runStart
			system += s.runSystem(c, now, clock)
		}
	}
	return total, min(system, total)
}

// ProcessCPUTime is the CPU time every program thread has used up to now. It reads no kernel
// clock.
func (s *Scheduler) ProcessCPUTime(now int64) int64 {
	total := s.doneNanos
	for c := range s.running {
		if slot := s.running[c]; isThread(slot) && s.threads[slot].state == Running {
			total += now - s.threads[slot].runStart
		}
	}
	return total
}
