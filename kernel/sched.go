package kernel

import (
	"github.com/unitrace/unitrace/kernel/machine"
	"github.com/unitrace/unitrace/kernel/sched"
	"github.com/unitrace/unitrace/kernel/timerq"
	"github.com/unitrace/unitrace/kernel/tp"
	"github.com/unitrace/unitrace/trace"
	"github.com/unitrace/unitrace/unwind"
)

// The scheduler's glue. What to run where, in what order and when is the policy's
// (kernel/sched); here the kernel carries its decisions out: it switches frames to the thread
// the policy picks, completes the system call a woken thread blocked in, keeps the sleepers'
// deadlines and kicks the CPUs that should look at the run queue. Every function here runs under
// the kernel lock (lock.go), so the policy's state changes one CPU at a time.

var (
	scheduler sched.Scheduler
	sleepers  timerq.Queue
	woken     [maxThreads]int32 // scratch for wake-ups
)

// enqueue makes slot runnable at the back of the queue (a blocked or new thread, or the running
// one giving its CPU up), and wakes an idle CPU that may run it.
func enqueue(slot int32) {
	scheduler.Ready(slot, machine.Nanotime())
	kickIdleCPU(slot)
}

// switchTo saves the context of prev, the thread this CPU ran, from f and loads that of next,
// the one the policy switched it to, into f: returning from the trap then resumes next on this
// CPU. It is not inlined: sched_switch's backtrace starts here.
//
//go:noinline
func switchTo(f *machine.Frame, prev, next int32) {
	threads[prev].frame = *f
	machine.SaveFPU(&threads[prev].frame)
	tp.SchedSwitch.Emit2(uint64(threads[prev].tid), uint64(threads[next].tid))
	t := &threads[next]
	*f = t.frame
	machine.LoadFPU(f)
	here().switches.Add(1)
	trace.SetThread(machine.CPUIndex(), uint32(t.tid))
	if t.wait != waitNone {
		completeWait(f, next)
	}
}

// schedule switches this CPU, in f, to the thread it runs next, after the current one stopped
// running (blocked, exited, or was preempted and queued). With nothing runnable here it runs
// this CPU's idle thread.
func schedule(f *machine.Frame) {
	cpu := machine.CPUIndex()
	for {
		prev, next := scheduler.Next(cpu, machine.Nanotime(), kernelClock)
		if next == prev {
			return // it takes back the thread that gave it up, or stays idle
		}
		checkHeldOffTick(prev) // a tick that fell due in its kernel time: as if it had come then
		switchTo(f, prev, next)
		if scheduler.State(next) == sched.Running {
			return
		}
		// completeWait put it back to sleep (a spurious wake-up): pick again.
	}
}

// block stops the running thread until wake, and runs another. It records the kernel's path
// that reached it, for the stacks snapshot (not inlined, so that the path starts at its caller).
//
//go:noinline
func block(f *machine.Frame, kind waitKind) {
	t := cur()
	t.nkpath = int32(unwind.CallerPath(t.kpath[:]))
	noteBlocked(t)
	scheduler.Block(curSlot())
	t.wait = kind
	t.timedOut = false
	schedule(f)
}

// rearm blocks the thread in slot again after a wake-up that did not satisfy its wait (a
// spurious wake-up): back on its wait key and its deadline, if it had one.
func rearm(slot int32, key uintptr) {
	t := &threads[slot]
	noteBlocked(t) // a new wait: the wake-up that did not satisfy it ended the last
	scheduler.Block(slot)
	futexes.Enqueue(key, slot)
	if t.deadline != 0 {
		sleepers.Add(slot, t.wakeAt)
	}
}

// wake makes a blocked thread runnable; its system call completes when it next runs.
func wake(slot int32, timedOut bool) {
	if scheduler.State(slot) != sched.Blocked {
		return
	}
	if wakersOn {
		wakeHook.get()(slot, timedOut)
	}
	threads[slot].timedOut = timedOut
	sleepers.Remove(slot)
	futexes.Remove(slot)
	enqueue(slot)
}

// yield puts the running thread at the back of the run queue if anything else can run here.
func yield(f *machine.Frame) {
	if !scheduler.RunnableFor(machine.CPUIndex()) {
		return
	}
	if !onIdle() {
		enqueue(curSlot()) // switchTo saves its context from f
	}
	schedule(f)
}

// sleepUntil arms a deadline for the running thread: the thread is woken with timedOut set
// once deadline plus slack has passed (timer.go says which calls have slack).
func sleepUntil(deadline, slack int64) {
	t := cur()
	t.wakeAt = deadline + slack
	sleepers.Add(curSlot(), t.wakeAt)
}

// leaveIdle runs at the end of every kernel entry: a CPU on its idle thread takes a thread that
// became runnable meanwhile (woken by this entry, or by another CPU's kick).
func leaveIdle(f *machine.Frame) {
	if onIdle() && scheduler.RunnableFor(machine.CPUIndex()) {
		schedule(f)
	}
}

// kickIdleCPU wakes one idle CPU, other than this one, that may run the runnable thread slot:
// it takes the thread at the end of the IPI's kernel entry (leaveIdle).
func kickIdleCPU(slot int32) {
	idle := scheduler.IdleFor(slot, machine.CPUIndex())
	for c := 0; c < numCPUs; c++ {
		if idle&(1<<uint(c)) == 0 || !cpuLocals[c].online.Load() {
			continue
		}
		if kickCPU(c) {
			return
		} // else a kick is on its way there already: try another
	}
}
