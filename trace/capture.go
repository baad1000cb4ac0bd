package trace

import "github.com/unitrace/unitrace/trace/record"

// CaptureFrame fills e with the context in the Frame at fa (a thread's saved context, or the
// frame an interrupt stopped it in) and frames with that thread's validated frame-pointer chain,
// the callers of e.PC; it returns how many frames it wrote. The walk stays inside the stack the
// context's sp lies on (the g's stack, or a kernel stack), checks every page against the page
// tables, and stops with WalkStop at the first frame that fails a check: garbage never becomes
// a frame and never faults. An sp on no known stack gives no walk (StackNoWalk).
func CaptureFrame(fa uintptr, e *StackEntry, frames *[MaxDepth]uint64) int {
	var c interrupted
	contextAt(fa, &c)
	e.PC, e.SP, e.FP, e.LR = uint64(c.pc), uint64(c.sp), uint64(c.fp), uint64(c.lr)
	e.StackKind = uint8(c.kind)
	e.Ticks = ticks()
	if c.hi == 0 {
		e.Flags |= StackNoWalk
		return 0
	}
	// The words a frameless leaf's return address may be in (the host's leaf fix).
	if c.sp >= c.lo && c.sp+16 <= c.hi && readable(c.sp) && readable(c.sp+8) {
		e.W0, e.W1 = uint64(load(c.sp)), uint64(load(c.sp+8))
	}
	w := textWalk(c.walkLo, c.hi)
	n, wf := w.frames(c.fp, addrOfWords(frames[:]), MaxDepth)
	e.Flags |= StackFlags(wf & (record.StackTrunc | record.WalkStop))
	return n
}
