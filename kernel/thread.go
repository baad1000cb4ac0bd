package kernel

import (
	"github.com/unitrace/unitrace/kernel/filelock"
	"github.com/unitrace/unitrace/kernel/machine"
	"github.com/unitrace/unitrace/kernel/sched"
	"github.com/unitrace/unitrace/kernel/signal"
)

// Threads: every clone() makes one. A thread's context lives in its slot's Frame while it is not
// running; the running thread's context is the Frame on the kernel stack of the current trap.

// maxThreads is the number of thread slots, the idle threads' included: the scheduler's.
const maxThreads = sched.MaxThreads

// kernelPathMax bounds a blocked thread's recorded kernel path.
const kernelPathMax = 16

// thread is what the kernel keeps of a thread besides its scheduling state (which the scheduler
// keeps: runnable, running or blocked, where, on which CPUs, for how long).
type thread struct {
	frame machine.Frame // saved context while not running
	tid   int32
	gen   uint32 // bumped each time the slot is reused

	wait      waitKind
	blockedAt int64  // when it last blocked (ns), with wake-up records on: how long a wake-up found it blocked
	sysNr     uint64 // the system call the thread is in (for syscall_exit after a wait)
	// kpath is the kernel's path that blocked the thread (return addresses, innermost first:
	// block's caller, then its callers out to the entry stub), recorded by block. The kernel
	// keeps no stack for a blocked thread, so this is what `stacks` shows above its frames.
	kpath    [kernelPathMax]uint64
	nkpath   int32
	timedOut bool
	// interrupted says a signal woke the thread from its wait; restarting that its pc was put
	// back on the system call, which runs again unless a handler without SA_RESTART takes the
	// signal (interrupt.go).
	interrupted, restarting bool
	deadline                int64 // absolute deadline of the wait (ns), 0 for none
	// noSigpipe: the pipe call in progress is a socket pair's send with MSG_NOSIGNAL.
	noSigpipe bool
	wakeAt    int64 // when the sleeper queue wakes it: deadline plus the call's slack
	// epoll_pwait / read arguments, to complete the call after a wake-up.
	waitFD     int32
	waitAddr   uintptr
	waitCount  uintptr       // read/write byte count, epoll_pwait maxevents
	waitOp     uint8         // waitDevice: which port operation to retry (a portOp)
	waitArg    uint64        // waitDevice: the operation's first argument (trace drain and send); waitPipe: bytes moved so far
	waitWrite  bool          // waitPipe: a write (else a read)
	waitVec    bool          // waitPipe, waitConsole: waitAddr and waitCount are an iovec array and its length
	lockWait   filelock.Lock // waitLock: the lock to try again
	clearChild uintptr       // CLONE_CHILD_CLEARTID: zeroed and futex-woken at exit

	sig signal.Thread // mask, pending signals, alternate signal stack
	// savedMask is the thread's own signal mask while ppoll or pselect6 waits with another
	// (restoreMask): it comes back when the call returns, or through the frame of the handler
	// the call's return runs (deliverSignals).
	savedMask   signal.Set
	restoreMask bool

	noNewPrivs bool // prctl PR_SET_NO_NEW_PRIVS: set once, inherited by clone

	policy   int32 // the sched_setscheduler policy, for sched_getscheduler (the scheduler keeps its class)
	fifoPrio int32 // its priority (sched_param), 0 for the time-sliced policies
}

// Slots below firstThreadSlot hold the CPUs' idle threads (slot n: CPU n's).
var (
	threads [maxThreads]thread
	nextTID int32 = 1 // the main thread is tid 1, which is also the pid
	live    int       // threads other than idle that have not exited
)

const processID = 1

// newThread takes a free slot for a thread, blocked until it is enqueued, and gives it a tid, or
// returns -1.
func newThread() int32 {
	for i := int32(firstThreadSlot); i < maxThreads; i++ {
		if !scheduler.Add(i) {
			continue
		}
		t := &threads[i]
		gen := t.gen + 1
		*t = thread{}
		t.gen = gen
		t.tid = nextTID
		nextTID++
		live++
		return i
	}
	return -1
}

// slotOfTID finds the live thread with tid, or -1.
func slotOfTID(tid int32) int32 {
	for i := int32(firstThreadSlot); i < maxThreads; i++ {
		if scheduler.State(i) != sched.Free && threads[i].tid == tid {
			return i
		}
	}
	return -1
}

func cur() *thread { return &threads[curSlot()] }
