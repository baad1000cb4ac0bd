package trace

import (
	"github.com/unitrace/unitrace/arch/goabi"
	"github.com/unitrace/unitrace/trace/record"
)

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

// classify finds the stack c.sp is on and its bounds: a kernel stack, or the stack of g (0 when
// the arch could not find one), or the system stack of g's M. Every pointer it follows is
// checked against the page tables first (readable): an interrupt handler must never fault.
//
// The runtime's assembly sometimes runs on the M's g0 stack while g still names the goroutine
// and the frame pointer still points into the goroutine's stack (runtime.nanotime1 and the
// other vDSO calls switch SP only): then the chain is walked on the goroutine's stack, where
// its frames are (walkLo).
//
//go:nosplit
func (c *interrupted) classify(g uintptr) {
	if lo, hi, ok := kernelStackBounds(c.sp); ok {
		c.kind, c.lo, c.hi = record.StackKernel, lo, hi
		c.walkLo = max(lo, c.sp-frameBelowSP)
		return
	}
	c.kind = record.StackUnknown
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
	case c.sp >= lo && c.sp < hi:
		c.kind, c.lo, c.hi = record.StackGoroutine, lo, hi
		if g0 == g {
			c.kind = record.StackSystem // the M's g0: the runtime's own stack
		}
		c.walkLo = max(lo, c.sp-frameBelowSP)
	case g0 != 0 && g0 != g:
		slo, shi, ok := gStack(g0)
		if !ok || c.sp < slo || c.sp >= shi {
			return
		}
		c.kind = record.StackSystem
		if c.fp >= lo && c.fp < hi {
			c.lo, c.hi, c.walkLo = lo, hi, lo // frames still on the goroutine's stack
		} else {
			c.lo, c.hi, c.walkLo = slo, shi, max(slo, c.sp-frameBelowSP)
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
