//go:build arm64

package unwind

import "github.com/unitrace/unitrace/arch/arm64"

// OnCurrentStack sets w's bounds for a walk of the stack its caller runs on: the bounds of the
// g in R28 (a thread's goroutine, or a kernel stack's stand-in g in a trap handler) and the
// image's text, no page checks (the stack is in use, so mapped).
//
//go:nosplit
func (w *Walk) OnCurrentStack() {
	w.StackLo, w.StackHi = arm64.CurrentStack()
	w.TextLo, w.TextHi = arm64.TextRange()
	w.Mapped = false
}
