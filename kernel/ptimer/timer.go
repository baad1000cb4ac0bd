package ptimer

import "github.com/unitrace/unitrace/kernel/timerq"

// MaxTimers is how many POSIX timers the process may have at once: timer_create fails with
// EAGAIN beyond it. Timer ids are 0..MaxTimers-1, as Linux's are small integers from 0.
const MaxTimers = 256

// The interval timers of setitimer, by their Linux numbers (include/uapi/linux/time.h).
const (
	ITimerReal    = 0
	ITimerVirtual = 1
	ITimerProf    = 2
	numITimers    = 3
)

// slots are the table's entries: the POSIX timers' ids, then the interval timers'.
const slots = MaxTimers + numITimers

// ITimerSlot is the table slot of interval timer which.
func ITimerSlot(which int) int { return MaxTimers + which }

// Kind is what a timer's clock measures.
type Kind uint8

const (
	Wall        Kind = iota // monotonic time (CLOCK_REALTIME, MONOTONIC, BOOTTIME; ITIMER_REAL)
	ThreadCPU               // one thread's CPU time (CLOCK_THREAD_CPUTIME_ID and its per-tid form)
	ProcessCPU              // the process's CPU time (CLOCK_PROCESS_CPUTIME_ID; ITIMER_PROF)
	ProcessUser             // the process's user time (ITIMER_VIRTUAL, a per-pid CPUCLOCK_VIRT)
	ThreadUser              // one thread's user time (a per-tid CPUCLOCK_VIRT)
)

// Clock is a timer's clock: its kind, and for a thread's clock which thread (the kernel's slot).
type Clock struct {
	Kind   Kind
	Thread int32
	// Realtime says a Wall clock was named by a realtime id: an absolute time on it is wall
	// time, which the kernel turns into monotonic time.
	Realtime bool
}

// Notify is how a timer's expiry is announced (struct sigevent's sigev_notify,
// include/uapi/asm-generic/siginfo.h).
type Notify int32

const (
	SigevSignal   Notify = 0 // a signal to the process
	SigevNone     Notify = 1 // nothing: the timer only counts
	SigevThread   Notify = 2 // for the kernel the same as SigevSignal (the C library's thread)
	SigevThreadID Notify = 4 // a signal to one thread (sigev_notify_thread_id)
)

// Event is what an expiry does: the signal, to whom, with which sigev_value.
type Event struct {
	Notify Notify
	Signo  int32
	Target int32  // SigevThreadID: the thread's slot
	Value  uint64 // sigev_value, for si_value
}

// Timer is one timer's state.
type Timer struct {
	used   bool
	legacy bool // an interval timer: its signal is a plain one (SI_KERNEL) that coalesces
	Clock  Clock
	Event  Event
	// next is the next expiry not yet counted, on the timer's clock; 0 when disarmed.
	next, interval int64
	// overrun counts the expirations since the one that queued the pending signal; last is
	// the count the last delivered signal carried (timer_getoverrun).
	overrun, last int64
	// queued says the timer's signal is pending on thread queuedOn and not yet delivered.
	queued   bool
	queuedOn int32
}

// Next is the timer's next expiry not yet counted, on its clock, or 0 when it is disarmed.
func (t Timer) Next() int64 { return t.next }

// Table is every timer of the process. The zero value has none, with the interval timers
// disarmed.
type Table struct {
	t [slots]Timer
	// wall holds the armed wall-clock timers' next expiries, by slot.
	wall timerq.Queue
	// cpu has a bit per armed CPU-time timer, so a tick looks at those only.
	cpu [(slots + 63) / 64]uint64
}
