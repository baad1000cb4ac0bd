package unwind

import (
	"github.com/unitrace/unitrace/arch/goabi"
	"github.com/unitrace/unitrace/trace/record"
)

// Context is a thread's registers as a trap frame saved them (the frame an interrupt stopped it
// in, or a thread's saved context), and the stack they run on.
type Context struct {
	PC, SP, FP, LR uintptr // LR: arm64's link register (0 on amd64)
	Kind           record.StackKind
	Lo, Hi         uintptr // the stack's bounds (0, 0 when unknown)
	walkLo         uintptr // where its frame-pointer walk may start: Lo, or just below SP
	g              uintptr // the g it ran as (0 when unknown): a signal handler's finds its M
}

// ContextAt reads the registers the Frame at fa saved (an interrupt frame, or a thread's saved
// context) and classifies the stack they run on.
//
//go:nosplit
func ContextAt(fa uintptr) Context {
	var c Context
	c.read(fa)
	return c
}

// SavedContext is the context a goroutine that is not running saved (the runtime's gobuf: the
// pc it resumes at, its sp and frame pointer), on its stack [lo, hi): its walk (WalkThread)
// steps by the tables where its frame pointer cannot be trusted, as a trap frame's does.
//
//go:nosplit
func SavedContext(pc, sp, fp, lo, hi uintptr) Context {
	c := Context{PC: pc, SP: sp, FP: fp, Kind: record.StackGoroutine}
	if lo < hi && sp >= lo && sp < hi {
		c.Lo, c.Hi, c.walkLo = lo, hi, max(lo, sp-frameBelowSP)
	}
	return c
}

// readInterrupted reads the context the trap whose frame is at fa interrupted, as a crossing
// walk does: kernel code (Kind record.StackInterrupt) when that trap nested in another one's
// handler, else a thread's, on the stack read found.
//
//go:nosplit
func (c *Context) readInterrupted(fa uintptr) {
	c.read(fa)
	if framePrev(fa) != 0 {
		c.Kind = record.StackInterrupt
	}
}

// Walk bounds a walk of the context's chain: inside its own stack, from just below its SP,
// every page checked (another thread's stack may be demand-paged). When the stack is unknown
// (Hi == 0) every walk stops at its first frame: callers check Hi and do not walk.
//
//go:nosplit
func (c *Context) Walk() Walk {
	var w Walk
	c.bound(&w)
	return w
}

// bound sets w's bounds to the context's stack and the image's text (Walk), in place.
//
//go:nosplit
func (c *Context) bound(w *Walk) {
	w.StackLo, w.StackHi = c.walkLo, c.Hi
	w.TextLo, w.TextHi = textRange()
	w.Mapped = true
}

// Words returns the two words at the context's SP, or zeros when they are not inside its stack
// or not mapped: a frameless leaf's return address is there, which the host recovers (its leaf
// fix).
//
//go:nosplit
func (c *Context) Words() (w0, w1 uintptr) {
	if c.Hi != 0 && c.SP >= c.Lo && c.SP+16 <= c.Hi && readable(c.SP) && readable(c.SP+8) {
		return load(c.SP), load(c.SP + 8)
	}
	return 0, 0
}

// Which stack an interrupted thread was on, from its g. The arch files find g (amd64: at
// -8(FS); arm64: in R28) and the kernel's stack bounds; the rest is the same on both.

// Offsets into the Go runtime's g and m (arch/goabi, checked against the toolchain by
// tests/layout).
const (
	gStackLo = goabi.GStackLo
	gStackHi = goabi.GStackHi
	gM       = goabi.GM
	mG0      = goabi.MG0
	maxStack = 1 << 30 // larger "stacks" are garbage
)

// classify finds the stack c.SP is on and its bounds: a kernel stack, or the stack of g (0 when
// the arch could not find one), or the system stack or the signal stack of g's M. Every
// pointer it follows is checked against the page tables first (readable): an interrupt handler
// must never fault.
//
// The runtime's assembly sometimes runs on the M's g0 stack while g still names the goroutine
// and the frame pointer still points into the goroutine's stack (runtime.nanotime1 and the
// other vDSO calls switch SP only): then the chain is walked on the goroutine's stack, where
// its frames are (walkLo).
//
//go:nosplit
func (c *Context) classify(g uintptr) {
	c.Kind, c.Lo, c.Hi, c.walkLo, c.g = record.StackUnknown, 0, 0, 0, g
	if lo, hi, ok := kernelStackBounds(c.SP); ok {
		c.Kind, c.Lo, c.Hi = record.StackKernel, lo, hi
		c.walkLo = max(lo, c.SP-frameBelowSP)
		return
	}
	lo, hi, ok := gStack(g)
	if !ok {
		return
	}
	m := uintptr(0)
	if readable(g + gM) {
		m = load(g + gM)
	}
	g0 := uintptr(0)
	if m != 0 && readable(m+mG0) {
		g0 = load(m + mG0)
	}
	switch {
	case c.SP >= lo && c.SP < hi:
		c.Kind, c.Lo, c.Hi = record.StackGoroutine, lo, hi
		if g0 == g {
			c.Kind = record.StackSystem // the M's g0: the runtime's own stack
		}
		c.walkLo = max(lo, c.SP-frameBelowSP)
	case g0 != 0 && g0 != g:
		slo, shi, ok := gStack(g0)
		if !ok || c.SP < slo || c.SP >= shi {
			break
		}
		c.Kind = record.StackSystem
		if c.FP >= lo && c.FP < hi {
			c.Lo, c.Hi, c.walkLo = lo, hi, lo // frames still on the goroutine's stack
		} else {
			c.Lo, c.Hi, c.walkLo = slo, shi, max(slo, c.SP-frameBelowSP)
		}
	}
	if c.Hi == 0 && m != 0 && readable(m+goabi.MGsignal) {
		// The M's signal stack, which a signal handler's first instructions run on as the g
		// they interrupted: the runtime's sigtrampgo switches g to gsignal only later.
		gs := load(m + goabi.MGsignal)
		if slo, shi, ok := gStack(gs); ok && gs != g && c.SP >= slo && c.SP < shi {
			c.Kind, c.Lo, c.Hi, c.walkLo = record.StackGoroutine, slo, shi, max(slo, c.SP-frameBelowSP)
		}
	}
}

// gStack returns g's stack bounds, if g can be read and they look like a stack.
//
//go:nosplit
func gStack(g uintptr) (lo, hi uintptr, ok bool) {
	if g == 0 || !readable(g+gStackLo) || !readable(g+gStackHi) {
		return 0, 0, false
	}
	lo, hi = load(g+gStackLo), load(g+gStackHi)
	return lo, hi, lo < hi && hi-lo <= maxStack
}

// goidOffset is the offset of g.goid, from the image's goroutine layout (SetGoidOffset); 0
// until the kernel knows it, and then no context has a goroutine id.
var goidOffset uintptr

// SetGoidOffset tells the unwinder where a g keeps its id: the layout the image builder read
// from the image's DWARF (package goroutines). The kernel calls it once at boot.
func SetGoidOffset(off uintptr) { goidOffset = off }

// Goid is the id of the goroutine the context runs on behalf of: its g's, or on an M's system
// stack the goroutine that M runs (m.curg: the runtime's code on g0 works for it, as
// runtime/pprof charges it), 0 when there is none or it cannot be read.
//
//go:nosplit
func (c *Context) Goid() uint64 {
	g := c.g
	if goidOffset == 0 || g == 0 || (c.Kind != record.StackGoroutine && c.Kind != record.StackSystem) {
		return 0
	}
	if c.Kind == record.StackSystem {
		if !readable(g + gM) {
			return 0
		}
		m := load(g + gM)
		if m == 0 || !readable(m+goabi.MCurg) {
			return 0
		}
		g = load(m + goabi.MCurg)
	}
	if g == 0 || g&7 != 0 || !readable(g+goidOffset) {
		return 0
	}
	return uint64(load(g + goidOffset))
}
