//go:build arm64 && !unitrace_host

package unwind

import "github.com/unitrace/unitrace/arch/arm64"

// The machine as the arm64 guest kernel sees it: the per-CPU current trap frame (arch/arm64
// CPU.CurrentFrame), the kernel stacks, the page tables and the image's text.

// CurrentFrame is the frame of the trap being handled on this CPU, 0 outside a trap.
//
//go:nosplit
func CurrentFrame() uintptr { return arm64.InterruptedFrame() }

//go:nosplit
func kernelStackBounds(sp uintptr) (lo, hi uintptr, ok bool) { return arm64.KernelStackBounds(sp) }

// readable reports whether the word at va may be loaded without a fault.
//
//go:nosplit
func readable(va uintptr) bool { return arm64.Readable(va) }

// frameBelowSP is how far below the interrupted sp the innermost frame record may lie: Go's
// arm64 functions keep their frame record (caller's fp, then the return address) at sp-8.
const frameBelowSP = 8

// textRange is where the image's code lies: a return address must point there.
//
//go:nosplit
func textRange() (lo, hi uintptr) { return arm64.TextRange() }

// pclntabRange is where the image's function table (runtime.pclntab) lies.
//
//go:nosplit
func pclntabRange() (start, end uintptr) { return arm64.Pclntab() }
