package core

import (
	"github.com/unitrace/unitrace/kernel/filelock"
	"github.com/unitrace/unitrace/kernel/machine"
	"github.com/unitrace/unitrace/kernel/sched"
	"github.com/unitrace/unitrace/kernel/signal"
)

// Threads: every clone() makes one. A thread's context lives in its slot's Frame while it is not
// running; the running thread's context is the Frame on the kernel stack of the current trap.

// MaxThreads is the number of thread slots, the idle threads' included: the scheduler's.
const MaxThreads = sched.MaxThreads

// KernelPathMax bounds a blocked thread's recorded kernel path.
const KernelPathMax = 16

// Thread is what the kernel keeps of a thread besides its scheduling state (which the scheduler
// keeps: runnable, running or blocked, where, on which CPUs, for how long).
type Thread struct {
	Frame machine.Frame // saved context while not running
	Tid   int32
	Gen   uint32 // bumped each time the slot is reused

	Wait      WaitKind
	BlockedAt int64  // when it last blocked (ns), with wake-up records on: how long a wake-up found it blocked
	SysNr     uint64 // the system call the thread is in (for syscall_exit after a wait)
	// kpath is the kernel's path that blocked the thread (return addresses, innermost first:
	// Block's caller, then its callers out to the entry stub), recorded by block. The kernel
	// keeps no stack for a blocked thread, so this is what `stacks` shows above its frames.
	KPath    [KernelPathMax]uint64
	NKPath   int32
	TimedOut bool
	// interrupted says a signal woke the thread from its wait; restarting that its pc was put
	// back on the system call, which runs again unless a handler without SA_RESTART takes the
	// signal (waits.go).
	interrupted, restarting bool
	Deadline                int64 // absolute deadline of the wait (ns), 0 for none
	// noSigpipe: the pipe call in progress is a socket pair's send with MSG_NOSIGNAL.
	NoSigpipe bool
	wakeAt    int64 // when the sleeper queue wakes it: deadline plus the call's slack
	// epoll_pwait / read arguments, to complete the call after a wake-up.
	WaitFD     int32
	WaitAddr   uintptr
	WaitCount  uintptr       // read/write byte count, epoll_pwait maxevents
	WaitOp     uint8         // waitDevice: which port operation to retry (a portOp)
	WaitArg    uint64        // waitDevice: the operation's first argument (trace drain and send); waitPipe: bytes moved so far
	WaitWrite  bool          // waitPipe: a write (else a read)
	WaitVec    bool          // waitPipe, waitConsole: waitAddr and waitCount are an iovec array and its length
	LockWait   filelock.Lock // waitLock: the lock to try again
	ClearChild uintptr       // CLONE_CHILD_CLEARTID: zeroed and futex-woken at exit

	Sig signal.Thread // mask, pending signals, alternate signal stack
	// savedMask is the thread's own signal mask while ppoll or pselect6 waits with another
	// (restoreMask): it comes back when the call returns, or through the frame of the handler
	// the call's return runs (DeliverSignals).
	SavedMask   signal.Set
	RestoreMask bool

	NoNewPrivs bool // prctl PR_SET_NO_NEW_PRIVS: set once, inherited by clone

	Policy   int32 // the sched_setscheduler policy, for sched_getscheduler (the scheduler keeps its class)
	FIFOPrio int32 // its priority (sched_param), 0 for the time-sliced policies
}

// Slots below FirstThreadSlot hold the CPUs' idle threads (slot n: CPU n's).
var (
	Threads [MaxThreads]Thread
	nextTID int32 = 1 // the main thread is tid 1, which is also the pid
	Live    int       // Threads other than idle that have not exited
)

const ProcessID = 1

// NewThread takes a free slot for a thread, blocked until it is enqueued, and gives it a tid, or
// returns -1.
func NewThread() int32 {
	for i := int32(FirstThreadSlot); i < MaxThreads; i++ {
		if !Scheduler.Add(i) {
			continue
		}
		t := &Threads[i]
		gen := t.Gen + 1
		*t = Thread{}
		t.Gen = gen
		t.Tid = nextTID
		nextTID++
		Live++
		return i
	}
	return -1
}

// SlotOfTID finds the live thread with tid, or -1.
func SlotOfTID(tid int32) int32 {
	for i := int32(FirstThreadSlot); i < MaxThreads; i++ {
		if Scheduler.State(i) != sched.Free && Threads[i].Tid == tid {
			return i
		}
	}
	return -1
}

func Cur() *Thread { return &Threads[CurSlot()] }
