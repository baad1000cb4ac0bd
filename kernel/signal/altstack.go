package signal

import (
	"encoding/binary"

	"github.com/unitrace/unitrace/kernel/abi"
)

// AltStack is a thread's alternate signal stack, as sigaltstack set it.
type AltStack struct {
	SP    uintptr // ss_sp: its lowest address
	Size  uintptr // ss_size; 0 when there is none
	Flags int32   // the ss_flags it was set with: 0 or SS_AUTODISARM (recorded, not acted on)
}

// Stack is a stack_t: what sigaltstack exchanges and a frame's uc_stack records.
type Stack struct {
	SP    uint64
	Flags int32
	Size  uint64
}

// stack_t (include/uapi/asm-generic/signal.h struct sigaltstack: ss_sp, int ss_flags, ss_size,
// 8-aligned; the Go runtime's stackt, TestStackLayout).
const (
	ssSP    = 0  // ss_sp
	ssFlags = 8  // ss_flags
	ssSize  = 16 // ss_size
)

// PutStack writes s as a stack_t into b (StackSize bytes), the padding after ss_flags zeroed.
func PutStack(b []byte, s Stack) {
	_ = b[StackSize-1]
	binary.LittleEndian.PutUint64(b[ssSP:], s.SP)
	binary.LittleEndian.PutUint64(b[ssFlags:], uint64(uint32(s.Flags)))
	binary.LittleEndian.PutUint64(b[ssSize:], s.Size)
}

// ReadStack reads a stack_t from b (StackSize bytes).
func ReadStack(b []byte) Stack {
	_ = b[StackSize-1]
	return Stack{
		SP:    binary.LittleEndian.Uint64(b[ssSP:]),
		Flags: int32(binary.LittleEndian.Uint32(b[ssFlags:])),
		Size:  binary.LittleEndian.Uint64(b[ssSize:]),
	}
}

// On reports whether sp is on the stack.
func (s AltStack) On(sp uintptr) bool { return s.Size != 0 && uint64(sp-s.SP) < uint64(s.Size) }

// Report returns the stack_t sigaltstack reports as the old one to a thread at sp: its flags are
// SS_DISABLE when there is no stack, SS_ONSTACK while sp is on it, else the flags it was set with.
func (s AltStack) Report(sp uintptr) Stack {
	flags := s.Flags
	if s.Size == 0 {
		flags = SS_DISABLE
	} else if s.On(sp) {
		flags = SS_ONSTACK
	}
	return Stack{SP: uint64(s.SP), Flags: flags, Size: uint64(s.Size)}
}

// Change applies sigaltstack's new stack ss for a thread at sp and returns 0 or the errno: EPERM
// while the thread runs on its alternate stack, EINVAL for flags other than SS_DISABLE, 0 and
// SS_AUTODISARM, ENOMEM for a stack smaller than MINSIGSTKSZ. SS_DISABLE removes the stack
// whatever the size says.
func (s *AltStack) Change(ss Stack, sp uintptr) int {
	if s.On(sp) {
		return abi.EPERM
	}
	switch {
	case ss.Flags == SS_DISABLE:
		*s = AltStack{}
	case uint32(ss.Flags)&^SS_AUTODISARM != 0:
		return abi.EINVAL
	case ss.Size < MINSIGSTKSZ:
		return abi.ENOMEM
	default:
		*s = AltStack{SP: uintptr(ss.SP), Size: uintptr(ss.Size), Flags: ss.Flags}
	}
	return 0
}

// FrameTop returns the address a signal frame for a thread at sp is built below: sp less below
// (the bytes under sp that the interrupted code may still use), or the top of the alternate
// stack when the action's flags have SA_ONSTACK and the thread is not on that stack already.
func (s AltStack) FrameTop(sp, below uintptr, flags uint64) uintptr {
	if flags&SA_ONSTACK != 0 && s.Size != 0 && !s.On(sp) {
		return s.SP + s.Size
	}
	return sp - below
}

// Saved returns the uc_stack a frame records for a thread at sp that takes a signal under
// flags: SS_DISABLE without an alternate stack, SS_ONSTACK when the handler runs on it (the
// thread was on it, or SA_ONSTACK moves it there), else 0.
func (s AltStack) Saved(sp uintptr, flags uint64) Stack {
	st := Stack{SP: uint64(s.SP), Flags: SS_DISABLE, Size: uint64(s.Size)}
	if s.Size != 0 {
		st.Flags = 0
		if s.On(sp) || flags&SA_ONSTACK != 0 {
			st.Flags = SS_ONSTACK
		}
	}
	return st
}
