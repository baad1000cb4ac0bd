// Package sched is the kernel's scheduling policy: which thread each CPU runs, which threads wait
// to run and in what order, which CPUs a thread may run on, when a running thread's time is up,
// and how much CPU time each thread has used. The kernel does the rest: it calls the Scheduler
// under its lock, switches contexts to the threads it picks, and kicks the CPUs it names.
//
// One FIFO run queue for all CPUs, round-robin with a time quantum. One global queue rather than
// per-CPU queues with balancing: with the kernel lock taken on every kernel entry anyway, a
// per-CPU queue would save no locking, and a global queue balances by construction (any CPU
// takes the oldest runnable thread it may run).
//
// Threads are slots. Slot n below MaxCPUs is CPU n's idle thread, which that CPU runs when no
// thread may; the program's threads are the slots from FirstThread on. A thread moves between
// the states like this:
//
//	Free --Add--> Blocked --Ready--> Runnable --Next--> Running --Block--> Blocked
//	                                    ^                  |
//	                                    +------Ready-------+      any --Exit--> Free
//
// A thread that stops running (Block, Exit, or Ready to give up its CPU) stays its CPU's current
// thread until that CPU calls Next: the kernel still has its context to save.
//
// The package is kernel-mode Go: a Scheduler holds only integers, never allocates, reads no
// clock (the caller passes the time, in ns) and touches no hardware, and no input makes it
// panic (an invalid slot or CPU changes nothing). It does no locking: the caller serialises all
// calls. Its zero value is a machine of one CPU, on its idle thread, with no threads.
package sched

const (
	// MaxCPUs bounds the CPUs a Scheduler runs: affinity masks have a bit per CPU.
	MaxCPUs = 16
	// MaxThreads is the number of thread slots, idle threads included.
	MaxThreads = 256
	// FirstThread is the first slot of a program thread: slots below it are idle threads.
	FirstThread = MaxCPUs
	// Quantum is how long a time-sliced thread runs before the tick gives its CPU to another
	// (ns).
	Quantum = 10_000_000
)

// State is where a thread is in its life.
type State uint8

const (
	Free     State = iota // no thread in the slot
	Runnable              // in the run queue
	Running               // some CPU's current thread
	Blocked               // waiting for a wake-up (Ready), or created and not yet started
)

// Class says whether a thread is time-sliced.
type Class uint8

const (
	TimeSliced Class = iota // gives its CPU up when its quantum is used and another may run there
	FIFO                    // keeps its CPU until it blocks or yields (SCHED_FIFO)
)

// Scheduler is the whole policy's state.
type Scheduler struct {
	threads [MaxThreads]thread
	// running is the slot of the thread each CPU runs (CPU n's idle thread: slot n).
	running [MaxCPUs]int32
	queue   runQueue
	// others is the mask of the CPUs the scheduler runs besides CPU 0, which it always runs: so
	// the zero value runs one CPU.
	others uint64
	// doneNanos and doneSys are the CPU time and system time of every finished run (cputime.go).
	doneNanos, doneSys int64
	clocks             [MaxCPUs]cpuClock
}

type thread struct {
	state    State
	class    Class
	cpu      int32  // the CPU it runs on, or last ran on; -1 before it first runs
	affinity uint64 // the CPUs it may run on (bit n: CPU n)
	queuedAt int64  // when it last became runnable
	runStart int64  // when it last started running: its quantum and its CPU time
	cpuNanos int64  // CPU time used before runStart
	sysNanos int64  // system time of its finished kernel stretches (cputime.go)
}

// IsIdle reports whether slot is an idle thread's.
func IsIdle(slot int32) bool { return slot >= 0 && slot < FirstThread }

func isThread(slot int32) bool { return slot >= FirstThread && slot < MaxThreads }

func (s *Scheduler) isCPU(c int) bool { return c >= 0 && c < MaxCPUs && s.All()&(1<<uint(c)) != 0 }

// SetCPUs makes the scheduler run CPUs 0..n-1 (n is clamped to 1..MaxCPUs), each on its idle
// thread until it picks another. It is set once, at boot, before the first thread is added: a
// thread's default affinity is every CPU.
func (s *Scheduler) SetCPUs(n int) {
	n = max(1, min(n, MaxCPUs))
	for c := 1; c < n; c++ {
		if s.others&(1<<uint(c)) == 0 {
			s.running[c] = int32(c)
		}
	}
	s.others = (1<<uint(n) - 1) &^ 1
}

// All is the mask of every CPU the scheduler runs.
func (s *Scheduler) All() uint64 { return s.others | 1 }

// Add makes the free slot a new thread: blocked, never run, time-sliced, allowed every CPU,
// with no CPU time used. It reports false, changing nothing, if slot is not free (an exited
// thread's slot is not, until its CPU has switched away from it).
func (s *Scheduler) Add(slot int32) bool {
	if !isThread(slot) || s.threads[slot].state != Free || s.onCPU(slot) {
		return false
	}
	s.threads[slot] = thread{state: Blocked, class: TimeSliced, cpu: -1, affinity: s.All()}
	return true
}

// Inherit gives child parent's affinity and class, as clone does.
func (s *Scheduler) Inherit(child, parent int32) {
	if !isThread(child) || !isThread(parent) || s.threads[child].state == Free || s.threads[parent].state == Free {
		return
	}
	s.threads[child].affinity = s.threads[parent].affinity
	s.threads[child].class = s.threads[parent].class
}

// Exit frees slot. A running thread stays its CPU's current thread until the CPU's Next, which
// counts its last stretch of CPU time into the exited threads'.
func (s *Scheduler) Exit(slot int32) {
	if !isThread(slot) {
		return
	}
	t := &s.threads[slot]
	if t.state == Runnable {
		s.queue.remove(slot)
	}
	t.state = Free
}

// State is slot's state. An idle thread is Running while its CPU runs it, Runnable otherwise
// (and Free if the scheduler does not run its CPU).
func (s *Scheduler) State(slot int32) State {
	switch {
	case isThread(slot):
		return s.threads[slot].state
	case !IsIdle(slot) || !s.isCPU(int(slot)):
		return Free
	case s.running[slot] == slot:
		return Running
	}
	return Runnable
}

// CPU is the CPU slot runs on or last ran on (an idle thread's own), or -1 if it has not run
// yet or is no thread.
func (s *Scheduler) CPU(slot int32) int32 {
	switch {
	case IsIdle(slot) && s.isCPU(int(slot)):
		return slot
	case !isThread(slot) || s.threads[slot].state == Free:
		return -1
	}
	return s.threads[slot].cpu
}

// Current is the slot of the thread CPU c runs (its idle thread's, slot c, if none). The kernel
// asks on nearly every entry, so it is kept cheap enough to inline: it does not check that c is
// a CPU the scheduler runs, and takes c modulo MaxCPUs.
//
//go:nosplit
func (s *Scheduler) Current(c int) int32 { return s.running[c&(MaxCPUs-1)] }

// onCPU reports whether slot, a program thread, is some CPU's current thread.
func (s *Scheduler) onCPU(slot int32) bool {
	c := s.threads[slot].cpu
	return c >= 0 && c < MaxCPUs && s.running[c] == slot
}
