package trace

import (
	"strconv"

	"github.com/unitrace/unitrace/trace/record"
)

// Decoding runs in the agent (an ordinary goroutine), so unlike the rest of the stacks code it
// allocates. It trusts nothing in the buffer: the kernel wrote it, but a kernel bug must give a
// clear error in the reply, not a wrong stack.

// StacksError says why DecodeStacks refused a buffer.
type StacksError struct {
	Entry int // the malformed entry's index; -1 when the buffer as a whole is wrong
	Why   string
}

func (e *StacksError) Error() string {
	if e.Entry < 0 {
		return "stacks: " + e.Why
	}
	return "stacks: entry " + strconv.Itoa(e.Entry) + ": " + e.Why
}

// DecodeStacks decodes a CtlStacks buffer of n entries. It refuses the whole buffer, with a
// *StacksError naming the first bad entry, when an entry is malformed: an unknown kind, state,
// wait or flag bit; a state the entry's kind cannot have (an idle thread, a blocked CPU); a
// CPU entry after the first thread entry; a CPU out of range (-1 is allowed for a thread that
// never ran); a thread id below 1 (a CPU's: below 0); the same CPU or thread twice; more than
// MaxDepth frames, or data in an unused frame slot; frames for a never-run thread; or a
// context that is both saved and captured by IPI. An accepted buffer encodes back
// (PutStackEntry) to the same bytes.
func DecodeStacks(b []byte, n int) ([]StackEntry, error) {
	if n < 0 || n > len(b)/StackEntrySize {
		return nil, &StacksError{-1, "entry count " + strconv.Itoa(n) + " does not fit a buffer of " +
			strconv.Itoa(len(b)) + " bytes"}
	}
	out := make([]StackEntry, 0, n)
	var cpuSeen [MaxCPUs]bool
	tidSeen := make(map[int32]bool)
	for i := 0; i < n; i++ {
		p := b[i*StackEntrySize : (i+1)*StackEntrySize]
		e, why := decodeEntry(p)
		if why == "" {
			switch {
			case e.Kind == EntryCPU && len(tidSeen) > 0:
				why = "a CPU entry after the thread entries"
			case e.Kind == EntryCPU && cpuSeen[e.CPU]:
				why = "CPU " + strconv.Itoa(int(e.CPU)) + " reported twice"
			case e.Kind == EntryThread && tidSeen[e.TID]:
				why = "thread " + strconv.Itoa(int(e.TID)) + " reported twice"
			}
		}
		if why != "" {
			return nil, &StacksError{i, why}
		}
		if e.Kind == EntryCPU {
			cpuSeen[e.CPU] = true
		} else {
			tidSeen[e.TID] = true
		}
		out = append(out, e)
	}
	return out, nil
}

// decodeEntry decodes and checks one entry on its own; why is "" when it is well formed.
func decodeEntry(p []byte) (e StackEntry, why string) {
	e = StackEntry{
		Kind: p[stkKind], State: StackState(p[stkState]), Wait: StackWait(p[stkWait]),
		StackKind: p[stkKindStk], Flags: StackFlags(get16(p[stkFlags:])),
		TID: int32(get32(p[stkTID:])), Gen: get32(p[stkGen:]), CPU: int32(get32(p[stkCPU:])),
		Slot: get32(p[stkSlot:]), PC: get64(p[stkPC:]), SP: get64(p[stkSP:]), FP: get64(p[stkFP:]),
		LR: get64(p[stkLR:]), Ticks: get64(p[stkTicks:]), W0: get64(p[stkW0:]), W1: get64(p[stkW1:]),
	}
	nf := int(get16(p[stkNFrames:]))
	minCPU, minTID := int32(0), int32(0)
	switch e.Kind {
	case EntryCPU:
		if !cpuEntryState(e.State) {
			return e, "state " + stateText(e.State) + " is not a CPU's"
		}
	case EntryThread:
		if !threadEntryState(e.State) {
			return e, "state " + stateText(e.State) + " is not a thread's"
		}
		minCPU, minTID = -1, 1
	default:
		return e, "unknown kind " + strconv.Itoa(int(e.Kind))
	}
	switch {
	case e.Wait >= numWaits:
		return e, "unknown wait kind " + strconv.Itoa(int(e.Wait))
	case e.Flags&^stackKnownFlags != 0:
		return e, "unknown flag bits " + strconv.FormatUint(uint64(e.Flags&^stackKnownFlags), 16)
	case e.Flags&StackByIPI != 0 && e.Flags&StackSaved != 0:
		return e, "context both saved and captured by IPI"
	case e.CPU < minCPU || e.CPU >= MaxCPUs:
		return e, "CPU " + strconv.Itoa(int(e.CPU)) + " out of range"
	case e.TID < minTID:
		return e, "thread id " + strconv.Itoa(int(e.TID)) + " out of range"
	case nf > MaxDepth:
		return e, strconv.Itoa(nf) + " frames, more than " + strconv.Itoa(MaxDepth)
	case nf > 0 && e.State == StateNeverRun:
		return e, "frames for a thread that never ran"
	}
	for j := nf; j < MaxDepth; j++ {
		if get64(p[stkFrames+j*8:]) != 0 {
			return e, "data in unused frame slot " + strconv.Itoa(j)
		}
	}
	if nf > 0 {
		e.Frames = make([]uint64, nf)
		for j := range e.Frames {
			e.Frames[j] = get64(p[stkFrames+j*8:])
		}
	}
	return e, ""
}

// cpuEntryState and threadEntryState say which states each kind of entry can have.
func cpuEntryState(s StackState) bool {
	switch s {
	case StateRunning, StateIdle, StateNoAnswer, StateHalted, StateKernelBusy:
		return true
	}
	return false
}

func threadEntryState(s StackState) bool {
	switch s {
	case StateRunnable, StateRunning, StateBlocked, StateNeverRun, StateNoAnswer, StateKernelBusy:
		return true
	}
	return false
}

func stateText(s StackState) string {
	return s.String() + " (" + strconv.Itoa(int(s)) + ")"
}

func get16(b []byte) uint16 { return uint16(b[0]) | uint16(b[1])<<8 }
func get32(b []byte) uint32 { return uint32(get16(b)) | uint32(get16(b[2:]))<<16 }
func get64(b []byte) uint64 { return uint64(get32(b)) | uint64(get32(b[4:]))<<32 }

// SplitKernelPath returns an entry's kernel path and its own frames (StackKernelPath).
func (e *StackEntry) SplitKernelPath() (kernel, own []uint64) {
	if e.Flags&StackKernelPath == 0 {
		return nil, e.Frames
	}
	for i, w := range e.Frames {
		if w == record.StackMarkThread {
			return e.Frames[:i], e.Frames[i+1:]
		}
	}
	return nil, e.Frames
}
