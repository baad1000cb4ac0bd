//go:build unitrace_host

package trace

// A host process is never inside an interrupt handler: the sample path falls back to the
// ordinary walk, as the guest does outside one.

//go:nosplit
func interruptedContext() (c interrupted, ok bool) { return c, false }

//go:nosplit
func contextAt(fa uintptr, c *interrupted) {}

//go:nosplit
func readable(va uintptr) bool { return va&7 == 0 }

//go:nosplit
func textWalk(lo, hi uintptr) Walk { return Walk{StackLo: lo, StackHi: hi} }

// frameBelowSP: see interrupted_amd64.go.
const frameBelowSP = 0

//go:nosplit
func kernelStackBounds(sp uintptr) (lo, hi uintptr, ok bool) { return 0, 0, false }
