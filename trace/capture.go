package trace

import (
	"github.com/unitrace/unitrace/trace/record"
	"github.com/unitrace/unitrace/unwind"
)

// CaptureFrame fills e with the context in the Frame at fa (a thread's saved context, or the
// frame an interrupt stopped it in) and frames with that thread's validated frame-pointer chain,
// the callers of e.PC (and, for a signal handler, record.StackMarkSignal and the chain of the code
// it interrupted); it returns how many frames it wrote. The walk stays inside the stack the
// context's sp lies on (the g's stack, or a kernel stack), checks every page against the page
// tables, and stops with WalkStop at the first frame that fails a check: garbage never becomes
// a frame and never faults. An sp on no known stack gives no walk (StackNoWalk).
func CaptureFrame(fa uintptr, e *StackEntry, frames *[MaxDepth]uint64) int {
	c := unwind.ContextAt(fa)
	e.PC, e.SP, e.FP, e.LR = uint64(c.PC), uint64(c.SP), uint64(c.FP), uint64(c.LR)
	e.StackKind = uint8(c.Kind)
	e.Ticks = ticks()
	// The words a frameless leaf's return address may be in (the host's leaf fix).
	w0, w1 := c.Words()
	e.W0, e.W1 = uint64(w0), uint64(w1)
	n, wf, walked := c.WalkThread(frames[:]) // a handler's chain goes on in what it interrupted
	if !walked {
		e.Flags |= StackNoWalk
		return 0
	}
	e.Flags |= StackFlags(wf & (record.StackTrunc | record.WalkStop))
	return n
}
