//go:build amd64 && !unitrace_host

package trace

import "github.com/unitrace/unitrace/arch/amd64"

// The interrupted context on amd64, from the per-CPU current interrupt frame
// (arch/amd64 CPU.CurrentFrame). The runtime keeps the running g at -8(FS).

// interruptedContext reads the interrupted registers from the current interrupt frame; ok is
// false outside an interrupt handler.
//
//go:nosplit
func interruptedContext() (c interrupted, ok bool) {
	fa := amd64.InterruptedFrame()
	if fa == 0 {
		return c, false
	}
	contextAt(fa, &c)
	return c, true
}

// contextAt reads into c a thread's registers from the Frame at fa (an interrupt frame, or a thread's
// saved context) and classifies the stack they run on.
//
//go:nosplit
func contextAt(fa uintptr, c *interrupted) {
	f := (*amd64.Frame)(ptr(fa))
	c.pc, c.sp, c.fp, c.tls = uintptr(f.RIP), uintptr(f.RSP), uintptr(f.RBP), uintptr(f.FSBase)
	g := uintptr(0)
	if c.tls >= 8 && readable(c.tls-8) {
		g = load(c.tls - 8)
	}
	c.classify(g)
}

//go:nosplit
func kernelStackBounds(sp uintptr) (lo, hi uintptr, ok bool) { return amd64.KernelStackBounds(sp) }

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
