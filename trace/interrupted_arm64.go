//go:build arm64 && !unitrace_host

package trace

import (
	"github.com/unitrace/unitrace/arch/arm64"
	"github.com/unitrace/unitrace/trace/record"
)

// The interrupted context, from the per-CPU current interrupt frame (arch/arm64 CPU.CurrentFrame).

// Offsets into the Go runtime's g and m (go1.26, linux/arm64, as on amd64). On arm64 the running
// g is in R28, in both ABIs, so it comes straight from the frame.
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
	fa := arm64.InterruptedFrame()
	if fa == 0 {
		return c, false
	}
	f := (*arm64.Frame)(ptr(fa))
	c.pc, c.sp, c.fp, c.lr = uintptr(f.ELR), uintptr(f.SavedSP), uintptr(f.X[29]), uintptr(f.X[30])
	c.classify(uintptr(f.X[28]))
	return c, true
}

// classify finds the stack sp is on and its bounds, from g (R28). Every pointer it follows is
// checked against the page tables first (readable): an interrupt handler must never fault.
//
//go:nosplit
func (c *interrupted) classify(g uintptr) {
	if lo, hi, ok := arm64.KernelStackBounds(c.sp); ok {
		c.kind, c.lo, c.hi = record.StackKernel, lo, hi
		return
	}
	c.kind = record.StackUnknown
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
func readable(va uintptr) bool { return arm64.Readable(va) }

// frameBelowSP is how far below the interrupted sp the innermost frame record may lie: Go's arm64 functions keep their frame record (caller's fp, then the return address) at sp-8.
const frameBelowSP = 8

// textWalk bounds a walk of another thread's stack [lo, hi), checking each page.
//
//go:nosplit
func textWalk(lo, hi uintptr) Walk {
	tlo, thi := arm64.TextRange()
	return Walk{StackLo: lo, StackHi: hi, TextLo: tlo, TextHi: thi, Mapped: true}
}
