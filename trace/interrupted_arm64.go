//go:build arm64 && !unitrace_host

package trace

import (
	"unsafe"

	"github.com/unitrace/unitrace/arch/arm64"
)

// The interrupted context on arm64, from the per-CPU current interrupt frame
// (arch/arm64 CPU.CurrentFrame). The running g is in R28, in both Go ABIs.

// currentFrame is the frame of the trap being handled on this CPU, 0 outside a trap.
//
//go:nosplit
func currentFrame() uintptr { return arm64.InterruptedFrame() }

// contextAt reads into c a thread's registers from the Frame at fa (an interrupt frame, or a thread's
// saved context) and classifies the stack they run on.
//
//go:nosplit
func contextAt(fa uintptr, c *interrupted) {
	f := (*arm64.Frame)(ptr(fa))
	c.pc, c.sp, c.fp, c.lr = uintptr(f.ELR), uintptr(f.SavedSP), uintptr(f.X[29]), uintptr(f.X[30])
	c.classify(uintptr(f.X[28]))
}

// framePrev is the Prev link of the trap frame at fa: the frame of the trap it nested in, 0 if
// it interrupted a thread.
//
//go:nosplit
func framePrev(fa uintptr) uintptr { return uintptr((*arm64.Frame)(ptr(fa)).Prev) }

// frameBytes is the size of a trap frame.
const frameBytes = unsafe.Sizeof(arm64.Frame{})

//go:nosplit
func kernelStackBounds(sp uintptr) (lo, hi uintptr, ok bool) { return arm64.KernelStackBounds(sp) }

// readable reports whether the word at va may be loaded without a fault.
//
//go:nosplit
func readable(va uintptr) bool { return arm64.Readable(va) }

// frameBelowSP is how far below the interrupted sp the innermost frame record may lie: Go's
// arm64 functions keep their frame record (caller's fp, then the return address) at sp-8.
const frameBelowSP = 8

// textWalk bounds a walk of another thread's stack [lo, hi), checking each page.
//
//go:nosplit
func textWalk(lo, hi uintptr) Walk {
	tlo, thi := arm64.TextRange()
	return Walk{StackLo: lo, StackHi: hi, TextLo: tlo, TextHi: thi, Mapped: true}
}
