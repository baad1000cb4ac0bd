package unwind

import (
	"github.com/unitrace/unitrace/symtab"
	"github.com/unitrace/unitrace/trace/record"
)

// A context's chain: the frame-pointer walk from its registers, with table steps (tablestep.go)
// where the frame pointer cannot be trusted.
//
//   - At the leaf: unless the leaf's frame is linked into the chain at its frame pointer (its
//     record lies where its prologue puts it), its caller is found from the tables, and the walk
//     goes on from the caller's frame record as the tables place it, not from the frame-pointer
//     register, which a frameless leaf has not touched (so the chain would skip its caller) and
//     an assembly function may use for data (so the chain would stop: SHA-256's blockAVX2 keeps
//     its round constants there).
//   - Wherever a frame record fails its checks: the frame whose record it should be is stepped
//     by the tables from the SP its callee's record gives, and the walk goes on from its
//     caller's record.
//
// Each return address found so is preceded by record.StackMarkTable in the stack, so a reader
// knows which frames came from the tables (and the host's leaf fix, which does the same from
// the words a sample saves, does not apply again). Every load is checked as a walk's are
// (inside the stack's bounds, aligned, mapped, a return address in the text), and Go's rules
// hold: never through an SPWRITE function, no caller for a top frame.

// maxTableSteps bounds the table steps in a row that find no frame record to go on from
// (callers that are frameless assembly).
const maxTableSteps = 8

// tableFrame is a frame a table step may start from: the function at pc and its SP there,
// leaf when pc is the instruction a trap interrupted (else a return address, looked up inside
// its call), and for arm64's leaf the link register.
type tableFrame struct {
	pc, sp, lr uintptr
	leaf, ok   bool
}

// lookPC is where to look the frame's function up.
//
//go:nosplit
func (f *tableFrame) lookPC() uintptr {
	if f.leaf {
		return f.pc
	}
	return f.pc - 1
}

// chain walks the callers of the context's pc into dst from word n on, up to limit words in
// all, inside the context's stack (w is bound to it and left walked: a walk that met a signal
// handler's restorer says so), and returns the new word count and how the walk ended.
func (c *Context) chain(w *Walk, dst []uint64, n, limit int) (int, record.Flags) {
	c.bound(w)
	fp, floor := c.FP, uintptr(0)
	cur := tableFrame{pc: c.PC, sp: c.SP, lr: c.LR, leaf: true, ok: true} // whose record fp is
	if d, _, found := funcFrame(c.PC); found && !linked(archRule, d, c.SP, c.FP) {
		m, rec, fl, caller, ok := w.tableSteps(cur, 0, dst, n, limit)
		// (tableSteps looks the leaf up again: an answer from funcFrame's cache.)
		switch {
		case ok:
			n, fp, floor, cur = m, rec, fl, caller
		case m > n:
			return m, w.End() // the table found callers, then nothing more
		}
		// Else the table had nothing to say (an SPWRITE or top frame, a slot that failed its
		// checks): the frame-pointer chain, as without tables.
	}
	for {
		w.resume(fp, floor, limit-n)
		k := w.walk(from(dst, n), limit-n)
		n += k
		if w.End()&record.WalkStop == 0 || w.sig != 0 {
			return n, w.End()
		}
		// A record failed its checks: step the frame it belongs to by the tables.
		f, ok := w.failedFrame(cur, k)
		if !ok {
			return n, w.End()
		}
		if n, fp, floor, cur, ok = w.tableSteps(f, w.prev, dst, n, limit); !ok {
			return n, w.End()
		}
	}
}

// failedFrame is the frame whose record the walk failed at, after k frames from the record of
// frame cur: cur itself when it failed at once, else the frame of the last return address it
// yielded, whose SP its callee's record gives.
func (w *Walk) failedFrame(cur tableFrame, k int) (tableFrame, bool) {
	if k == 0 {
		return cur, cur.ok
	}
	callee := tableFrame{pc: w.before, leaf: false, ok: true} // the frame whose record was good
	if k == 1 {
		callee = cur
	}
	dG := int32(0)
	if archRule == ruleARM64 { // only arm64's rule needs the callee's frame size
		var found bool
		if dG, _, found = funcFrame(callee.lookPC()); !found {
			return tableFrame{}, false
		}
	}
	sp, ok := callerSPFromRecord(archRule, w.prev, dG)
	return tableFrame{pc: w.last, sp: sp, ok: ok}, ok
}

// tableSteps steps from frame f by the tables until it reaches a caller with a frame record,
// storing record.StackMarkTable and each return address it finds into dst from word n on, up
// to limit words in all; floor is the last stack word the walk read (0: none), which every
// word it reads must lie above. It returns the new word count, the caller's record and the
// floor the walk from it must lie above, and the caller's frame; ok is false when the walk is
// over (the table said nothing, a check failed: w's End says which, or the room ran out).
func (w *Walk) tableSteps(f tableFrame, floor uintptr, dst []uint64, n, limit int) (int, uintptr, uintptr, tableFrame, bool) {
	for range maxTableSteps {
		d, flag, found := funcFrame(f.lookPC())
		if !found {
			return n, 0, 0, f, w.stop(record.WalkStop)
		}
		addr, callerSP, inLR, ok := tableSlot(archRule, d, flag, f.sp, f.leaf)
		if !ok {
			// SPWRITE or no delta: Go's traceback stops here too. A top frame has no caller.
			end := record.WalkStop
			if flag&symtab.FuncFlagTopFrame != 0 {
				end = 0
			}
			return n, 0, 0, f, w.stop(end)
		}
		ra := f.lr
		if !inLR {
			if addr <= floor && floor != 0 || !w.wordOK(addr) {
				return n, 0, 0, f, w.stop(record.WalkStop)
			}
			ra, floor = load(addr), addr // a record above the slot: a frame further out
		}
		if ra < w.TextLo || ra >= w.TextHi || isRestorer(ra) || callerSP > w.StackHi {
			end := record.WalkStop
			if ra == 0 && !inLR {
				end = 0 // the outermost frame's zero return address, as a walk ends
			}
			return n, 0, 0, f, w.stop(end)
		}
		if n+2 > limit {
			return n, 0, 0, f, w.stop(record.StackTrunc)
		}
		put(dst, n, record.StackMarkTable)
		put(dst, n+1, uint64(ra))
		n += 2
		f = tableFrame{pc: ra, sp: callerSP, ok: true}
		dc, _, found := funcFrame(ra - 1)
		if !found {
			return n, 0, 0, f, w.stop(record.WalkStop)
		}
		if rec, ok := callerRecord(archRule, dc, callerSP); ok {
			return n, rec, floor, f, true
		}
	}
	return n, 0, 0, f, w.stop(record.WalkStop)
}

// stop ends the walk with end and returns false, for tableSteps' exits.
//
//go:nosplit
func (w *Walk) stop(end record.Flags) bool {
	w.end, w.done = end, true
	return false
}

// wordOK reports whether the word at a may be loaded by the walk: aligned, inside its stack's
// bounds, on a mapped page when it checks them.
//
//go:nosplit
func (w *Walk) wordOK(a uintptr) bool {
	return a&7 == 0 && a >= w.StackLo && a+8 <= w.StackHi && a+8 > a && (!w.Mapped || readable(a))
}
