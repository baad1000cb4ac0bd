package profile

import (
	"slices"

	"github.com/unitrace/unitrace/symtab"
	"github.com/unitrace/unitrace/trace/record"
	"github.com/unitrace/unitrace/trace/wire"
)

// Code is what the leaf fix needs to know about an image's code, in
// run-time addresses. *Image implements it.
type Code interface {
	// Func returns the physical function holding pc.
	Func(pc uint64) (Func, bool)
	// SPDelta returns the pclntab SP delta at the instruction pc.
	SPDelta(pc uint64) (int32, bool)
	// CallBefore reports whether a call instruction ends at ra; known is
	// false when the code there is not available.
	CallBefore(ra uint64) (call, known bool)
}

// Regs are the state of an interrupted context that a SAMPLE carries: the leaf's (stack[0]),
// or for a sample taken in the kernel also the thread's below it.
type Regs struct {
	PC     uint64 // the interrupted instruction
	SP, FP uint64 // stack and frame pointer (RBP, x29)
	LR     uint64 // link register x30; 0 on amd64
	W0, W1 uint64 // the words at [SP] and [SP+8]
}

// FixResult says what the leaf fix did with one sample, and if it did
// nothing, why.
type FixResult uint8

const (
	FixOff         FixResult = iota // not attempted (--no-leaf-fix)
	FixApplied                      // the skipped caller was inserted
	FixLinked                       // the frame was linked: the chain already holds the caller
	FixNoTrapFrame                  // no exception frame: no PC0_EXACT, or NO_INTERRUPT_FRAME, or no registers
	FixUnknownPC                    // no function holds the pc (or the stack is empty)
	FixTopFrame                     // the function is the top of its stack (TOPFRAME): it has no caller
	FixSPWrite                      // the function writes SP arbitrarily (SPWRITE): its SP delta is unreliable
	FixNoSPDelta                    // the pclntab has no SP delta for the pc
	FixOutOfReach                   // the return address is in a stack word the sampler did not save
	FixNotText                      // the recovered word is not a code address
	FixNotCall                      // the recovered word does not follow a call instruction
	FixUnverified                   // assembly, and no code bytes to check the call with
	FixUnknownArch                  // neither amd64 nor arm64
	FixInGuest                      // the guest's walk found the leaf's caller by the tables (record.StackMarkTable)
	numFixResults
)

var fixNames = [numFixResults]string{
	FixOff:         "off",
	FixApplied:     "fixed",
	FixLinked:      "frame linked",
	FixNoTrapFrame: "no exception frame",
	FixUnknownPC:   "pc in no function",
	FixTopFrame:    "top frame",
	FixSPWrite:     "SP-writing function",
	FixNoSPDelta:   "no SP delta",
	FixOutOfReach:  "return address not saved",
	FixNotText:     "not a code address",
	FixNotCall:     "no call before it",
	FixUnverified:  "assembly, unverifiable",
	FixUnknownArch: "unknown architecture",
	FixInGuest:     "found in the guest",
}

func (r FixResult) String() string {
	if r < numFixResults {
		return fixNames[r]
	}
	return "?"
}

// LeafCaller recovers the return address that the frame-pointer chain of
// an interrupted thread skipped: the caller of a function whose frame is
// not linked into the chain at r.PC (a frameless leaf, or a pc in a
// prologue before the frame pointer is set up or in an epilogue after it is
// restored). Then the chain begins at the caller's caller, and the leaf's
// own return address is found from the pclntab SP delta d at the pc:
//
//   - amd64: the frame is linked iff FP == SP+d-8; otherwise the return
//     address is at [SP+d], which the sample holds for d = 0 (W0) and d = 8
//     (W1), the only values compiled code has while unlinked.
//   - arm64: d == 0 means LR was not saved (or was restored): it is the
//     return address. Otherwise the frame is linked iff FP == SP-8, and when
//     it is not, the return address is the saved LR at [SP] (W0); x30 may
//     already hold something else.
//
// Functions marked TOPFRAME or SPWRITE are never fixed. Whatever word is
// recovered must lie in a function and follow a call instruction; for
// assembly (FuncFlagAsm), which may keep anything in those words, that
// check is required and needs the code bytes. res is FixApplied when ra is
// to be inserted after the leaf.
func LeafCaller(arch wire.Arch, code Code, r Regs) (ra uint64, res FixResult) {
	if arch != wire.ArchAMD64 && arch != wire.ArchARM64 {
		return 0, FixUnknownArch
	}
	fn, ok := code.Func(r.PC)
	if !ok {
		return 0, FixUnknownPC
	}
	switch {
	case fn.Flag&symtab.FuncFlagTopFrame != 0:
		return 0, FixTopFrame
	case fn.Flag&symtab.FuncFlagSPWrite != 0:
		return 0, FixSPWrite
	}
	d, ok := code.SPDelta(r.PC)
	if !ok || d < 0 {
		return 0, FixNoSPDelta
	}
	delta := uint64(d)
	switch arch {
	case wire.ArchAMD64:
		if delta >= 8 && r.FP == r.SP+delta-8 {
			return 0, FixLinked
		}
		switch delta {
		case 0:
			ra = r.W0
		case 8:
			ra = r.W1
		default:
			return 0, FixOutOfReach
		}
	case wire.ArchARM64:
		switch {
		case delta == 0:
			ra = r.LR
		case r.FP == r.SP-8:
			return 0, FixLinked
		default:
			ra = r.W0
		}
	}
	if ra == 0 {
		return 0, FixNotText
	}
	if _, ok := code.Func(ra - 1); !ok {
		return 0, FixNotText
	}
	call, known := code.CallBefore(ra)
	switch {
	case known && !call:
		return 0, FixNotCall
	case !known && fn.Flag&symtab.FuncFlagAsm != 0:
		return 0, FixUnverified
	}
	return ra, FixApplied
}

// SampleRegs returns the registers a SAMPLE record carries, and false when
// the record is not a SAMPLE taken from an exception frame (the leaf fix
// then has nothing to work with).
func SampleRegs(rec *record.Record) (Regs, bool) {
	if g, ok := rec.Goroutine(); ok {
		// A goroutine whose stack starts at its thread's exact pc: the thread's registers.
		if len(rec.Stack) == 0 || rec.Flags&record.PC0Exact == 0 {
			return Regs{}, false
		}
		return Regs{PC: rec.Stack[0], SP: g.ThreadSP, FP: g.ThreadFP, LR: g.ThreadLR, W0: g.ThreadW0, W1: g.ThreadW1}, true
	}
	s, ok := rec.Sample()
	if !ok || len(rec.Stack) == 0 || rec.Flags&record.PC0Exact == 0 || rec.Flags&record.NoInterruptFrame != 0 {
		return Regs{}, false
	}
	return Regs{PC: rec.Stack[0], SP: s.SP, FP: s.FP, LR: s.LR, W0: s.W0, W1: s.W1}, true
}

// ThreadRegs returns the registers of the thread context below a sample taken in the kernel
// (the appended SAMPLE slots), without the pc, which is the word after the stack's
// StackMarkThread. It returns false when the record has none: an older guest, a sample of a
// thread, or a record that is not a SAMPLE.
func ThreadRegs(rec *record.Record) (Regs, bool) {
	if g, ok := rec.Goroutine(); ok {
		if g.ThreadSP|g.ThreadFP|g.ThreadLR|g.ThreadW0|g.ThreadW1 == 0 {
			return Regs{}, false
		}
		return Regs{SP: g.ThreadSP, FP: g.ThreadFP, LR: g.ThreadLR, W0: g.ThreadW0, W1: g.ThreadW1}, true
	}
	s, ok := rec.Sample()
	if !ok || s.ThreadSP|s.ThreadFP|s.ThreadLR|s.ThreadW0|s.ThreadW1 == 0 {
		return Regs{}, false
	}
	return Regs{SP: s.ThreadSP, FP: s.ThreadFP, LR: s.ThreadLR, W0: s.ThreadW0, W1: s.ThreadW1}, true
}

// FixStack applies the leaf fix at stack[0] of a SAMPLE record, with the
// registers of the leaf's context. It returns the record's stack, with the
// recovered return address inserted after stack[0] when res is FixApplied
// (a new slice; the record is not modified). The stack's marks stay where
// they are; Build also fixes the thread's pc after StackMarkThread.
func FixStack(arch wire.Arch, code Code, rec *record.Record) (stack []uint64, res FixResult) {
	if len(rec.Stack) == 0 {
		return rec.Stack, FixUnknownPC
	}
	if len(rec.Stack) > 1 && rec.Stack[1] == record.StackMarkTable {
		return rec.Stack, FixInGuest
	}
	r, ok := SampleRegs(rec)
	if !ok {
		return rec.Stack, FixNoTrapFrame
	}
	ra, res := LeafCaller(arch, code, r)
	if res != FixApplied {
		return rec.Stack, res
	}
	return slices.Insert(slices.Clone(rec.Stack), 1, ra), FixApplied
}
