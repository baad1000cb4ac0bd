package trace

import "github.com/unitrace/unitrace/trace/record"

// The stacks snapshot: what the kernel's CtlStacks writes into the agent's buffer, one
// fixed-size entry per CPU and then one per thread. The kernel stores it with plain byte stores
// (no allocation, interrupts masked); the agent decodes it (DecodeStacks, threadsnap_decode.go) into
// the control reply, and the host symbolizes it. The layout is little-endian and the same on
// every arch. Everything in this file runs in the kernel: no allocation, no panics, nosplit.

// StackEntrySize is the size of one entry: an 80-byte header, then MaxDepth frame slots.
const StackEntrySize = 80 + MaxDepth*8

// Entry offsets. Frame slots past the entry's frame count are zero.
const (
	stkKind    = 0  // u8: EntryCPU or EntryThread
	stkState   = 1  // u8: a StackState
	stkWait    = 2  // u8: what a blocked thread waits for (StackWait)
	stkKindStk = 3  // u8: record.StackKind of the stack the pc/sp lie on
	stkFlags   = 4  // u16: StackFlags
	stkNFrames = 6  // u16: frame slots used
	stkTID     = 8  // i32: the thread (EntryCPU: the thread running on it, 0 when idle)
	stkGen     = 12 // u32: the thread slot's generation
	stkCPU     = 16 // i32: the CPU (EntryThread: where it runs or last ran, -1 for never)
	stkSlot    = 20 // u32: the thread slot
	stkPC      = 24 // u64: the leaf pc (exact: a saved or interrupted context's pc)
	stkSP      = 32
	stkFP      = 40
	stkLR      = 48 // arm64's link register, 0 on amd64
	stkTicks   = 56 // u64: when the context was captured (trace ticks)
	stkW0      = 64 // u64: the words at SP and SP+8 (0 when unreadable): a frameless leaf's
	stkW1      = 72 // caller is there, which the host recovers from the image's SP deltas
	stkFrames  = 80 // MaxDepth u64 return addresses, callers of PC, innermost first
)

// Entry kinds.
const (
	EntryCPU    = 1
	EntryThread = 2
)

// StackState says what a CPU or thread was doing.
type StackState uint8

const (
	StateRunnable   StackState = 1 // a thread waiting in the run queue (has run before)
	StateRunning    StackState = 2 // a thread running on a CPU; a CPU running a thread
	StateBlocked    StackState = 3 // a thread in a blocking system call
	StateNeverRun   StackState = 4 // a thread created but not yet run: no stack to walk
	StateIdle       StackState = 5 // a CPU running its idle thread
	StateNoAnswer   StackState = 6 // a CPU that did not answer the capture IPI in time
	StateHalted     StackState = 7 // a CPU stopped for good (exit or fault in progress)
	StateExited     StackState = 8 // never reported: a freed slot is left out
	StateKernelBusy StackState = 9 // a CPU inside the kernel on behalf of its thread
)

// String names a state for the reply (constant strings: safe in the kernel).
func (s StackState) String() string {
	switch s {
	case StateRunnable:
		return "runnable"
	case StateRunning:
		return "running"
	case StateBlocked:
		return "blocked"
	case StateNeverRun:
		return "never-run"
	case StateIdle:
		return "idle"
	case StateNoAnswer:
		return "no-answer"
	case StateHalted:
		return "halted"
	case StateKernelBusy:
		return "in-kernel"
	}
	return "unknown"
}

// StackWait is what a blocked thread waits for. The kernel's wait kinds are these values (its
// waitKind constants are defined from them), so a snapshot names every wait the kernel has.
type StackWait uint8

const (
	WaitNone    StackWait = iota
	WaitFutex             // futex
	WaitSleep             // nanosleep, clock_nanosleep
	WaitEpoll             // epoll_wait and its masked forms
	WaitEventfd           // an eventfd's read or write
	WaitDevice            // a trace port's read or write
	WaitPipe              // a pipe's read or write
	WaitShare             // a shared directory's reply from the host
	WaitNet               // a socket call's reply from the launcher
	WaitConsole           // a console read
	WaitSplice            // splice, tee or sendfile on an empty or full pipe
	WaitFIFO              // a FIFO's open, for the other end
	WaitLock              // a file lock another owner holds
	WaitRerun             // a socket pair's receive or message send
	WaitPoll              // poll, ppoll, select, pselect6
	numWaits
)

// waitNames are the waits' names in a reply, by StackWait.
var waitNames = [numWaits]string{
	WaitFutex: "futex", WaitSleep: "sleep", WaitEpoll: "epoll", WaitEventfd: "eventfd",
	WaitDevice: "trace-port", WaitPipe: "pipe", WaitShare: "share", WaitNet: "socket",
	WaitConsole: "console", WaitSplice: "splice", WaitFIFO: "fifo-open", WaitLock: "file-lock",
	WaitRerun: "socketpair", WaitPoll: "poll",
}

// String names a wait for the reply ("" for WaitNone and unknown values).
func (w StackWait) String() string {
	if w >= numWaits {
		return ""
	}
	return waitNames[w]
}

// StackFlags qualify an entry's stack. The low byte is record.Flags (StackTrunc, WalkStop).
type StackFlags uint16

const (
	// StackByIPI: the context was captured on the CPU running the thread, by an IPI, from the
	// frame the IPI interrupted (or the kernel entry frame of a thread inside the kernel).
	StackByIPI StackFlags = 1 << 8
	// StackSaved: the context is the thread's saved one (blocked or runnable).
	StackSaved StackFlags = 1 << 9
	// StackNoWalk: no frame-pointer walk was tried (never-run thread, unknown stack).
	StackNoWalk StackFlags = 1 << 10
	// StackKernelPath: the frames begin with the kernel's path that blocked the thread (return
	// addresses), then record.StackMarkThread, then the callers of PC.
	StackKernelPath StackFlags = 1 << 11

	stackKnownFlags = 0xff | StackByIPI | StackSaved | StackNoWalk | StackKernelPath
)

// PrependKernelPath puts path and a thread mark before the n frames in frames, dropping the
// outermost of them if all do not fit; it returns the new count.
//
//go:nosplit
func PrependKernelPath(frames *[MaxDepth]uint64, n int, path []uint64) int {
	k := min(len(path), MaxDepth-1)
	keep := min(n, MaxDepth-k-1)
	copy(frames[k+1:k+1+keep], frames[:keep])
	copy(frames[:k], path[:k])
	frames[k] = record.StackMarkThread
	return k + 1 + keep
}

// StackKindName names an entry's stack kind (record.StackKind) for the reply.
func StackKindName(k uint8) string {
	switch k {
	case 1:
		return "goroutine"
	case 2:
		return "system"
	case 3:
		return "interrupt"
	case 4:
		return "kernel"
	}
	return "unknown"
}

// StackEntry is one entry. The kernel fills one on its stack and stores it with PutStackEntry
// (which takes the frames separately and ignores Frames); DecodeStacks fills Frames.
type StackEntry struct {
	Kind      uint8
	State     StackState
	Wait      StackWait
	StackKind uint8
	Flags     StackFlags
	TID       int32
	Gen       uint32
	CPU       int32
	Slot      uint32
	PC        uint64
	SP, FP    uint64
	LR        uint64
	Ticks     uint64
	W0, W1    uint64
	Frames    []uint64
}

// PutStackEntry writes e's header and the first nframes of frames at b (StackEntrySize bytes),
// zeroing the unused frame slots; it reports false, writing nothing, if b is too short or
// nframes is out of range. The kernel uses it with a buffer in the agent's memory.
//
//go:nosplit
func PutStackEntry(b []byte, e *StackEntry, frames *[MaxDepth]uint64, nframes int) bool {
	if len(b) < StackEntrySize || nframes < 0 || nframes > MaxDepth {
		return false
	}
	b[stkKind] = e.Kind
	b[stkState] = uint8(e.State)
	b[stkWait] = uint8(e.Wait)
	b[stkKindStk] = e.StackKind
	le16(b[stkFlags:], uint16(e.Flags))
	le16(b[stkNFrames:], uint16(nframes))
	le32(b[stkTID:], uint32(e.TID))
	le32(b[stkGen:], e.Gen)
	le32(b[stkCPU:], uint32(e.CPU))
	le32(b[stkSlot:], e.Slot)
	le64(b[stkPC:], e.PC)
	le64(b[stkSP:], e.SP)
	le64(b[stkFP:], e.FP)
	le64(b[stkLR:], e.LR)
	le64(b[stkTicks:], e.Ticks)
	le64(b[stkW0:], e.W0)
	le64(b[stkW1:], e.W1)
	for i := 0; i < MaxDepth; i++ {
		v := uint64(0)
		if i < nframes {
			v = frames[i]
		}
		le64(b[stkFrames+i*8:], v)
	}
	return true
}

//go:nosplit
func le16(b []byte, v uint16) {
	if len(b) >= 2 {
		b[0], b[1] = byte(v), byte(v>>8)
	}
}

//go:nosplit
func le32(b []byte, v uint32) {
	if len(b) >= 4 {
		b[0], b[1], b[2], b[3] = byte(v), byte(v>>8), byte(v>>16), byte(v>>24)
	}
}

//go:nosplit
func le64(b []byte, v uint64) {
	if len(b) >= 8 {
		le32(b, uint32(v))
		le32(b[4:], uint32(v>>32))
	}
}
