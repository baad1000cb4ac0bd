package amd64

// What the sampler needs to know about the context an interrupt stopped.

// InterruptedFrame returns the address of the Frame of the trap being handled on this CPU
// (CPU.CurrentFrame), or 0 outside a trap handler.
//
//go:nosplit
func InterruptedFrame() uintptr

// Readable reports whether the 8 bytes at va can be loaded without a fault under the page
// tables in use (CR3), so that code in interrupt context can check a pointer it did not make
// before it dereferences it. A page that is not present (demand paging has not touched it yet)
// is not readable: nothing may fault in an interrupt handler.
//
//go:nosplit
func Readable(va uintptr) bool {
	if va&7 != 0 {
		return false
	}
	pt := PageTable{Root: uintptr(readCR3() &^ 0xfff)}
	_, _, ok := pt.Lookup(va)
	return ok
}
