package unwind

import "github.com/unitrace/unitrace/trace/record"

// MaxDepth is the most frames a walk records (Go's own CPU profiler's limit).
const MaxDepth = 64

// Walk is a walk along one frame-pointer chain: the bounds its loads must stay in, which its
// maker sets (OnCurrentStack, Context.Walk, or by hand), and how far it has got. Start it at a
// frame pointer, then take the chain's return addresses, innermost first, one at a time,
//
//	w.Start(fp, MaxDepth)
//	for w.Next() {
//		use(w.PC())
//	}
//	how := w.End()
//
// or all the rest in one loop (Count, Store): the tracer's emits count a walk, reserve their
// record, then start the walk again and store it into the record.
//
// Every load is checked before it is made: the frame must lie inside [StackLo, StackHi),
// 8-byte aligned, strictly above the previous one (a walk only moves toward the stack's base),
// on a mapped page if Mapped, and the return address must point into the text. So garbage in a
// frame pointer ends the walk and never faults, and nothing outside the text is ever yielded.
//
// A Walk is a plain struct that its walker keeps on its own stack and starts again in place,
// not a range-over-func iterator: the emits walk in nosplit code that must not allocate, and a
// function returning an iterator closure allocates the closure whenever the compiler does not
// inline it (always in its own package's copy, which cmd/kernelcheck reports), and gives the
// loop body a stack check of its own. Next, Count and Store share one loop (walk); Count and
// Store run it over the whole chain, with no call per frame.
type Walk struct {
	StackLo, StackHi uintptr // the walked thread's stack: every frame must lie inside
	TextLo, TextHi   uintptr // return addresses must point into the image's code
	// Mapped asks for every frame's page to be checked against the page tables before it is
	// read: for another thread's stack, where a page inside the bounds may never have been
	// touched (demand paging) and a fault in an interrupt handler is fatal.
	Mapped bool

	fp   uintptr // the next frame record
	prev uintptr // the last one walked (0 before the first)
	page uintptr // the last page found mapped (Mapped)
	left int     // how many more frames the walk may yield
	pc   uint64  // the frame Next moved to
	sig  uintptr // the frame record whose return address was a restorer, where the walk ended
	// The last two return addresses yielded (0: none yet): a table step after a record that
	// failed its checks needs the frames they are in (chain.go).
	last, before uintptr
	end          record.Flags
	done         bool
}

// Start starts the walk (again) at the frame record fp, to yield at most max frames.
//
//go:nosplit
func (w *Walk) Start(fp uintptr, max int) {
	w.fp, w.prev, w.page, w.left, w.end, w.done, w.sig = fp, 0, ^uintptr(0), max, 0, false, 0
	w.last, w.before = 0, 0
}

// resume starts the walk again at the frame record fp, which must lie above floor (the last
// stack word the walk read before), to yield at most max more frames.
//
//go:nosplit
func (w *Walk) resume(fp, floor uintptr, max int) {
	w.Start(fp, max)
	w.prev = floor
}

// over makes w a walk that has ended, at its natural end, without walking anything.
//
//go:nosplit
func (w *Walk) over() { w.end, w.done = 0, true }

// Next moves to the chain's next frame and reports whether there was one.
//
//go:nosplit
func (w *Walk) Next() bool {
	var one [1]uint64
	if w.walk(one[:], 1) == 0 {
		return false
	}
	w.pc = one[0]
	return true
}

// PC is the return address of the frame Next moved to.
//
//go:nosplit
func (w *Walk) PC() uint64 { return w.pc }

// Count walks the rest of the chain and returns how many frames it had.
//
//go:nosplit
func (w *Walk) Count() int { return w.walk(nil, w.left) }

// Store walks on, storing each frame's return address in dst, until the chain ends or dst is
// full, and returns how many it stored.
//
//go:nosplit
func (w *Walk) Store(dst []uint64) int { return w.walk(dst, len(dst)) }

// End says how the walk ended, once it has: 0 at the natural end of the chain (a zero frame
// pointer, or the outermost frame's zero return address), record.WalkStop when a check failed
// (the bad frame is not yielded), record.StackTrunc when it yielded its max frames and the
// chain goes on. It is 0 while the walk can go on.
//
//go:nosplit
func (w *Walk) End() record.Flags { return w.end }

// walk is the one loop behind Next, Count and Store: it walks at most k more frames, stores frame
// i in dst[i] while i < len(dst), and returns how many it walked. It settles how the walk ends
// as soon as that needs no further load (the budget spent, a zero frame pointer), so a Store
// that fills dst with the walk's last allowed frame leaves End set.
//
//go:nosplit
func (w *Walk) walk(dst []uint64, k int) int {
	if w.done {
		return 0
	}
	// The bounds in locals: the stores into dst might alias w as far as the compiler knows,
	// which would make it load them again for every frame.
	lo, hi, tlo, thi, mapped := w.StackLo, w.StackHi, w.TextLo, w.TextHi, w.Mapped
	r0, r1 := restorerPair()
	fp, prev, page := w.fp, w.prev, w.page
	last, before := w.last, w.before
	end, done, sig := record.Flags(0), false, uintptr(0)
	n := min(k, w.left)
	i := 0
	for ; i < n; i++ {
		if hi < 16 || fp&7 != 0 || fp < lo || fp > hi-16 || fp <= prev {
			// A zero frame pointer fails this check too (it is never above the last one): it is
			// the chain's natural end, tested only here to keep it off every frame's path.
			if fp != 0 {
				end = record.WalkStop
			}
			done = true
			break
		}
		if mapped { // the record's two words, each on a page looked up unless it was the last one
			if fp>>12 != page {
				if !readable(fp) {
					end, done = record.WalkStop, true
					break
				}
				page = fp >> 12
			}
			if a := fp + 8; a>>12 != page {
				if !readable(a) {
					end, done = record.WalkStop, true
					break
				}
				page = a >> 12
			}
		}
		ret := load(fp + 8)
		if ret < tlo || ret >= thi {
			if ret != 0 { // 0: the outermost frame (goexit, a thread's entry) has no caller
				end = record.WalkStop
			}
			done = true
			break
		}
		if uint(i) < uint(len(dst)) { // (unsigned: the compiler then needs no bounds check)
			dst[i] = uint64(ret)
		}
		prev = fp
		last, before = ret, last
		if ret == r0 || ret == r1 {
			// A signal handler returns to its restorer here: the chain goes on in the code
			// the signal interrupted, which only the signal frame holds (signal.go).
			i++
			sig, done = fp, true
			break
		}
		fp = load(fp)
	}
	left := w.left - i
	if !done {
		switch {
		case fp == 0:
			done = true
		case left <= 0:
			end, done = record.StackTrunc, true
		}
	}
	w.fp, w.prev, w.page, w.left, w.end, w.done, w.sig = fp, prev, page, left, end, done, sig
	w.last, w.before = last, before
	return i
}

// PCs walks the chain from fp into pcs and returns how many return addresses it stored and how
// the walk ended. The kernel's fault report uses it, so every frame-pointer walk in the kernel
// validates each load the same way.
//
//go:nosplit
func (w *Walk) PCs(fp uintptr, pcs []uint64) (int, record.Flags) {
	if len(pcs) == 0 {
		return 0, 0
	}
	w.Start(fp, len(pcs))
	n := w.Store(pcs)
	return n, w.End()
}

// CallerPath stores in pcs the return addresses of the path that reached its caller (where the
// caller was called from, then that function's caller, and so on up the stack it runs on),
// with the checks of every walk, and returns how many it stored. The kernel records with it
// where a thread blocked.
//
//go:nosplit
//go:noinline
func CallerPath(pcs []uint64) int {
	var w Walk
	w.OnCurrentStack()
	n, _ := w.PCs(CallerFP(), pcs)
	return n
}

// CallerFP returns the frame pointer of its caller's caller (assembly, per architecture).
//
//go:noescape
func CallerFP() uintptr

// Readable reports whether the aligned word at va can be loaded without a fault: the check
// every walk's loads pass, for readers of the runtime's memory outside a walk.
//
//go:nosplit
func Readable(va uintptr) bool { return readable(va) }

// TextRange is where the image's code lies: every return address a walk yields is inside.
//
//go:nosplit
func TextRange() (lo, hi uintptr) { return textRange() }

// OnStack bounds w to the stack [lo, hi) of a thread or goroutine that is not running here,
// every page checked (it may never have been touched).
//
//go:nosplit
func (w *Walk) OnStack(lo, hi uintptr) {
	w.StackLo, w.StackHi = lo, hi
	w.TextLo, w.TextHi = textRange()
	w.Mapped = true
}
