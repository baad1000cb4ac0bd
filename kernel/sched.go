package kernel

import (
	"github.com/unitrace/unitrace/kernel/timerq"
	"github.com/unitrace/unitrace/trace"
)

// The scheduler: one FIFO run queue for all CPUs, round-robin with a time quantum, driven by
// each CPU's timer tick and by blocking system calls. Every function here runs under the kernel
// lock (lock.go), so the queue, the sleepers and the threads' states change one CPU at a time.
//
// One global queue rather than per-CPU queues with balancing: with the kernel lock taken on
// every kernel entry anyway, a per-CPU queue would save no locking, and a global queue balances
// by construction (any idle CPU takes the oldest runnable thread it may run). The SMP
// throughput benchmark (docs/smp.md) measures what it costs.

const quantum = 10_000_000 // ns

var (
	runq     [maxThreads]int32 // runnable threads, oldest first
	runqLen  int
	sleepers timerq.Queue
	woken    [maxThreads]int32 // scratch for wake-ups

	exitedCPUNanos int64 // CPU time of threads that have exited, for CLOCK_PROCESS_CPUTIME_ID
)

// threadCPUNanos is the CPU time the running thread has used.
func threadCPUNanos() int64 {
	t := cur()
	return t.cpuNanos + nanotime() - t.runStart
}

// processCPUNanos is the CPU time all of the program's threads have used, including the time
// of those running on other CPUs now.
func processCPUNanos() int64 {
	sum := exitedCPUNanos
	now := nanotime()
	for i := int32(firstThreadSlot); i < maxThreads; i++ {
		t := &threads[i]
		if t.state == threadFree {
			continue
		}
		sum += t.cpuNanos
		if t.state == threadRunning {
			sum += now - t.runStart
		}
	}
	return sum
}

// enqueue makes slot runnable at the back of the queue, and wakes an idle CPU that may run it.
func enqueue(slot int32) {
	t := &threads[slot]
	t.state = threadRunnable
	t.queuedAt = nanotime()
	if runqLen < len(runq) {
		runq[runqLen] = slot
		runqLen++
	}
	kickIdleCPU(t.affinity)
}

// dequeueFor takes the oldest runnable thread that may run on cpu off the queue.
func dequeueFor(cpu int) (int32, bool) {
	bit := uint64(1) << uint(cpu)
	for i := 0; i < runqLen; i++ {
		s := runq[i]
		if threads[s].affinity&bit == 0 {
			continue
		}
		copy(runq[i:runqLen-1], runq[i+1:runqLen])
		runqLen--
		return s, true
	}
	return 0, false
}

// runnableFor reports whether a thread in the queue may run on cpu.
func runnableFor(cpu int) bool {
	bit := uint64(1) << uint(cpu)
	for i := 0; i < runqLen; i++ {
		if threads[runq[i]].affinity&bit != 0 {
			return true
		}
	}
	return false
}

// switchTo saves the running thread's context from f and loads next's into f: returning from the
// trap then resumes next on this CPU.
func switchTo(f *Frame, next int32) {
	c := here()
	if next == c.cur {
		threads[next].state = threadRunning
		return
	}
	now := nanotime()
	prev := &threads[c.cur]
	prev.frame = *f
	prev.cpuNanos += now - prev.runStart
	if !isIdleSlot(c.cur) && prev.state == threadFree {
		exitedCPUNanos += prev.cpuNanos
	}
	tpSchedSwitch.Emit2(uint64(prev.tid), uint64(threads[next].tid))
	*f = threads[next].frame
	c.cur = next
	c.switches.Add(1)
	cpu := cpuIndex()
	trace.SetThread(cpu, uint32(threads[next].tid))
	t := &threads[next]
	t.state = threadRunning
	t.runStart = now
	t.cpu = int32(cpu)
	if t.wait != waitNone {
		completeWait(f, next)
	}
}

// schedule picks the next thread to run on this CPU after the current one stopped running
// (blocked, exited, or was preempted and queued), and switches f to it. With nothing runnable
// here it runs this CPU's idle thread.
func schedule(f *Frame) {
	cpu := cpuIndex()
	for {
		next, ok := dequeueFor(cpu)
		if !ok {
			switchTo(f, int32(cpu))
			return
		}
		if threads[next].state != threadRunnable {
			continue // exited while queued
		}
		switchTo(f, next)
		if threads[next].state == threadRunning {
			return
		}
		// completeWait put it back to sleep (a spurious wake-up): pick again.
	}
}

// block stops the running thread until wake, and runs another. It records the kernel's path
// that reached it, for the stacks snapshot (not inlined, so that the path starts at its caller).
//
//go:noinline
func block(f *Frame, kind waitKind) {
	t := cur()
	t.nkpath = int32(trace.CallerPath(t.kpath[:]))
	t.state = threadBlocked
	t.wait = kind
	t.timedOut = false
	schedule(f)
}

// rearm blocks the thread in slot again after a wake-up that did not satisfy its wait (a
// spurious wake-up): back on its wait key and its deadline, if it had one.
func rearm(slot int32, key uintptr) {
	t := &threads[slot]
	t.state = threadBlocked
	futexes.Enqueue(key, slot)
	if t.deadline != 0 {
		sleepers.Add(slot, t.deadline)
	}
}

// wake makes a blocked thread runnable; its system call completes when it next runs.
func wake(slot int32, timedOut bool) {
	t := &threads[slot]
	if t.state != threadBlocked {
		return
	}
	t.timedOut = timedOut
	sleepers.Remove(slot)
	futexes.Remove(slot)
	enqueue(slot)
}

// yield puts the running thread at the back of the run queue if anything else can run here.
func yield(f *Frame) {
	if !runnableFor(cpuIndex()) {
		return
	}
	if !onIdle() {
		enqueue(curSlot()) // switchTo saves its context from f
	}
	schedule(f)
}

// tick runs on every timer tick of every CPU, before the kernel lock: it reports whether the
// tick has work under the lock (tickLocked). Most ticks have none, and take no lock: the lock
// is the one thing CPUs contend for.
func tick(f *Frame) (needsLock bool) {
	tpTimerTick.Emit1(uint64(schedHints.runnable.Load()))
	return tickNeedsLock()
}

// tickLocked wakes expired sleepers, then preempts this CPU's thread if its quantum is used up
// (a SCHED_FIFO thread keeps its CPU), or leaves idle if something it may run became runnable.
func tickLocked(f *Frame) {
	watchdogScan()
	now := nanotime()
	n := sleepers.Expired(now, woken[:])
	for i := 0; i < n; i++ {
		wake(woken[i], true)
	}
	if runqLen == 0 {
		return
	}
	if onIdle() || (!cur().fifo && now-cur().runStart >= quantum) {
		yield(f)
	}
}

// sleepUntil arms a deadline for the running thread; when it passes, the thread is woken with
// timedOut set.
func sleepUntil(deadline int64) { sleepers.Add(curSlot(), deadline) }

// leaveIdle runs at the end of every kernel entry: a CPU on its idle thread takes a thread that
// became runnable meanwhile (woken by this entry, or by another CPU's kick).
func leaveIdle(f *Frame) {
	if onIdle() && runnableFor(cpuIndex()) {
		schedule(f)
	}
}

// kickIdleCPU wakes one idle CPU, other than this one, that may run a thread with affinity
// mask: it takes the thread at the end of the IPI's kernel entry (leaveIdle).
func kickIdleCPU(mask uint64) {
	me := cpuIndex()
	if onIdle() && mask&(1<<uint(me)) != 0 {
		return // this CPU takes it when the current kernel entry ends
	}
	for c := 0; c < numCPUs; c++ {
		l := &cpuLocals[c]
		if c == me || mask&(1<<uint(c)) == 0 || !l.online.Load() || !isIdleSlot(l.cur) {
			continue
		}
		if kickCPU(c) {
			return
		} // else a kick is on its way there already: try another
	}
}

// allCPUs is the affinity mask of every CPU the kernel runs.
func allCPUs() uint64 { return 1<<uint(numCPUs) - 1 }
