package unwind

import "github.com/unitrace/unitrace/symtab"

// The table step's rules. Where a frame-pointer chain cannot be trusted (a leaf whose frame
// is not linked into it: frameless, in its prologue or epilogue, or keeping something else in
// the frame-pointer register; or a frame record that fails its checks), the caller is found
// as Go's own traceback finds it, from the image's SP-delta tables (pclntab's pcsp): the
// function holding pc has moved SP down by delta bytes since it was entered, so its return
// address lies at a known place above SP, and its caller's SP is known too. Go's rules hold:
// never through a function that writes SP arbitrarily (SPWRITE), no caller for a top frame.
// These functions are the arithmetic only, on a delta already looked up (funcFrame), so that
// host tests cover both architectures' rules.

// stepRule is one architecture's rule for the table step.
type stepRule uint8

const (
	// ruleAMD64: CALL pushed the return address, so it lies at SP+delta and the caller's SP is
	// 8 above it. The prologue pushes the caller's frame pointer just below it.
	ruleAMD64 stepRule = iota
	// ruleARM64: BL left the return address in LR; the prologue stores LR at the new SP and
	// the caller's frame pointer 8 below it, so with a delta the return address lies at SP and
	// the caller's SP is SP+delta; with none it is still in LR (a leaf only: a frame with a
	// call in progress has saved it).
	ruleARM64
)

// linked reports whether the frame at sp, whose function has the SP delta d there, is linked
// into the frame-pointer chain at fp: its own frame record is where its prologue put it, so
// the chain from fp yields its caller and a table step there would find the same.
//
//go:nosplit
func linked(rule stepRule, d int32, sp, fp uintptr) bool {
	if rule == ruleAMD64 {
		return d >= 8 && fp == sp+uintptr(d)-8
	}
	return d > 0 && fp == sp-8
}

// tableSlot is where the return address of the frame at sp lies, for its function's SP delta
// d and flags there: at addr (inLR false), or still in the link register (inLR true, arm64's
// leaf); and the caller's SP. ok is false when the table has nothing to say: an SPWRITE
// function, a top frame, no delta, or a slot that would wrap.
//
//go:nosplit
func tableSlot(rule stepRule, d int32, flag symtab.FuncFlag, sp uintptr, leaf bool) (addr, callerSP uintptr, inLR, ok bool) {
	if flag&(symtab.FuncFlagSPWrite|symtab.FuncFlagTopFrame) != 0 || d < 0 {
		return 0, 0, false, false
	}
	if rule == ruleAMD64 {
		addr = sp + uintptr(d)
		return addr, addr + 8, false, addr >= sp && addr+8 > addr
	}
	if d == 0 {
		return 0, sp, true, leaf
	}
	return sp, sp + uintptr(d), false, sp+uintptr(d) > sp
}

// callerRecord is where a caller keeps its frame record, from which the frame-pointer walk
// can go on, given its SP at the call and its SP delta d there (looked up inside the call):
// amd64's prologue pushes the frame pointer just below the caller's own return address, at
// SP+d-8; arm64's stores it 8 below its SP. ok is false when the caller has no frame record
// (a frameless function that calls: assembly), so the table must step it too.
//
//go:nosplit
func callerRecord(rule stepRule, d int32, callerSP uintptr) (fp uintptr, ok bool) {
	if rule == ruleAMD64 {
		if d < 8 {
			return 0, false
		}
		return callerSP + uintptr(d) - 8, callerSP+uintptr(d) > callerSP
	}
	if d <= 0 || callerSP < 8 {
		return 0, false
	}
	return callerSP - 8, true
}

// callerSPFromRecord is the SP that frame F had at its call, when F's callee G has its frame
// record at rec and had the SP delta dG at its pc: what a table step needs once F's own record
// fails its checks. amd64's G pushed its record right below the return address into F, so F's
// SP is 16 above the record; arm64's G keeps it 8 below its SP, which is F's minus dG.
//
//go:nosplit
func callerSPFromRecord(rule stepRule, rec uintptr, dG int32) (uintptr, bool) {
	if rule == ruleAMD64 {
		return rec + 16, rec+16 > rec
	}
	if dG <= 0 {
		return 0, false
	}
	sp := rec + 8 + uintptr(dG)
	return sp, sp > rec
}
