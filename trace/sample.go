package trace

import (
	"github.com/unitrace/unitrace/trace/record"
	"github.com/unitrace/unitrace/trace/ring"
	"github.com/unitrace/unitrace/unwind"
)

// The sampler's records. A sample is the one record whose stack is the interrupted thread's:
// stack[0] is the exact pc the timer interrupt stopped (flagged PC0Exact: never adjusted by
// one), then that thread's frame-pointer chain. Only a point with InterruptBacktrace walks that
// way, and only the sampler's sampler_tick sets it; a point with just Backtrace (the global
// option, or the sampler's debug mode) records the handler's own path as every other
// tracepoint does.

// RegisterFixed registers p under a fixed-meaning id (record.TPSample for the sampler's point):
// its records have a fixed schema the host knows without the DICT, and the DICT still names it.
func RegisterFixed(p *Point, id record.TPID) bool {
	if id == 0 || id >= record.FirstDictID {
		return false
	}
	return register(p, id)
}

// SampleResult says what became of a sample EmitSample was asked to write.
type SampleResult uint8

const (
	SampleWritten SampleResult = iota // in the ring
	SampleNested                      // it landed inside another emit on this CPU: dropped and counted
	SampleNotKept                     // the point is off, no ring, or the ring had no room (counted)
)

// EmitSample writes a SAMPLE record for the sampler's point p: lateNs is how late the tick
// came, weight how many deadlines it stands for, idle whether the CPU was idle. It must run in
// the sampler's interrupt handler (or the record says it had no interrupt frame).
//
//go:nosplit
//go:noinline
func (p *Point) EmitSample(lateNs, weight uint64, idle bool) SampleResult {
	if s := p.state.Load(); s&Enabled != 0 {
		return emitSample(p, s, lateNs, weight, idle, false)
	}
	return SampleNotKept
}

// EmitSampleHere writes a SAMPLE record of the kernel code that calls it, in a trap handler
// with interrupts masked: the path that reached the call (return addresses: stack[0] is not
// exact), then, across the trap frame, the thread the trap interrupted. The kernel takes it on
// a trap's way out, when the sampler's deadline passed while the exit ran masked: the timer's
// interrupt would be taken at the thread's first instruction and charge kernel time to it.
//
//go:nosplit
//go:noinline
func (p *Point) EmitSampleHere(lateNs, weight uint64, idle bool) SampleResult {
	if s := p.state.Load(); s&Enabled != 0 {
		return emitSample(p, s, lateNs, weight, idle, true)
	}
	return SampleNotKept
}

// emitSample is not nosplit, unlike the other emits: it runs only in the sampler's handler, on
// a kernel stack whose stand-in g makes the stack check safe (docs/kernel.md), and its walk
// across trap frames needs more stack than the linker's nosplit budget.
//
//go:noinline
func emitSample(p *Point, state uint32, lateNs, weight uint64, idle, here bool) SampleResult {
	flags := irqSave()
	cpu := cpuIndex()
	if cpu < 0 || cpu >= MaxCPUs {
		irqRestore(flags)
		return SampleNotKept
	}
	cs := &cpus[cpu]
	if cs.inEmit.Load() != 0 {
		cs.ring.Drop(ring.CauseNested)
		irqRestore(flags)
		return SampleNested
	}
	cs.inEmit.Store(1)
	ts := ticks()

	var args [record.SampleArgsCrossed]uint64
	nargs := record.SampleArgsWeighted
	var rflags record.Flags
	var leafKind record.StackKind
	var x unwind.Crossing
	var threadKind record.StackKind // the thread context's, when a crossing walk reached one
	goid := uint64(0)               // the goroutine the interrupted thread ran, 0 if none or unknown
	fa := uintptr(0)
	if state&InterruptBacktrace != 0 {
		fa = unwind.CurrentFrame()
	}
	// One walk, into frames: the record's size depends on its depth, so the walk runs before the
	// ring is reserved, and a second walk to write the frames into the ring cost as much again
	// under TCG as the copy of at most MaxDepth words.
	var frames [MaxDepth]uint64
	nframes := 0
	var w unwind.Walk
	switch {
	case here && fa != 0:
		// The caller's own path, then the trap frames' contexts out to the thread.
		rflags |= record.StackFromInterrupt | record.HasStack
		w.OnCurrentStack()
		fp := unwind.CallerFP()
		x.StartAcross(&w, fp, fa, MaxDepth)
		nframes = x.Store(frames[:])
		wf := x.End()
		cs.countWalk(wf)
		rflags |= wf
		leafKind = record.StackInterrupt
		nargs, threadKind = putThreadArgs(&args, nargs, x.Thread())
		if t := x.Thread(); t != nil {
			goid = t.Goid()
		}
	case fa != 0:
		// What the interrupt stopped: its exact pc, its chain inside its own stack and, when
		// that was kernel code, each context the traps beneath it saved, out to the thread.
		rflags |= record.PC0Exact | record.StackFromInterrupt | record.HasStack
		x.StartTraps(fa, MaxDepth)
		nframes = x.Store(frames[:])
		wf := x.End()
		cs.countWalk(wf)
		rflags |= wf
		leaf := x.First() // the interrupted context: the walk's first
		leafKind = leaf.Kind
		args[record.SampleArgSP], args[record.SampleArgFP] = uint64(leaf.SP), uint64(leaf.FP)
		args[record.SampleArgLR] = uint64(leaf.LR)
		w0, w1 := leaf.Words()
		args[record.SampleArgW0], args[record.SampleArgW1] = uint64(w0), uint64(w1)
		if leafKind == record.StackInterrupt {
			nargs, threadKind = putThreadArgs(&args, nargs, x.Thread())
			if t := x.Thread(); t != nil {
				goid = t.Goid()
			}
		} else {
			goid = leaf.Goid()
		}
	case state&(InterruptBacktrace|Backtrace) != 0:
		// No interrupt frame (or the debug mode that asks for the ordinary walk): the path
		// that reached this point, like any tracepoint's backtrace.
		if state&InterruptBacktrace != 0 {
			rflags |= record.NoInterruptFrame
		}
		rflags |= record.HasStack
		w.OnCurrentStack()
		fp := unwind.CallerFP()
		w.Start(fp, MaxDepth)
		nframes = w.Store(frames[:])
		wf := w.End()
		cs.countWalk(wf)
		rflags |= wf
	}
	st8 := record.MakeSampleState(idle, leafKind)
	if nargs == record.SampleArgsCrossed {
		st8 |= record.SampleState(threadKind) << record.ThreadKindShift
	}
	args[record.SampleArgTID] = uint64(cs.tid.Load())
	if goid != 0 {
		args[record.SampleArgTID] = goid
		st8 |= record.StateGoroutine
	}
	args[record.SampleArgLateNs] = lateNs
	args[record.SampleArgState] = uint64(st8)
	args[record.SampleArgWeight] = max(weight, 1)

	res := SampleNotKept
	size := record.HeaderSize + (nargs+nframes)*record.SlotSize
	if addr, _, ok := cs.ring.Reserve(uint32(size), ts); ok {
		store16(addr+record.OffTPID, p.id)
		store8(addr+record.OffFlags, uint8(rflags))
		store8(addr+record.OffNFrames, uint8(nframes))
		store32(addr+record.OffTID, cs.tid.Load())
		a := addr + record.OffArgs
		for i := 0; i < nargs; i++ {
			store(a+uintptr(i)*8, args[i])
		}
		st := a + uintptr(nargs)*8
		for i := 0; i < nframes; i++ {
			store(st+uintptr(i)*8, frames[i])
		}
		cs.ring.Commit()
		res = SampleWritten
	}
	cs.inEmit.Store(0)
	irqRestore(flags)
	return res
}

// putThreadArgs stores the registers of the thread context a crossing walk ended in (nil: it
// reached none) in a sample's appended slots, and returns the sample's argument count and that
// context's stack kind.
//
//go:nosplit
func putThreadArgs(args *[record.SampleArgsCrossed]uint64, nargs int, t *unwind.Context) (int, record.StackKind) {
	if t == nil {
		return nargs, 0
	}
	w0, w1 := t.Words()
	args[record.SampleArgThreadSP], args[record.SampleArgThreadFP] = uint64(t.SP), uint64(t.FP)
	args[record.SampleArgThreadLR] = uint64(t.LR)
	args[record.SampleArgThreadW0], args[record.SampleArgThreadW1] = uint64(w0), uint64(w1)
	return record.SampleArgsCrossed, t.Kind
}

// EmitThrottle writes a THROTTLE record: the sampler on this CPU changed its rate.
//
//go:nosplit
func EmitThrottle(oldHz, newHz uint64) {
	flags := irqSave()
	cpu := cpuIndex()
	if cpu >= 0 && cpu < MaxCPUs && cpus[cpu].inEmit.Load() != 0 {
		cpus[cpu].ring.Drop(ring.CauseNested) // the sampler's handler inside another emit
	} else if cpu >= 0 && cpu < MaxCPUs {
		cs := &cpus[cpu]
		size := record.HeaderSize + record.ThrottleArgs*record.SlotSize
		if addr, _, ok := cs.ring.Reserve(uint32(size), ticks()); ok {
			store16(addr+record.OffTPID, uint16(record.TPThrottle))
			store8(addr+record.OffFlags, 0)
			store8(addr+record.OffNFrames, 0)
			store32(addr+record.OffTID, cs.tid.Load())
			store(addr+record.OffArgs+record.ThrottleArgOldHz*8, oldHz)
			store(addr+record.OffArgs+record.ThrottleArgNewHz*8, newHz)
			cs.ring.Commit()
		}
	}
	irqRestore(flags)
}
