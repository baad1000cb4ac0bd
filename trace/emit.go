package trace

import (
	"github.com/unitrace/unitrace/trace/record"
	"github.com/unitrace/unitrace/trace/ring"
	"github.com/unitrace/unitrace/unwind"
)

// The emit path. Emit0..Emit4 are the only entry points a tracepoint site calls: each checks
// the enabled bit (the disabled path: a load and a branch, inlined into the site, since under
// TCG a call and its return cost about as much as 25 plain instructions), then calls its fireN,
// which hands the arguments to emit. fireN is never inlined, so that emit finds the
// tracepoint's caller one frame up. (In a build without inlining, -gcflags=-l or -race, EmitN is
// a frame of its own, and a backtrace starts with it; `unitrace list -b` leaves it out.)

//go:nosplit
func (p *Point) Emit0() {
	if p.state.Load()&Enabled != 0 {
		p.fire0()
	}
}

//go:nosplit
func (p *Point) Emit1(a uint64) {
	if p.state.Load()&Enabled != 0 {
		p.fire1(a)
	}
}

//go:nosplit
func (p *Point) Emit2(a, b uint64) {
	if p.state.Load()&Enabled != 0 {
		p.fire2(a, b)
	}
}

//go:nosplit
func (p *Point) Emit3(a, b, c uint64) {
	if p.state.Load()&Enabled != 0 {
		p.fire3(a, b, c)
	}
}

//go:nosplit
func (p *Point) Emit4(a, b, c, d uint64) {
	if p.state.Load()&Enabled != 0 {
		p.fire4(a, b, c, d)
	}
}

//go:nosplit
//go:noinline
func (p *Point) fire0() { emit(p, p.state.Load(), 0, 0, 0, 0, 0) }

//go:nosplit
//go:noinline
func (p *Point) fire1(a uint64) { emit(p, p.state.Load(), 1, a, 0, 0, 0) }

//go:nosplit
//go:noinline
func (p *Point) fire2(a, b uint64) { emit(p, p.state.Load(), 2, a, b, 0, 0) }

//go:nosplit
//go:noinline
func (p *Point) fire3(a, b, c uint64) { emit(p, p.state.Load(), 3, a, b, c, 0) }

//go:nosplit
//go:noinline
func (p *Point) fire4(a, b, c, d uint64) { emit(p, p.state.Load(), 4, a, b, c, d) }

// emit writes one record for p with n arguments. With Backtrace set it appends the frame-pointer
// chain of the fireN's caller: the first frame is the function that fired the tracepoint. In a
// trap handler that path goes on through the trap frame into the code the trap interrupted (the
// thread that made the system call, or took the fault): after the kernel's chain, which ends at
// the entry stub, come the contexts the trap frames saved (unwind.Across).
//
//go:nosplit
//go:noinline
func emit(p *Point, state uint32, n int, a, b, c, d uint64) {
	flags := irqSave()
	cpu := cpuIndex()
	if cpu < 0 || cpu >= MaxCPUs {
		irqRestore(flags)
		return
	}
	cs := &cpus[cpu]
	if cs.inEmit.Load() != 0 {
		cs.ring.Drop(ring.CauseNested)
		irqRestore(flags)
		return
	}
	cs.inEmit.Store(1)
	ts := ticks()

	var w unwind.Walk
	fp, fa := uintptr(0), uintptr(0)
	nframes := 0
	var rflags record.Flags
	if state&Backtrace != 0 {
		w.OnCurrentStack()
		fp = unwind.CallerFP() // the fireN's frame: its return address is the tracepoint's caller
		if fa = unwind.CurrentFrame(); fa != 0 {
			nframes, rflags = countAcross(&w, fp, fa)
		} else {
			w.Start(fp, MaxDepth)
			nframes = w.Count()
			rflags = w.End()
		}
		cs.countWalk(rflags)
		rflags |= record.HasStack
	}
	size := record.HeaderSize + (n+nframes)*record.SlotSize
	if addr, _, ok := cs.ring.Reserve(uint32(size), ts); ok {
		store16(addr+record.OffTPID, p.id)
		store8(addr+record.OffFlags, uint8(rflags))
		store8(addr+record.OffNFrames, uint8(nframes))
		store32(addr+record.OffTID, cs.tid.Load())
		args := addr + record.OffArgs
		vals := [4]uint64{a, b, c, d}
		for i := 0; i < n && i < len(vals); i++ {
			store(args+uintptr(i)*8, vals[i])
		}
		if nframes > 0 {
			// The second walk sees the same, unchanged chain (interrupts are masked): it writes
			// what the first one counted, straight into the ring.
			st := args + uintptr(n)*8
			if fa != 0 {
				storeAcross(&w, fp, fa, words(st, nframes))
			} else {
				w.Start(fp, nframes)
				w.Store(words(st, nframes))
			}
		}
		cs.ring.Commit()
	}
	cs.inEmit.Store(0)
	irqRestore(flags)
}

// countAcross counts the words of the crossing walk from the fireN's frame fp on w's stack
// across the trap frames from fa (unwind.Crossing.StartAcross) and returns them with how the
// walk ended. It and storeAcross are functions of their own, not nosplit, so that the crossing
// walk stays out of the nosplit emit path's frame (unwind.Crossing says why that is safe).
//
//go:noinline
func countAcross(w *unwind.Walk, fp, fa uintptr) (int, record.Flags) {
	var x unwind.Crossing
	x.StartAcross(w, fp, fa, MaxDepth)
	n := x.Count()
	return n, x.End()
}

// storeAcross stores the words of that walk in dst: as many as countAcross counted, with
// interrupts masked since.
//
//go:noinline
func storeAcross(w *unwind.Walk, fp, fa uintptr, dst []uint64) {
	var x unwind.Crossing
	x.StartAcross(w, fp, fa, len(dst))
	x.Store(dst)
}
