package unwind

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

// Crossing is a walk across trap frames. StartTraps or StartAcross starts it; one Count or
// Store then walks it, counting its words or storing them. Its words are what a record's stack
// holds: for each context, a stack mark (except before the first context of StartTraps), the
// context's exact pc and its frame-pointer chain inside its own stack (a Walk), at most max
// words in all. Its caller has interrupts masked, so a walk started again with the count of the
// first as max sees the same frames and yields the same words: the tracer counts a walk,
// reserves its record, then starts the walk again and stores it into the record.
//
// A walk across trap frames runs only in a trap handler, on a kernel stack whose stand-in g
// makes a stack check safe, so its code need not be nosplit; the tracer walks it from functions
// of its own that are not, since it needs more stack than the linker's nosplit budget leaves
// the emit path on arm64.
type Crossing struct {
	part   Walk    // the chain being walked: the kernel path's (StartAcross), then each context's
	fa     uintptr // the first trap frame
	max    int     // words it may yield in all
	across bool    // StartAcross: the kernel path first, and a mark before every context
	done   bool
	end    record.Flags
	depth  int     // trap frames read
	found  bool    // the last context read is the thread's, where the walk ended
	first  Context // the context of the first trap frame read
	last   Context // the context of the last one, if it was not the first
}

// StartTraps starts a walk of the contexts saved in the chain of trap frames from fa: what the
// trap at fa interrupted (its pc first, unmarked: the sampler's record says stack[0] is exact),
// then what each trap beneath it interrupted, out to the thread.
//
//go:nosplit
func (x *Crossing) StartTraps(fa uintptr, max int) { x.start(fa, max, false) }

// StartAcross starts a walk of the path that reached its caller in a trap handler: the
// frame-pointer chain from fp inside w's bounds (the handler's kernel stack), at most
// kernelPartMax words of it, then on across the trap frames from fa out to the thread, with a
// mark before every context.
//
//go:nosplit
func (x *Crossing) StartAcross(w *Walk, fp, fa uintptr, max int) {
	x.part = *w
	x.part.Start(fp, min(kernelPartMax, max))
	x.start(fa, max, true)
}

//go:nosplit
func (x *Crossing) start(fa uintptr, max int, across bool) {
	x.fa, x.max, x.across, x.done, x.end, x.depth, x.found = fa, max, across, false, 0, 0, false
}

// Count walks and returns how many words there were.
func (x *Crossing) Count() int { return x.walk(nil) }

// Store walks, storing each word in dst, and returns how many there were (any past len(dst)
// are counted, not stored: dst should have room for max).
func (x *Crossing) Store(dst []uint64) int { return x.walk(dst) }

// End says how the walk ended: record.WalkStop, record.StackTrunc, or'd over its links and
// chains, or 0.
func (x *Crossing) End() record.Flags { return x.end }

// First returns the context of the first trap frame the walk read, nil if it read none: for
// StartTraps, what the trap at fa interrupted, which every walk reads (the sampler takes the
// interrupted registers from it rather than reading them again). It points into x: it is
// valid until x starts again.
func (x *Crossing) First() *Context {
	if x.depth == 0 {
		return nil
	}
	return &x.first
}

// Thread returns the thread context the walk ended in, or nil if it reached none. It points
// into x, like First.
func (x *Crossing) Thread() *Context {
	switch {
	case !x.found:
		return nil
	case x.depth == 1:
		return &x.first
	}
	return &x.last
}

// walk is the loop behind Count and Store: it stores word n in dst[n] while n < len(dst), and
// returns how many words it walked. A walk runs once: walked again without a start, it yields
// nothing.
func (x *Crossing) walk(dst []uint64) int {
	if x.done {
		return 0
	}
	x.done = true
	n := 0
	mark := x.across
	if x.across {
		n = x.part.walk(dst, x.max)
		x.end = x.part.End()
	}
	for fa := x.fa; fa != 0; {
		if x.depth == maxTrapFrames {
			x.end |= record.WalkStop
			break
		}
		first := x.depth == 0
		c := &x.last
		if first {
			c = &x.first
		}
		c.readInterrupted(fa)
		x.depth++
		if !first && !inText(c.PC) {
			// The first frame is the running trap's, built by its stub; one reached through a
			// Prev link must hold a pc of the image's code, or the link was garbage.
			x.end |= record.WalkStop
			break
		}
		prev := framePrev(fa)
		limit := x.max
		if prev != 0 {
			limit = min(x.max, n+kernelPartMax) // the thread context beneath needs room
		}
		need := 1
		if mark {
			need = 2
		}
		if n+need > limit {
			x.end |= record.StackTrunc
			break
		}
		if mark {
			m := record.StackMarkThread
			if prev != 0 {
				m = record.StackMarkKernel
			}
			put(dst, n, m)
			n++
		}
		put(dst, n, uint64(c.PC))
		n++
		if prev == 0 { // a thread's: its chain goes on across the signal frames it meets
			var f record.Flags
			n, f, _ = c.walkThread(&x.part, dst, n, limit)
			x.end |= f
		} else if c.Hi != 0 {
			var f record.Flags
			n, f = c.chain(&x.part, dst, n, limit)
			x.end |= f
		}
		if prev == 0 {
			x.found = true
			break
		}
		if !validFrame(prev) {
			x.end |= record.WalkStop
			break
		}
		fa, mark = prev, true
	}
	return n
}

// put stores word v at dst[n] if dst has room for it.
//
//go:nosplit
func put(dst []uint64, n int, v uint64) {
	if uint(n) < uint(len(dst)) {
		dst[n] = v
	}
}

// from is dst from index n on, nil if it has no room there.
//
//go:nosplit
func from(dst []uint64, n int) []uint64 {
	if uint(n) < uint(len(dst)) {
		return dst[n:]
	}
	return nil
}

// inText reports whether pc lies in the image's code.
//
//go:nosplit
func inText(pc uintptr) bool {
	lo, hi := textRange()
	return pc >= lo && pc < hi
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
