// Package record defines the binary trace record that the guest writes into
// its per-CPU rings and that the host reads out of DATA frames.
//
// A record is little-endian and 8-byte aligned:
//
//	off  size  field
//	0    2     size     whole record in bytes, a multiple of 8, stack included
//	2    2     tpid     tracepoint id (see TPID)
//	4    1     flags    see Flags
//	5    1     nframes  number of stack words at the end
//	6    2     cpu
//	8    8     ts       raw ticks (TSC on amd64, CNTVCT on arm64)
//	16   4     tid      kernel thread id
//	20   4     seq      per-CPU sequence number
//	24   8*n   args     8-byte slots; a string takes StrSlots slots
//	...  8*nf  stack    stack[0] is the leaf pc, the rest return addresses
//
// nargs = (size - HeaderSize - 8*nframes) / 8. docs/trace-format.md is the
// full specification, with the sequence-number and LOST accounting rules.
//
// The encoders in this package run in the guest, in interrupt context: they
// are //go:nosplit, never allocate and never panic; they report a record that
// does not fit with a false or zero result. The Decoder is for the host.
package record

// Version is the record-format version carried in HELLO. It changes only
// when a header field moves or changes meaning; new arguments of a fixed
// schema record are appended and do not change it.
const Version = 1

// Header layout.
const (
	HeaderSize = 24
	SlotSize   = 8 // every argument and stack word
	Align      = 8

	OffSize    = 0
	OffTPID    = 2
	OffFlags   = 4
	OffNFrames = 5
	OffCPU     = 6
	OffTS      = 8
	OffTID     = 16
	OffSeq     = 20
	OffArgs    = HeaderSize

	// MaxSize is the largest size the u16 size field can hold that is a
	// multiple of Align.
	MaxSize = 1<<16 - Align
	// MaxFrames is the most stack words the u8 nframes field can count.
	MaxFrames = 255
	// StrSlots is how many argument slots one string argument takes: its
	// bytes, truncated to StrBytes and NUL-padded.
	StrSlots = 3
	StrBytes = StrSlots * SlotSize
	// PadMinSize is the smallest PAD record: only size and tpid of a PAD
	// are meaningful, so it needs one slot, not a whole header.
	PadMinSize = Align
)

// TPID is a tracepoint id. Ids below FirstDictID have a fixed meaning; the
// others are assigned at boot and described by the DICT frame.
type TPID uint16

const (
	TPPad       TPID = 0 // filler to the end of a ring; never sent to the host
	TPLost      TPID = 1 // records dropped before they reached the ring
	TPSample    TPID = 2 // a sampler tick
	TPClock     TPID = 3 // a (ticks, ns since boot) reference pair
	TPThrottle  TPID = 4 // the sampler changed its rate
	TPGoroutine TPID = 5 // a goroutine off its CPU, seen by the kernel's off-CPU sweep
	TPWake      TPID = 6 // a thread blocked in the kernel was woken: by whom, after how long
	// TPGoroutineSame: a goroutine stayed as its last GOROUTINE record showed it for more sweeps
	TPGoroutineSame TPID = 7
	TPProbe         TPID = 8 // a dynamic probe's breakpoint was hit

	FirstDictID TPID = 16 // 9-15 are reserved
)

// Flags is the record's flags byte. Decoders ignore bits they do not know.
type Flags uint8

const (
	HasStack           Flags = 1 << 0 // nframes stack words follow the args
	PC0Exact           Flags = 1 << 1 // stack[0] came from a trap frame: do not subtract 1
	StackFromInterrupt Flags = 1 << 2 // the stack is the interrupted thread's
	StackTrunc         Flags = 1 << 3 // the walk reached its depth cap
	WalkStop           Flags = 1 << 4 // a frame-pointer check failed and ended the walk
	ArgsTrunc          Flags = 1 << 5 // a string argument was cut to StrBytes
	InIRQ              Flags = 1 << 6 // emitted in interrupt context
	NoInterruptFrame   Flags = 1 << 7 // the sampler fell back to the ordinary walk
)

// LOST record arguments (tpid 1). The record's seq is the first dropped seq
// and does not itself consume a sequence number.
const (
	LostArgCount   = 0 // number of records dropped
	LostArgFirstTS = 1 // ts of the first dropped record
	LostArgLastTS  = 2 // ts of the last dropped record
	LostArgCauses  = 3 // LostCause bits
	LostArgs       = 4
)

// LostCause says why records were dropped; a LOST record ORs the causes of
// the drops it covers.
type LostCause uint64

const (
	CauseRingFull    LostCause = 1 << 0 // streaming ring had no room
	CauseNested      LostCause = 1 << 1 // re-entrant emit on the same CPU
	CauseBeforeRings LostCause = 1 << 2 // emit before the rings existed
	knownLostCauses            = CauseRingFull | CauseNested | CauseBeforeRings
)

// SAMPLE record arguments (tpid 2).
const (
	SampleArgSP     = 0
	SampleArgFP     = 1
	SampleArgLR     = 2 // 0 on amd64
	SampleArgW0     = 3 // word at [sp]
	SampleArgW1     = 4 // word at [sp+8]
	SampleArgTID    = 5 // the goroutine's id (StateGoroutine set), else the kernel thread's
	SampleArgLateNs = 6 // tick time minus programmed deadline
	SampleArgState  = 7 // SampleState
	SampleArgs      = 8 // the fixed part; the slots below are appended and may be absent

	// SampleArgWeight is how many of the sampler's deadlines the sample stands for: 1, or more
	// when deadlines passed that no sample could be taken for (absent: 1).
	SampleArgWeight = 8
	// The registers of the thread context the outermost trap saved, for a sample taken in the
	// kernel (its stack holds StackMarkThread): the leaf fix applies to that context's pc too.
	// Absent, or 0, when the sample has no kernel part.
	SampleArgThreadSP = 9
	SampleArgThreadFP = 10
	SampleArgThreadLR = 11 // 0 on amd64
	SampleArgThreadW0 = 12 // word at the thread's [sp]
	SampleArgThreadW1 = 13 // word at the thread's [sp+8]

	SampleArgsWeighted = 9  // a sample of a thread: the fixed part and the weight
	SampleArgsCrossed  = 14 // a sample in the kernel: the thread's registers too
)

// GOROUTINE record arguments (tpid 5). The kernel's off-CPU sweep writes one for each goroutine
// that is not running on a CPU: its stack is where the goroutine resumes (the runtime's saved
// context: stack[0] is a return address, not flagged PC0Exact), or for a goroutine in a system
// call whose thread is blocked in the kernel, the kernel's path that blocked it, StackMarkThread
// and the thread's exact pc and chain, as a sample taken in the kernel reads. The record's tid
// is that thread's, 0 for a goroutine without one. A thread's stack without a kernel path (a
// thread the kernel preempted) starts at its exact pc, flagged PC0Exact.
const (
	GoroutineArgID       = 0 // the goroutine's id
	GoroutineArgState    = 1 // GoroutineState
	GoroutineArgWaitNs   = 2 // how long it has been in this state as far as the kernel knows (ns), 0 if not known
	GoroutineArgPeriodNs = 3 // the sample's weight: the sweep's period (ns)
	GoroutineArgSyscall  = 4 // the system call its thread is in, plus one; 0 for none
	GoroutineArgGoPC     = 5 // the go statement that created it (0 if unknown)
	GoroutineArgSweep    = 6 // the sweep's number: one sweep's records share it
	// The registers of the thread's saved context, when the stack is a thread's (a goroutine
	// whose thread is blocked in the kernel or waits for a CPU): the host's leaf fix applies at
	// that context's pc, as for a sample's thread. All 0 otherwise.
	GoroutineArgThreadSP = 7
	GoroutineArgThreadFP = 8
	GoroutineArgThreadLR = 9 // 0 on amd64
	GoroutineArgThreadW0 = 10
	GoroutineArgThreadW1 = 11
	GoroutineArgs        = 12
)

// GOROUTINE_SAME record arguments (tpid 7). The off-CPU sweep writes a full GOROUTINE record for
// a goroutine when it first sees it in a state, and while the goroutine stays so (the same
// status, wait reason, resume point and thread state), only counts its sweeps: a GOROUTINE_SAME
// record carries what they weigh, at most about a second's worth each, and when the goroutine
// changes or exits, or the recording ends. The host adds it to the goroutine's last GOROUTINE
// record's stack and labels. So a thousand parked goroutines cost a record each a second, not a
// hundred stacks.
const (
	GoroutineSameArgID     = 0 // the goroutine's id
	GoroutineSameArgNs     = 1 // the weight of the sweeps it stands for (ns)
	GoroutineSameArgSweeps = 2 // how many sweeps
	GoroutineSameArgSweep  = 3 // the number of the sweep that wrote it
	GoroutineSameArgs      = 4
)

// WAKE record arguments (tpid 6). The kernel writes one when a thread blocked in the kernel is
// woken (with -wakers): the record's tid is the woken thread's. Its stack is two stacks: the
// first WakeArgWokenWords words are the woken thread's as it blocked (the kernel's path that
// blocked it, StackMarkThread, its exact pc and chain, as a GOROUTINE record's), the rest the
// waker's: the path that reached the wake-up, across the trap frame into the thread that made
// the call (as a tracepoint's backtrace in a trap handler), or for a timer or a device's
// interrupt the kernel's path alone.
const (
	WakeArgWoken      = 0 // the woken goroutine's id, 0 if not known
	WakeArgBlockedNs  = 1 // how long the thread was blocked (ns)
	WakeArgWait       = 2 // what it waited on (the stacks snapshot's StackWait) | (system call + 1) << 8
	WakeArgWaker      = 3 // WakerKind
	WakeArgWakerGoid  = 4 // the waker's goroutine, 0 if none or not known
	WakeArgWakerTID   = 5 // the waker's thread, 0 for none
	WakeArgWokenWords = 6 // how many of the stack's words are the woken thread's
	// The registers of the two thread contexts, for the host's leaf fix at their pcs.
	WakeArgWokenSP = 7
	WakeArgWokenFP = 8
	WakeArgWokenLR = 9
	WakeArgWokenW0 = 10
	WakeArgWokenW1 = 11
	WakeArgWakerSP = 12
	WakeArgWakerFP = 13
	WakeArgWakerLR = 14
	WakeArgWakerW0 = 15
	WakeArgWakerW1 = 16
	WakeArgs       = 17
)

// WakerKind says who woke a thread.
type WakerKind uint8

const (
	WakerThread  WakerKind = 0 // a thread, in a system call
	WakerTimer   WakerKind = 1 // a deadline: a sleep, a timeout, a timer
	WakerConsole WakerKind = 2 // the console's interrupt (standard input)
	WakerSerial  WakerKind = 3 // the virtio-serial device's interrupt (the launcher's sockets, the control port)
	WakerShare   WakerKind = 4 // a shared directory's device interrupt (a 9P reply)
)

// String names a waker kind as the wakers profile's frame does.
func (k WakerKind) String() string {
	switch k {
	case WakerThread:
		return "thread"
	case WakerTimer:
		return "timer"
	case WakerConsole:
		return "interrupt: console"
	case WakerSerial:
		return "interrupt: virtio-serial"
	case WakerShare:
		return "interrupt: shared directory"
	}
	return "unknown"
}

// GoroutineState packs a GOROUTINE record's state slot: bits 0-7 the goroutine's state
// (goroutines.State), 8-15 its wait reason (an index into the image's
// runtime.waitReasonStrings; meaningful when waiting), 16-23 what its thread waits on in the
// kernel (the stacks snapshot's StackWait, 0 for none), 24-31 that thread's state (its
// StackState: runnable for a thread the kernel has not put back on a CPU yet).
type GoroutineState uint64

// MakeGoroutineState packs a state slot.
//
//go:nosplit
func MakeGoroutineState(state, reason, wait, thread uint8) GoroutineState {
	return GoroutineState(state) | GoroutineState(reason)<<8 | GoroutineState(wait)<<16 | GoroutineState(thread)<<24
}

// State, Reason, Wait and Thread unpack a state slot.
func (s GoroutineState) State() uint8  { return uint8(s) }
func (s GoroutineState) Reason() uint8 { return uint8(s >> 8) }
func (s GoroutineState) Wait() uint8   { return uint8(s >> 16) }
func (s GoroutineState) Thread() uint8 { return uint8(s >> 24) }

// Stack marks: words in a record's stack that are not addresses but say where a context saved
// by a trap begins, as perf's callchain context markers do. Neither is a canonical address on
// amd64 or a 48-bit virtual address on arm64, so no pc or return address can equal one.
//
// A stack that crosses the kernel boundary reads leaf first: the kernel's exact pc and its
// frame-pointer chain up to the trap entry, then StackMarkThread, then the thread's exact pc
// (the instruction the trap interrupted or the system call returns to) and that thread's
// chain. A trap taken inside another one's handler adds StackMarkKernel and the exact pc and
// chain of the kernel code it interrupted, before the mark of the outer context.
//
// A thread's chain that runs into a signal handler's return to its restorer goes on with
// StackMarkSignal and the exact pc and chain of the code the signal interrupted, which the
// signal frame the kernel built holds: one mark per handler, innermost first, for nested ones.
const (
	StackMarkThread uint64 = 0xfffe_0000_0000_0001 // next: the exact pc of the thread a trap interrupted
	StackMarkKernel uint64 = 0xfffe_0000_0000_0002 // next: the exact pc of kernel code a nested trap interrupted
	StackMarkSignal uint64 = 0xfffe_0000_0000_0003 // next: the exact pc of the thread's code a signal handler interrupted
	// StackMarkTable: next, a return address that the image's SP-delta tables found, in the
	// same context, where the frame-pointer chain could not be trusted (a leaf not linked into
	// it, a frame record that failed its checks). It is a return address like the chain's,
	// looked up inside its call; the host's leaf fix does not apply to a leaf it follows.
	StackMarkTable uint64 = 0xfffe_0000_0000_0004
)

// IsStackMark reports whether w is one of the stack marks.
//
//go:nosplit
func IsStackMark(w uint64) bool { return w-StackMarkThread <= StackMarkTable-StackMarkThread }

// IsContextMark reports whether w is a mark that begins a context (StackMarkThread,
// StackMarkKernel, StackMarkSignal): the word after it is an exact pc.
//
//go:nosplit
func IsContextMark(w uint64) bool { return w-StackMarkThread <= StackMarkSignal-StackMarkThread }

// SampleState is the SAMPLE state slot: bit 0 idle, bit 1 a goroutine id in the TID slot, bits 4-7 the kind of the stack the leaf
// ran on, bits 8-11 for a sample in the kernel the kind of the thread's stack below it.
type SampleState uint64

const (
	StateIdle       SampleState = 1 << 0
	StateGoroutine  SampleState = 1 << 1 // the TID slot holds the id of the goroutine the thread ran
	StackKindShift              = 4
	StackKindMask   SampleState = 0xf << StackKindShift
	ThreadKindShift             = 8
	ThreadKindMask  SampleState = 0xf << ThreadKindShift
)

// StackKind is the kind of stack the sampler interrupted.
type StackKind uint8

const (
	StackUnknown   StackKind = 0
	StackGoroutine StackKind = 1
	StackSystem    StackKind = 2 // g0
	StackInterrupt StackKind = 3 // kernel code in a trap's handler (the stack continues into the thread)
	StackKernel    StackKind = 4
)

// Kind returns the stack kind held in bits 4-7.
func (s SampleState) Kind() StackKind {
	return StackKind((s & StackKindMask) >> StackKindShift)
}

// ThreadKind returns the thread's stack kind held in bits 8-11 (a sample in the kernel).
func (s SampleState) ThreadKind() StackKind {
	return StackKind((s & ThreadKindMask) >> ThreadKindShift)
}

// MakeSampleState builds a state slot.
//
//go:nosplit
func MakeSampleState(idle bool, kind StackKind) SampleState {
	s := SampleState(kind&0xf) << StackKindShift
	if idle {
		s |= StateIdle
	}
	return s
}

// PROBE record arguments (tpid 8): a dynamic probe's hit. The registers are those of the
// trapped context at the site, before the displaced instruction ran: at an entry Go's integer
// argument registers (amd64 ABIInternal: RAX, RBX, RCX, RDI, RSI, R8-R11; arm64: R0-R15), at a
// return its result registers (the same), then as many float registers (amd64 X0-X14's low
// halves, arm64 F0-F15) as ProbeArgInfo says. The record's stack, when the probe asked for
// one, is the trapped context's: its exact pc, then its chain (as a sample's, PC0Exact).
const (
	// ProbeArgInfo packs the probe's number (bits 0-15), the site's kind (bits 16-23:
	// 1 entry, 2 return), the integer registers (bits 24-31) and the float registers (32-39).
	ProbeArgInfo = 0
	ProbeArgPC   = 1 // the site's address
	ProbeArgSP   = 2 // the stack pointer at the site
	ProbeArgGoid = 3 // the goroutine the thread ran (0: none known; the record's tid says which thread)
	// ProbeArgStackHi is the top of the stack the site ran on (0 when unknown): Go copies a
	// growing stack keeping each frame's distance from the top, so StackHi - SP names a frame
	// across a move, and pairs an entry with its return.
	ProbeArgStackHi = 4
	ProbeArgs       = 5 // the fixed part; the registers follow
	// ProbeMaxRegs bounds the slots after the fixed part: 32 registers and two 64-byte strings.
	ProbeMaxRegs = 16 + 16 + 2*(1+64/8)
)

// The strings a probe's hit copies follow its registers: per string a header slot
// (ProbeStringHeader) and its bytes, 8 to a slot; ProbeArgInfo's bits 40-47 count the strings
// and bits 48-55 the slots they take.
const (
	ProbeStringTrunc      = 1 << 24 // the string was longer than the bytes copied
	ProbeStringUnreadable = 1 << 25 // a word of its bytes was not mapped: the copy stops there
)

// ProbeStrings packs the string counts of ProbeArgInfo.
//
//go:nosplit
func ProbeStrings(n uint8, slots int) uint64 { return uint64(n)<<40 | uint64(slots&0xff)<<48 }

// ProbeStringHeader packs a string copy's header: the bytes copied (bits 0-15), the register
// of its pointer (16-23), and the flags.
//
//go:nosplit
func ProbeStringHeader(n uint64, ptrReg uint8, trunc, unreadable bool) uint64 {
	h := n&0xffff | uint64(ptrReg)<<16
	if trunc {
		h |= ProbeStringTrunc
	}
	if unreadable {
		h |= ProbeStringUnreadable
	}
	return h
}

// MakeProbeInfo packs ProbeArgInfo.
//
//go:nosplit
func MakeProbeInfo(probe uint16, kind uint8, nint, nfloat uint8) uint64 {
	return uint64(probe) | uint64(kind)<<16 | uint64(nint)<<24 | uint64(nfloat)<<32
}

// CLOCK record arguments (tpid 3).
const (
	ClockArgTicks = 0
	ClockArgNs    = 1 // ns since boot at Ticks
	ClockArgs     = 2
)

// THROTTLE record arguments (tpid 4).
const (
	ThrottleArgOldHz = 0
	ThrottleArgNewHz = 1
	ThrottleArgs     = 2
)

// FixedArgs returns the number of argument slots a fixed-schema record must
// have at least, and false for dictionary and reserved ids. Records may carry
// more slots than this (fields are only ever appended).
func FixedArgs(id TPID) (int, bool) {
	switch id {
	case TPLost:
		return LostArgs, true
	case TPSample:
		return SampleArgs, true
	case TPClock:
		return ClockArgs, true
	case TPThrottle:
		return ThrottleArgs, true
	}
	return 0, false
}
