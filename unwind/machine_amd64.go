//go:build amd64 && !unitrace_host

package unwind

import "github.com/unitrace/unitrace/arch/amd64"

// The machine as the amd64 guest kernel sees it: the per-CPU current trap frame (arch/amd64
// CPU.CurrentFrame), the kernel stacks, the page tables and the image's text.

// CurrentFrame is the frame of the trap being handled on this CPU, 0 outside a trap.
//
//go:nosplit
func CurrentFrame() uintptr { return amd64.InterruptedFrame() }

//go:nosplit
func kernelStackBounds(sp uintptr) (lo, hi uintptr, ok bool) { return amd64.KernelStackBounds(sp) }

// readable reports whether the word at va may be loaded without a fault.
//
//go:nosplit
func readable(va uintptr) bool { return amd64.Readable(va) }

// frameBelowSP is how far below the interrupted sp the innermost frame record may lie: amd64 frames lie at or above sp.
const frameBelowSP = 0

// textRange is where the image's code lies: a return address must point there.
//
//go:nosplit
func textRange() (lo, hi uintptr) { return amd64.TextRange() }

// pclntabRange is where the image's function table (runtime.pclntab) lies.
//
//go:nosplit
func pclntabRange() (start, end uintptr) { return amd64.Pclntab() }
