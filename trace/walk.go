package trace

import "github.com/unitrace/unitrace/trace/record"

// MaxDepth is the most frames a walk records (Go's own CPU profiler's limit).
const MaxDepth = 64

// Walk is a frame-pointer walk's bounds: the stack it may read and the text its return
// addresses must fall in.
type Walk struct {
	StackLo, StackHi uintptr // the walked thread's stack: every frame must lie inside
	TextLo, TextHi   uintptr // return addresses must point into the image's code
	// Mapped asks for every frame's page to be checked against the page tables before it is
	// read: for another thread's stack, where a page inside the bounds may never have been
	// touched (demand paging) and a fault in an interrupt handler is fatal.
	Mapped bool
}

// frames walks the frame-pointer chain from fp and, if out is non-zero, stores each return
// address as a little-endian word at out, out+8, ... It returns how many it found and the
// record flags describing how the walk ended: 0 at the natural end of the chain (a zero frame
// pointer), WalkStop when a check failed (the bad frame is not recorded), StackTrunc at max.
//
// Every load is checked before it is made: the frame must lie inside [StackLo, StackHi),
// 8-byte aligned, strictly above the previous one (a walk only moves toward the stack's base),
// and the return address must point into the text. So garbage in a frame pointer ends the walk
// and never faults, and nothing outside the text is ever recorded as a frame.
//
//go:nosplit
func (w *Walk) frames(fp uintptr, out uintptr, max int) (n int, flags record.Flags) {
	prev := uintptr(0)
	page := ^uintptr(0) // the last page checked (Mapped)
	for n < max {
		if fp == 0 {
			return n, 0
		}
		if w.StackHi < 16 || fp&7 != 0 || fp < w.StackLo || fp > w.StackHi-16 || fp <= prev {
			return n, record.WalkStop
		}
		if w.Mapped {
			for _, a := range [2]uintptr{fp, fp + 8} {
				if a>>12 != page {
					if !readable(a) {
						return n, record.WalkStop
					}
					page = a >> 12
				}
			}
		}
		ret := load(fp + 8)
		if ret < w.TextLo || ret >= w.TextHi {
			if ret == 0 {
				return n, 0 // the outermost frame (goexit, a thread's entry) has no caller
			}
			return n, record.WalkStop
		}
		if out != 0 {
			store(out+uintptr(n)*8, uint64(ret))
		}
		n++
		prev = fp
		fp = load(fp)
	}
	if fp != 0 {
		return n, record.StackTrunc
	}
	return n, 0
}

// PCs walks the chain from fp into pcs, with the same checks as the tracer's own walks, and
// returns how many return addresses it stored and how the walk ended. The kernel's fault report
// uses it, so every frame-pointer walk in the kernel validates each load the same way.
//
//go:nosplit
func (w *Walk) PCs(fp uintptr, pcs []uint64) (int, record.Flags) {
	if len(pcs) == 0 {
		return 0, 0
	}
	return w.frames(fp, addrOfWords(pcs), len(pcs))
}

// CallerPath stores in pcs the return addresses of the path that reached its caller (where the
// caller was called from, then that function's caller, and so on up the stack it runs on),
// with the checks of every walk, and returns how many it stored. The kernel records with it
// where a thread blocked.
//
//go:nosplit
//go:noinline
func CallerPath(pcs []uint64) int {
	w := currentWalk()
	n, _ := w.PCs(callerFP(), pcs)
	return n
}
