package unwind

import (
	"sync/atomic"

	"github.com/unitrace/unitrace/arch/goabi"
	"github.com/unitrace/unitrace/trace/record"
)

// Walks across signal frames. A signal handler runs on the thread's signal stack, below the
// frame the kernel built there, and returns to the restorer (sa_restorer, or the kernel's own
// trampoline on arm64): the handler's outermost function has the restorer as its return
// address. A frame-pointer walk from inside the handler reaches that frame and, without more,
// either stops (the saved frame pointer points into the interrupted code's stack, outside the
// signal stack's bounds) or goes on from the interrupted frame pointer, past the one function
// it cannot see: the interrupted instruction's, whose pc only the signal frame holds.
//
// So a walk that meets the restorer as a return address ends there (Walk.sig), and a thread
// context's walk goes on across the signal frame, as gdb shows a handler's caller: a
// record.StackMarkSignal, the interrupted pc (exact, from the frame's saved registers), and the
// interrupted frame-pointer chain inside the stack the interrupted sp lies on. The Go runtime's
// handler runs on the M's gsignal, so that stack is the M's current goroutine's, its g0's (the
// runtime's own code), or gsignal's again for a handler that a signal interrupted.
//
// The kernel tells the walks which addresses are restorers: the return addresses it gave the
// handlers it started (NoteRestorer). The frame's words are loaded with a walk's checks: inside
// the handler's stack, on mapped pages, the pc in the image's text and the sp on a known stack,
// or the walk stops (WalkStop) there.

// maxRestorers is how many distinct restorers the walks recognise: the Go runtime gives every
// handler the same one (arm64: the kernel's trampoline); a program giving more has the rest
// of its handlers' frames end as before, not crossed.
const maxRestorers = 2

// maxSignalFrames bounds the signal frames one walk crosses: handlers interrupted by handlers.
const maxSignalFrames = 4

var restorers [maxRestorers]atomic.Uintptr

// NoteRestorer records pc as an address that handlers return to. The kernel calls it as it
// starts a handler, under its lock; the walks read the list from any CPU.
//
//go:nosplit
func NoteRestorer(pc uintptr) {
	if pc == 0 {
		return
	}
	for i := range restorers {
		switch restorers[i].Load() {
		case pc:
			return
		case 0:
			restorers[i].Store(pc)
			return
		}
	}
}

// restorerPair returns the restorers a walk compares its return addresses with (0: none).
//
//go:nosplit
func restorerPair() (uintptr, uintptr) { return restorers[0].Load(), restorers[1].Load() }

// crossSignals crosses the signal frame at base (0: none) and every one after it: for each, a
// mark, the interrupted pc and that code's chain, into dst from word n on, up to limit words in
// all; w is the walk that met the frame, whose bounds the frame's words must lie in, and is
// left walked. It returns the new word count and how the crossing ended (WalkStop for a frame
// that failed a check, StackTrunc when the room ran out, or'd with its chains' ends). Like a
// walk across trap frames it runs in a trap handler or the kernel, never on the emit path's
// nosplit budget, so it need not be nosplit.
func (c *Context) crossSignals(w *Walk, base uintptr, dst []uint64, n, limit int) (int, record.Flags) {
	var end record.Flags
	g := c.g
	for k := 0; base != 0; k++ {
		var s Context
		if k == maxSignalFrames || base == badFrame || !s.readSignal(w, base, g) {
			end |= record.WalkStop
			break
		}
		if n+2 > limit {
			end |= record.StackTrunc
			break
		}
		put(dst, n, record.StackMarkSignal)
		put(dst, n+1, uint64(s.PC))
		n += 2
		if s.Hi == 0 {
			end |= record.WalkStop // the interrupted sp is on no stack the walk knows
			break
		}
		var f record.Flags
		n, f = s.chain(w, dst, n, limit)
		end |= f
		g = s.g // a handler that interrupted a handler: the outer one ran as this g
		base = w.signalBase()
	}
	return n, end
}

// badFrame is signalBase's answer for a restorer met where no frame can be.
const badFrame = ^uintptr(0)

// walkThread walks a thread context's chain into dst from word n on, up to limit words in all,
// across the signal frames it meets; a context at a handler's first instruction, which has
// pushed no frame yet, starts at its signal frame. walked is false when the context's stack is
// unknown and it is at no handler's entry: there is nothing to walk.
func (c *Context) walkThread(w *Walk, dst []uint64, n, limit int) (int, record.Flags, bool) {
	if base := c.signalEntry(); base != 0 {
		*w = Walk{StackLo: base, StackHi: base + signalFrameBytes, Mapped: true}
		w.TextLo, w.TextHi = textRange()
		n, f := c.crossSignals(w, base, dst, n, limit)
		return n, f, true
	}
	if c.Hi == 0 {
		return n, 0, false
	}
	n, end := c.chain(w, dst, n, limit)
	n, f := c.crossSignals(w, w.signalBase(), dst, n, limit)
	return n, end | f, true
}

// WalkThread walks the chain of a thread's saved context into frames (the callers of its pc),
// across signal frames, and returns how many words it stored and how the walk ended; walked
// is false when there was nothing to walk (trace.CaptureFrame, the snapshots' captures).
func (c *Context) WalkThread(frames []uint64) (n int, end record.Flags, walked bool) {
	var w Walk
	return c.walkThread(&w, frames, 0, len(frames))
}

// isRestorer reports whether pc is an address handlers return to.
//
//go:nosplit
func isRestorer(pc uintptr) bool {
	r0, r1 := restorerPair()
	return pc != 0 && (pc == r0 || pc == r1)
}

// classifyInterrupted finds the stack of the code a signal interrupted, from g, the handler's
// (the M's gsignal once the runtime's handler has switched to it): the M's current goroutine's,
// or else the stacks classify finds from g itself (the M's g0, or gsignal's own).
//
//go:nosplit
func (c *Context) classifyInterrupted(g uintptr) {
	if g != 0 && readable(g+gM) {
		if m := load(g + gM); m != 0 && readable(m+goabi.MCurg) {
			if curg := load(m + goabi.MCurg); curg != 0 && curg != g {
				c.classify(curg)
				if c.Hi != 0 {
					return
				}
			}
		}
	}
	c.classify(g)
}

// frameWords reports whether the n bytes at a lie inside the walk's stack and on mapped
// pages, so that the words there may be loaded.
//
//go:nosplit
func (w *Walk) frameWords(a, n uintptr) bool {
	if a&7 != 0 || a < w.StackLo || a > w.StackHi || w.StackHi-a < n {
		return false
	}
	for p := a &^ 0xfff; p < a+n; p += 0x1000 {
		if !readable(max(p, a)) {
			return false
		}
	}
	return true
}
