//go:build amd64

package unwind

import "github.com/unitrace/unitrace/arch/amd64"

// OnCurrentStack sets w's bounds for a walk of the stack its caller runs on: that stack's
// bounds (from the g at -8(FS)) and the image's text (the linker's runtime.text and
// runtime.etext), no page checks (the stack is in use, so mapped). It is the same in the guest
// and in a host process (the unitrace_host build): user mode may read all of them too.
//
//go:nosplit
func (w *Walk) OnCurrentStack() {
	w.StackLo, w.StackHi = amd64.CurrentStack()
	w.TextLo, w.TextHi = amd64.TextRange()
	w.Mapped = false
}
