package trace

import (
	"strconv"

	"github.com/unitrace/unitrace/trace/record"
)

// The goroutines snapshot: what the kernel's CtlGoroutines writes into the agent's buffer, one
// fixed-size entry per goroutine the runtime's list holds, read from outside the runtime as
// the off-CPU sweep reads it (kernel/observe/offcpu.go). Little-endian, the same on every arch. The
// kernel stores it with plain byte stores; the agent decodes it (DecodeGoroutines).

// GoroutineFrames is the most stack words an entry holds: the kernel's path of a blocked
// thread, a mark, the thread's pc and MaxDepth callers.
const GoroutineFrames = 96

// GoroutineEntrySize is the size of one entry: a 96-byte header, then GoroutineFrames words.
const GoroutineEntrySize = 96 + GoroutineFrames*8

// Entry offsets.
const (
	grID          = 0  // u64
	grState       = 8  // u8: goroutines.State
	grReason      = 9  // u8: the runtime's wait reason (an index into the image's waitReasonStrings)
	grWait        = 10 // u8: StackWait of its thread in the kernel
	grThreadState = 11 // u8: StackState of its thread, 0 for none
	grFlags       = 12 // u16: GoroutineFlags
	grNFrames     = 14 // u16
	grTID         = 16 // u32: its thread, 0 for none
	grSyscall     = 20 // u32: the system call its thread is in, plus one; 0 for none
	grWaitNs      = 24 // u64: how long it has been in its state, as far as the kernel knows (0: not known)
	grGoPC        = 32 // u64: the go statement that created it
	grStartPC     = 40 // u64: the function it started in
	grSP          = 48 // u64: the thread context's registers, when the stack is a thread's
	grFP          = 56
	grLR          = 64
	grW0          = 72
	grW1          = 80
	grReserved    = 88
	grFrames      = 96 // GoroutineFrames u64: the stack as a GOROUTINE record's
)

// GoroutineFlags qualify an entry. The low byte is record.Flags (PC0Exact, StackTrunc,
// WalkStop).
type GoroutineFlags uint16

const (
	// GoroutineOnCPU: its thread runs on a CPU; the entry has no stack (the stacks snapshot's
	// thread entry has it).
	GoroutineOnCPU GoroutineFlags = 1 << 8
	// GoroutineRaced: it changed while it was read; the entry has no stack.
	GoroutineRaced GoroutineFlags = 1 << 9

	knownGoroutineFlags = GoroutineFlags(record.PC0Exact|record.StackTrunc|record.WalkStop) | GoroutineOnCPU | GoroutineRaced
)

// GoroutineEntry is one entry.
type GoroutineEntry struct {
	ID                 uint64
	State, Reason      uint8
	Wait               StackWait
	ThreadState        StackState
	Flags              GoroutineFlags
	TID                uint32
	Syscall            uint32
	WaitNs, GoPC       uint64
	StartPC            uint64
	SP, FP, LR, W0, W1 uint64
	Frames             []uint64 // DecodeGoroutines fills it; PutGoroutineEntry takes the words apart
}

// PutGoroutineEntry writes e's header and words at b (GoroutineEntrySize bytes), zeroing the
// unused frame slots; it reports false, writing nothing, if b is too short or words too long.
//
//go:nosplit
func PutGoroutineEntry(b []byte, e *GoroutineEntry, words []uint64) bool {
	if len(b) < GoroutineEntrySize || len(words) > GoroutineFrames {
		return false
	}
	le64(b[grID:], e.ID)
	b[grState], b[grReason], b[grWait], b[grThreadState] = e.State, e.Reason, uint8(e.Wait), uint8(e.ThreadState)
	le16(b[grFlags:], uint16(e.Flags))
	le16(b[grNFrames:], uint16(len(words)))
	le32(b[grTID:], e.TID)
	le32(b[grSyscall:], e.Syscall)
	le64(b[grWaitNs:], e.WaitNs)
	le64(b[grGoPC:], e.GoPC)
	le64(b[grStartPC:], e.StartPC)
	le64(b[grSP:], e.SP)
	le64(b[grFP:], e.FP)
	le64(b[grLR:], e.LR)
	le64(b[grW0:], e.W0)
	le64(b[grW1:], e.W1)
	le64(b[grReserved:], 0)
	for i := 0; i < GoroutineFrames; i++ {
		v := uint64(0)
		if i < len(words) {
			v = words[i]
		}
		le64(b[grFrames+i*8:], v)
	}
	return true
}

// DecodeGoroutines decodes a CtlGoroutines buffer of n entries. It refuses the whole buffer,
// with a *StacksError naming the first bad entry, when an entry is malformed: a state outside
// the reader's, a thread state or wait the stacks snapshot does not have, an unknown flag bit,
// more than GoroutineFrames words or data in an unused slot, a stack on an entry that says it
// has none, or the same goroutine twice.
func DecodeGoroutines(b []byte, n int) ([]GoroutineEntry, error) {
	if n < 0 || n > len(b)/GoroutineEntrySize {
		return nil, &StacksError{-1, "goroutine count " + strconv.Itoa(n) + " does not fit a buffer of " +
			strconv.Itoa(len(b)) + " bytes"}
	}
	out := make([]GoroutineEntry, 0, n)
	seen := map[uint64]bool{}
	for i := 0; i < n; i++ {
		p := b[i*GoroutineEntrySize : (i+1)*GoroutineEntrySize]
		e, why := decodeGoroutine(p)
		if why == "" && seen[e.ID] {
			why = "goroutine " + strconv.FormatUint(e.ID, 10) + " reported twice"
		}
		if why != "" {
			return nil, &StacksError{i, why}
		}
		seen[e.ID] = true
		out = append(out, e)
	}
	return out, nil
}

func decodeGoroutine(p []byte) (GoroutineEntry, string) {
	e := GoroutineEntry{ID: get64(p[grID:]), State: p[grState], Reason: p[grReason], Wait: StackWait(p[grWait]),
		ThreadState: StackState(p[grThreadState]), Flags: GoroutineFlags(get16(p[grFlags:])), TID: get32(p[grTID:]),
		Syscall: get32(p[grSyscall:]), WaitNs: get64(p[grWaitNs:]), GoPC: get64(p[grGoPC:]), StartPC: get64(p[grStartPC:]),
		SP: get64(p[grSP:]), FP: get64(p[grFP:]), LR: get64(p[grLR:]), W0: get64(p[grW0:]), W1: get64(p[grW1:])}
	n := int(get16(p[grNFrames:]))
	switch {
	case e.ID == 0:
		return e, "goroutine id 0"
	case e.State < 1 || e.State > 4:
		return e, "unknown state " + strconv.Itoa(int(e.State))
	case e.Wait >= numWaits:
		return e, "unknown wait " + strconv.Itoa(int(e.Wait))
	case e.ThreadState > StateKernelBusy:
		return e, "unknown thread state " + strconv.Itoa(int(e.ThreadState))
	case e.Flags&^knownGoroutineFlags != 0:
		return e, "unknown flag bits"
	case n > GoroutineFrames:
		return e, strconv.Itoa(n) + " words, more than " + strconv.Itoa(GoroutineFrames)
	case n > 0 && e.Flags&(GoroutineOnCPU|GoroutineRaced) != 0:
		return e, "a stack on an entry that has none"
	case get64(p[grReserved:]) != 0:
		return e, "data in the reserved word"
	}
	for i := 0; i < GoroutineFrames; i++ {
		w := get64(p[grFrames+i*8:])
		if i < n {
			e.Frames = append(e.Frames, w)
		} else if w != 0 {
			return e, "data in unused word " + strconv.Itoa(i)
		}
	}
	return e, ""
}
