//go:build amd64 && !unitrace_host

package trace

import "github.com/unitrace/unitrace/arch/amd64"

// The interrupted context on amd64, from the per-CPU current interrupt frame
// (arch/amd64 CPU.CurrentFrame). The runtime keeps the running g at -8(FS).

// currentFrame is the frame of the trap being handled on this CPU, 0 outside a trap.
//
//go:nosplit
func currentFrame() uintptr { return amd64.InterruptedFrame() }

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
