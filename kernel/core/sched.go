package core

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
	Scheduler sched.Scheduler
	Sleepers  timerq.Queue
	Woken     [MaxThreads]int32 // scratch for wake-ups
)

// Enqueue makes slot runnable at the back of the queue (a blocked or new thread, or the running
// one giving its CPU up), and wakes an idle CPU that may run it.
func Enqueue(slot int32) {
	Scheduler.Ready(slot, machine.Nanotime())
	kickIdleCPU(slot)
}

// switchTo saves the context of prev, the thread this CPU ran, from f and loads that of next,
// the one the policy switched it to, into f: returning from the trap then resumes next on this
// CPU. It is not inlined: sched_switch's backtrace starts here.
//
//go:noinline
func switchTo(f *machine.Frame, prev, next int32) {
	Threads[prev].Frame = *f
	machine.SaveFPU(&Threads[prev].Frame)
	tp.SchedSwitch.Emit2(uint64(Threads[prev].Tid), uint64(Threads[next].Tid))
	t := &Threads[next]
	*f = t.Frame
	machine.LoadFPU(f)
	Here().switches.Add(1)
	trace.SetThread(machine.CPUIndex(), uint32(t.Tid))
	if t.Wait != WaitNone {
		completeWait(f, next)
	}
}

// Schedule switches this CPU, in f, to the thread it runs next, after the current one stopped
// running (blocked, exited, or was preempted and queued). With nothing runnable here it runs
// this CPU's idle thread.
func Schedule(f *machine.Frame) {
	cpu := machine.CPUIndex()
	for {
		prev, next := Scheduler.Next(cpu, machine.Nanotime(), KernelClock)
		if next == prev {
			return // it takes back the thread that gave it up, or stays idle
		}
		CheckHeldOffTick(prev) // a tick that fell due in its kernel time: as if it had come then
		switchTo(f, prev, next)
		if Scheduler.State(next) == sched.Running {
			return
		}
		// completeWait put it back to sleep (a spurious wake-up): pick again.
	}
}

// Block stops the running thread until wake, and runs another. It records the kernel's path
// that reached it, for the stacks snapshot (not inlined, so that the path starts at its caller).
//
//go:noinline
func Block(f *machine.Frame, kind WaitKind) {
	t := Cur()
	t.NKPath = int32(unwind.CallerPath(t.KPath[:]))
	NoteBlocked(t)
	Scheduler.Block(CurSlot())
	t.Wait = kind
	t.TimedOut = false
	Schedule(f)
}

// Rearm blocks the thread in slot again after a wake-up that did not satisfy its wait (a
// spurious wake-up): back on its wait key and its deadline, if it had one.
func Rearm(slot int32, key uintptr) {
	t := &Threads[slot]
	NoteBlocked(t) // a new wait: the wake-up that did not satisfy it ended the last
	Scheduler.Block(slot)
	Waiters.Enqueue(key, slot)
	if t.Deadline != 0 {
		Sleepers.Add(slot, t.wakeAt)
	}
}

// Wake makes a blocked thread runnable; its system call completes when it next runs.
func Wake(slot int32, timedOut bool) {
	if Scheduler.State(slot) != sched.Blocked {
		return
	}
	if WakersOn {
		WakeHook.Get()(slot, timedOut)
	}
	Threads[slot].TimedOut = timedOut
	Sleepers.Remove(slot)
	Waiters.Remove(slot)
	Enqueue(slot)
}

// Yield puts the running thread at the back of the run queue if anything else can run here.
func Yield(f *machine.Frame) {
	if !Scheduler.RunnableFor(machine.CPUIndex()) {
		return
	}
	if !OnIdle() {
		Enqueue(CurSlot()) // switchTo saves its context from f
	}
	Schedule(f)
}

// SleepUntil arms a deadline for the running thread: the thread is woken with timedOut set
// once deadline plus slack has passed (timer.go says which calls have slack).
func SleepUntil(deadline, slack int64) {
	t := Cur()
	t.wakeAt = deadline + slack
	Sleepers.Add(CurSlot(), t.wakeAt)
}

// LeaveIdle runs at the end of every kernel entry: a CPU on its idle thread takes a thread that
// became runnable meanwhile (woken by this entry, or by another CPU's kick).
func LeaveIdle(f *machine.Frame) {
	if OnIdle() && Scheduler.RunnableFor(machine.CPUIndex()) {
		Schedule(f)
	}
}

// kickIdleCPU wakes one idle CPU, other than this one, that may run the runnable thread slot:
// it takes the thread at the end of the IPI's kernel entry (LeaveIdle).
func kickIdleCPU(slot int32) {
	idle := Scheduler.IdleFor(slot, machine.CPUIndex())
	for c := 0; c < NumCPUs; c++ {
		if idle&(1<<uint(c)) == 0 || !CPULocals[c].Online.Load() {
			continue
		}
		if KickCPU(c) {
			return
		} // else a kick is on its way there already: try another
	}
}

// KickTicklessCPUs kicks every other CPU that runs a thread with its tick stopped, after a
// CPU-time timer was armed: that thread may be the one the timer measures. An idle CPU needs no
// tick for it.
func KickTicklessCPUs() {
	for c := 0; c < NumCPUs; c++ {
		if CPULocals[c].TickStopped.Load() && CPULocals[c].Online.Load() && !IsIdleSlot(Scheduler.Current(c)) {
			KickCPU(c)
		}
	}
}

// KickForRunnable kicks the CPUs, other than this one, that have stopped their tick while a
// queued thread may run there (the hints just published): at the end of the kick's entry each
// restarts its tick, and the quantum then shares the CPU. When there are at least as many idle
// CPUs that the queued threads may run on as queued threads, those take them (kickIdleCPU), and
// none is kicked: a kick would cost a timer write to restart a tick for a period. Publishing the
// hints before looking at TickStopped, as UpdateTick stores TickStopped before it looks at the
// hints, means that one of the two sees the other.
func KickForRunnable() {
	on := SchedHints.RunnableOn.Load()
	if on == 0 {
		return
	}
	me := machine.CPUIndex()
	idle := 0
	for c := 0; c < NumCPUs; c++ {
		if on&(1<<uint(c)) != 0 && IsIdleSlot(Scheduler.Current(c)) {
			idle++
		}
	}
	if idle >= Scheduler.Queued() {
		return
	}
	for c := 0; c < NumCPUs; c++ {
		if c != me && on&(1<<uint(c)) != 0 && CPULocals[c].TickStopped.Load() {
			KickCPU(c)
		}
	}
}
