package trace

import "github.com/unitrace/unitrace/trace/record"

// Walks that cross trap frames. Every trap's entry stub saves the context it interrupted in a
// Frame on a kernel stack and links it into the CPU's current-frame chain (Frame.Prev): the
// current frame holds what the running handler interrupted, its Prev what the trap beneath
// interrupted, and so on out to a frame whose Prev is 0, which holds a thread's context. A
// context saved by a frame whose Prev is not 0 is kernel code (a handler that a nested trap
// interrupted: the sampler's interrupt in a system call).
//
// So one stack can run from kernel code through the trap frame into the thread that entered
// the kernel, as perf joins its kernel and user callchains: each context contributes its exact
// pc (from the frame, never a return address) and its frame-pointer chain, validated inside its
// own stack. A record.StackMarkThread or record.StackMarkKernel before a context's pc says
// where it begins and that the pc is exact. The kernel's own chain ends cleanly at the entry
// stub, which clears the frame pointer before it calls the kernel.
//
// Nothing here trusts a frame it did not check: a Prev that does not point at a whole, aligned
// frame on a kernel stack ends the walk (WalkStop), and the contexts' chains get the same checks
// as every other walk.

// maxTrapFrames bounds the frames a walk follows: the sampler's interrupt inside a handler is
// two; more means garbage in a Prev link.
const maxTrapFrames = 4

// kernelPartMax bounds the words a walk gives the kernel's contexts when a thread context
// follows, so that a deep kernel chain leaves the thread's room in the record.
const kernelPartMax = MaxDepth / 2

// threadContext is the thread context a crossing walk ended in: the sampler records its
// registers for the host's leaf fix.
type threadContext struct {
	interrupted
	w0, w1 uintptr // the words at sp and sp+8, when they lie inside the thread's stack
	found  bool
}

// walkTraps walks the contexts saved in the chain of trap frames that starts at fa. For each it
// stores (if out is not 0) or counts: a stack mark (except for the first context when
// markFirst is false, where the caller's record already says stack[0] is exact), the context's
// pc and its frame-pointer chain, at most maxWords words in all. It returns the words and the walk
// flags; t receives the thread context, if the walk reached one. The caller has interrupts
// masked, so a second call sees the same frames and stores what the first one counted.
//
// It is not nosplit, though the emit path that calls it is: it runs only in a trap handler
// (fa != 0), on a kernel stack whose stand-in g makes the stack check safe, and the walk needs
// more stack than the linker's nosplit budget leaves the emit path on arm64.
func walkTraps(fa uintptr, markFirst bool, out uintptr, maxWords int, t *threadContext) (n int, flags record.Flags) {
	mark := markFirst
	for depth := 0; fa != 0; depth++ {
		if depth == maxTrapFrames {
			return n, flags | record.WalkStop
		}
		var c interrupted
		contextAt(fa, &c)
		if depth > 0 && !inText(c.pc) {
			// The first frame is the running trap's, built by its stub; one reached through a
			// Prev link must hold a pc of the image's code, or the link was garbage.
			return n, flags | record.WalkStop
		}
		prev := framePrev(fa)
		limit := maxWords
		if prev != 0 {
			limit = min(maxWords, n+kernelPartMax) // the thread context beneath needs room
			c.kind = record.StackInterrupt
		}
		need := 1
		if mark {
			need = 2
		}
		if n+need > limit {
			return n, flags | record.StackTrunc
		}
		if mark {
			m := record.StackMarkThread
			if prev != 0 {
				m = record.StackMarkKernel
			}
			if out != 0 {
				store(out+uintptr(n)*8, m)
			}
			n++
		}
		if out != 0 {
			store(out+uintptr(n)*8, uint64(c.pc))
		}
		n++
		if c.hi != 0 {
			w := textWalk(c.walkLo, c.hi)
			o := uintptr(0)
			if out != 0 {
				o = out + uintptr(n)*8
			}
			k, wf := w.frames(c.fp, o, limit-n)
			n += k
			flags |= wf
		}
		if prev == 0 {
			if t != nil {
				t.interrupted, t.found = c, true
				t.w0, t.w1 = c.words()
			}
			return n, flags
		}
		if !validFrame(prev) {
			return n, flags | record.WalkStop
		}
		fa, mark = prev, true
	}
	return n, flags
}

// walkAcross walks the frame-pointer chain from fp on the stack w bounds (a trap handler's
// kernel stack), at most kernelPartMax words of it, then on across the trap frames from fa out
// to the thread (walkTraps, which marks where each context begins). It stores (out != 0) or counts at most maxWords words, and returns how many and the
// walk flags; t receives the thread context. A counting call and a storing call with its count
// see the same words.
func walkAcross(w *Walk, fp, fa, out uintptr, maxWords int, t *threadContext) (n int, flags record.Flags) {
	nk, kf := w.frames(fp, out, min(kernelPartMax, maxWords))
	o := uintptr(0)
	if out != 0 {
		o = out + uintptr(nk)*8
	}
	n, tf := walkTraps(fa, true, o, maxWords-nk, t)
	return nk + n, kf | tf
}

// words returns the two words at the context's sp, or zeros when they are not inside its stack.
//
//go:nosplit
func (c *interrupted) words() (w0, w1 uintptr) {
	if c.hi != 0 && c.sp >= c.lo && c.sp+16 <= c.hi && readable(c.sp) && readable(c.sp+8) {
		return load(c.sp), load(c.sp + 8)
	}
	return 0, 0
}

// inText reports whether pc lies in the image's code.
//
//go:nosplit
func inText(pc uintptr) bool {
	w := textWalk(0, 0)
	return pc >= w.TextLo && pc < w.TextHi
}

// validFrame reports whether a whole trap frame can lie at fa: aligned, inside one kernel stack,
// on mapped pages. The stubs build frames only there.
//
//go:nosplit
func validFrame(fa uintptr) bool {
	lo, hi, ok := kernelStackBounds(fa)
	return ok && fa&15 == 0 && fa >= lo && fa+frameBytes <= hi && fa+frameBytes > fa &&
		readable(fa) && readable(fa+frameBytes-8)
}
