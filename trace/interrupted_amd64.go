//go:build amd64 && !unitrace_host

package trace

import (
	"github.com/unitrace/unitrace/arch/amd64"
	"github.com/unitrace/unitrace/trace/record"
)

// The interrupted context, from the per-CPU current interrupt frame (arch/amd64 CPU.CurrentFrame).

// Offsets into the Go runtime's g and m (go1.26, linux/amd64; stable for many releases): g
// starts with stack.lo, stack.hi, stackguard0, stackguard1, _panic, _defer, m; m starts with g0.
// The runtime keeps the running g at -8(FS).
const (
	gStackLo = 0
	gStackHi = 8
	gM       = 48
	mG0      = 0
	maxStack = 1 << 30 // larger "stacks" are garbage
)

// interruptedContext reads the interrupted registers from the current interrupt frame; ok is
// false outside an interrupt handler.
//
//go:nosplit
func interruptedContext() (c interrupted, ok bool) {
	fa := amd64.InterruptedFrame()
	if fa == 0 {
		return c, false
	}
	f := (*amd64.Frame)(ptr(fa))
	c.pc, c.sp, c.fp, c.tls = uintptr(f.RIP), uintptr(f.RSP), uintptr(f.RBP), uintptr(f.FSBase)
	c.classify()
	return c, true
}

// classify finds the stack sp is on and its bounds. Every pointer it follows is checked
// against the page tables first (readable): an interrupt handler must never fault.
//
//go:nosplit
func (c *interrupted) classify() {
	if lo, hi, ok := amd64.KernelStackBounds(c.sp); ok {
		c.kind, c.lo, c.hi = record.StackKernel, lo, hi
		return
	}
	c.kind = record.StackUnknown
	if c.tls < 8 || !readable(c.tls-8) {
		return
	}
	g := load(c.tls - 8)
	if g == 0 || !readable(g+gStackLo) || !readable(g+gStackHi) {
		return
	}
	lo, hi := load(g+gStackLo), load(g+gStackHi)
	if lo >= hi || hi-lo > maxStack || c.sp < lo || c.sp >= hi {
		return
	}
	c.kind, c.lo, c.hi = record.StackGoroutine, lo, hi
	if readable(g + gM) {
		if m := load(g + gM); m != 0 && readable(m+mG0) && load(m+mG0) == g {
			c.kind = record.StackSystem // the M's g0: the runtime's own stack
		}
	}
}

// readable reports whether the word at va may be loaded without a fault.
//
//go:nosplit
func readable(va uintptr) bool { return amd64.Readable(va) }

// frameBelowSP is how far below the interrupted sp the innermost frame record may lie: amd64 frames lie at or above sp.
const frameBelowSP = 0

// textWalk bounds a walk of another thread's stack [lo, hi), checking each page.
//
//go:nosplit
func textWalk(lo, hi uintptr) Walk {
	tlo, thi := amd64.TextRange()
	return Walk{StackLo: lo, StackHi: hi, TextLo: tlo, TextHi: thi, Mapped: true}
}
