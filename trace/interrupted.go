package trace

import "github.com/unitrace/unitrace/trace/record"

// Which stack an interrupted thread was on, from its g. The arch files find g (amd64: at
// -8(FS); arm64: in R28) and the kernel's stack bounds; the rest is the same on both.

// Offsets into the Go runtime's g and m (go1.26; the same on amd64 and arm64, and stable for
// many releases): g starts with stack.lo, stack.hi, stackguard0, stackguard1, _panic, _defer,
// m; m starts with g0.
const (
	gStackLo = 0
	gStackHi = 8
	gM       = 48
	mG0      = 0
	maxStack = 1 << 30 // larger "stacks" are garbage
)

// classify finds the stack c.sp is on and its bounds: a kernel stack, or the stack of g (0 when
// the arch could not find one). Every pointer it follows is checked against the page tables
// first (readable): an interrupt handler must never fault.
//
//go:nosplit
func (c *interrupted) classify(g uintptr) {
	if lo, hi, ok := kernelStackBounds(c.sp); ok {
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
