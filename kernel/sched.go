package kernel

import (
	"github.com/unitrace/unitrace/kernel/timerq"
	"github.com/unitrace/unitrace/trace"
)

// The scheduler: round-robin over a FIFO run queue, driven by the timer tick (preemption after a
// quantum) and by blocking system calls. One CPU: the kernel runs with interrupts masked, so
// every kernel operation is atomic without locks.

const quantum = 10_000_000 // ns

var (
	runq     [maxThreads]int32
	runqHead int
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

// processCPUNanos is the CPU time all of the program's threads have used.
func processCPUNanos() int64 {
	sum := exitedCPUNanos
	if curSlot != idleSlot {
		sum += nanotime() - cur().runStart
	}
	for i := int32(1); i < maxThreads; i++ {
		if threads[i].state != threadFree {
			sum += threads[i].cpuNanos
		}
	}
	return sum
}

func enqueue(slot int32) {
	threads[slot].state = threadRunnable
	runq[(runqHead+runqLen)%maxThreads] = slot
	runqLen++
}

func dequeue() (int32, bool) {
	if runqLen == 0 {
		return 0, false
	}
	s := runq[runqHead]
	runqHead = (runqHead + 1) % maxThreads
	runqLen--
	return s, true
}

// switchTo saves the running thread's context from f and loads next's into f: returning from the
// trap then resumes next.
func switchTo(f *Frame, next int32) {
	if next == curSlot {
		threads[next].state = threadRunning
		return
	}
	now := nanotime()
	prev := &threads[curSlot]
	prev.frame = *f
	prev.cpuNanos += now - prev.runStart
	if curSlot != idleSlot && prev.state == threadFree {
		exitedCPUNanos += prev.cpuNanos
	}
	tpSchedSwitch.Emit2(uint64(prev.tid), uint64(threads[next].tid))
	*f = threads[next].frame
	curSlot = next
	trace.SetThread(cpuIndex(), uint32(threads[next].tid))
	t := &threads[next]
	t.state = threadRunning
	t.runStart = now
	if t.wait != waitNone {
		completeWait(f, next)
	}
}

// schedule picks the next thread to run after the current one stopped running (blocked, exited
// or was preempted and queued), and switches f to it. With nothing runnable it runs idle.
func schedule(f *Frame) {
	for {
		next, ok := dequeue()
		if !ok {
			switchTo(f, idleSlot)
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

// block stops the running thread until wake, and runs another.
func block(f *Frame, kind waitKind) {
	t := cur()
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

// yield puts the running thread at the back of the run queue if anything else can run.
func yield(f *Frame) {
	if runqLen == 0 {
		return
	}
	if curSlot != idleSlot {
		enqueue(curSlot) // switchTo saves its context from f
	}
	schedule(f)
}

// tick runs on every timer interrupt: wake expired sleepers, then preempt the running thread if
// its quantum is used up (or if it is idle and something became runnable).
func tick(f *Frame) {
	tpTimerTick.Emit1(uint64(runqLen))
	now := nanotime()
	n := sleepers.Expired(now, woken[:])
	for i := 0; i < n; i++ {
		wake(woken[i], true)
	}
	if runqLen == 0 {
		return
	}
	if curSlot == idleSlot || now-cur().runStart >= quantum {
		yield(f)
	}
}

// sleepUntil arms a deadline for the running thread; when it passes, the thread is woken with
// timedOut set.
func sleepUntil(deadline int64) { sleepers.Add(curSlot, deadline) }
