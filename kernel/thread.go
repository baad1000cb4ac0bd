package kernel

// Threads: every clone() makes one. A thread's context lives in its slot's Frame while it is not
// running; the running thread's context is the Frame on the kernel stack of the current trap.

const maxThreads = 256

type threadState uint8

const (
	threadFree threadState = iota
	threadRunnable
	threadRunning
	threadBlocked
)

// waitKind says what a blocked thread waits for and how its system call completes.
type waitKind uint8

const (
	waitNone    waitKind = iota
	waitFutex            // futex WAIT: result 0 on wake, -ETIMEDOUT on timeout
	waitSleep            // nanosleep: result 0 at the deadline
	waitEpoll            // epoll_pwait: re-poll on wake, 0 events on timeout
	waitEventfd          // blocking eventfd read: retry on wake
	waitDevice           // a trace-port read or write: retry on wake
)

// kernelPathMax bounds a blocked thread's recorded kernel path.
const kernelPathMax = 16

type thread struct {
	frame Frame // saved context while not running
	state threadState
	tid   int32
	gen   uint32 // bumped each time the slot is reused

	wait  waitKind
	sysNr uint64 // the system call the thread is in (for syscall_exit after a wait)
	// kpath is the kernel's path that blocked the thread (return addresses, innermost first:
	// block's caller, then its callers out to the entry stub), recorded by block. The kernel
	// keeps no stack for a blocked thread, so this is what `stacks` shows above its frames.
	kpath    [kernelPathMax]uint64
	nkpath   int32
	timedOut bool
	deadline int64 // absolute deadline of the wait (ns), 0 for none
	// epoll_pwait / read arguments, to complete the call after a wake-up.
	waitFD     int32
	waitAddr   uintptr
	waitCount  uintptr // read/write byte count, epoll_pwait maxevents
	waitOp     portOp  // waitDevice: which port operation to retry
	waitArg    uint64  // waitDevice: the operation's first argument (trace drain and send)
	clearChild uintptr // CLONE_CHILD_CLEARTID: zeroed and futex-woken at exit

	sigMask    uint64 // blocked signals (bit n-1 for signal n)
	sigPending uint64
	altStack   uintptr
	altSize    uintptr
	altFlags   int32
	onAltStack bool
	runStart   int64 // when the thread last started running (ns): quantum and CPU time
	cpuNanos   int64 // CPU time used before runStart

	cpu      int32  // the CPU the thread runs on, or last ran on; -1 before it first runs
	affinity uint64 // the CPUs it may run on (bit n: CPU n), inherited by clone children
	fifo     bool   // SCHED_FIFO: not time-sliced (keeps its CPU until it blocks or yields)
	queuedAt int64  // when it last became runnable (ns): the watchdog's measure of waiting
	policy   int32  // the sched_setscheduler policy, for sched_getscheduler
	fifoPrio int32  // its priority (sched_param), 0 for the time-sliced policies
}

// Slots below firstThreadSlot hold the CPUs' idle threads (slot n: CPU n's).
var (
	threads [maxThreads]thread
	nextTID int32 = 1 // the main thread is tid 1, which is also the pid
	live    int       // threads other than idle that have not exited
)

const processID = 1

// newThread takes a free slot for a thread and gives it a tid, or returns -1.
func newThread() int32 {
	for i := int32(firstThreadSlot); i < maxThreads; i++ {
		t := &threads[i]
		if t.state == threadFree {
			gen := t.gen + 1
			*t = thread{}
			t.gen = gen
			t.cpu = -1
			t.affinity = allCPUs()
			t.tid = nextTID
			nextTID++
			t.state = threadBlocked
			live++
			return i
		}
	}
	return -1
}

// slotOfTID finds the live thread with tid, or -1.
func slotOfTID(tid int32) int32 {
	for i := int32(firstThreadSlot); i < maxThreads; i++ {
		if threads[i].state != threadFree && threads[i].tid == tid {
			return i
		}
	}
	return -1
}

func cur() *thread { return &threads[curSlot()] }
