package trace

import (
	"github.com/unitrace/unitrace/trace/record"
	"github.com/unitrace/unitrace/trace/ring"
)

// The sampler's records. A sample is the one record whose stack is the interrupted thread's:
// stack[0] is the exact pc the timer interrupt stopped (flagged PC0Exact: never adjusted by
// one), then that thread's frame-pointer chain. Only a point with InterruptBacktrace walks that
// way, and only the sampler's sampler_tick sets it; a point with just Backtrace (the global
// option, or the sampler's debug mode) records the handler's own path as every other
// tracepoint does.

// interrupted is the context a timer interrupt stopped, and the stack it ran on.
type interrupted struct {
	pc, sp, fp, lr uintptr // lr: arm64's link register (0 on amd64)
	tls            uintptr
	kind           record.StackKind
	lo, hi         uintptr // the stack's bounds (0, 0 when unknown)
}

// RegisterFixed registers p under a fixed-meaning id (record.TPSample for the sampler's point):
// its records have a fixed schema the host knows without the DICT, and the DICT still names it.
func RegisterFixed(p *Point, id record.TPID) bool {
	if id == 0 || id >= record.FirstDictID {
		return false
	}
	return register(p, id)
}

// EmitSample writes a SAMPLE record for the sampler's point p: lateNs is how late the tick
// came, idle whether the CPU was idle. It must run in the timer interrupt's handler (or the
// record says it had no interrupt frame).
//
//go:nosplit
//go:noinline
func (p *Point) EmitSample(lateNs uint64, idle bool) {
	if s := p.state.Load(); s&Enabled != 0 {
		emitSample(p, s, lateNs, idle)
	}
}

//go:nosplit
//go:noinline
func emitSample(p *Point, state uint32, lateNs uint64, idle bool) {
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

	var args [record.SampleArgs]uint64
	var rflags record.Flags
	var w Walk
	var c interrupted
	pc0, fp, walkMax := uintptr(0), uintptr(0), 0
	haveCtx := false
	if state&InterruptBacktrace != 0 {
		c, haveCtx = interruptedContext()
	}
	switch {
	case haveCtx:
		// The interrupted thread: its pc, then its chain, inside its own stack. Frames lie
		// at or above sp, which also keeps the walk off stack pages never touched.
		rflags |= record.PC0Exact | record.StackFromInterrupt | record.HasStack
		pc0 = c.pc
		args[record.SampleArgSP], args[record.SampleArgFP] = uint64(c.sp), uint64(c.fp)
		args[record.SampleArgLR] = uint64(c.lr)
		if c.hi != 0 && c.sp >= c.lo && c.sp+16 <= c.hi && readable(c.sp) && readable(c.sp+8) {
			args[record.SampleArgW0], args[record.SampleArgW1] = uint64(load(c.sp)), uint64(load(c.sp+8))
		}
		if c.hi != 0 {
			w = textWalk(max(c.lo, c.sp-frameBelowSP), c.hi)
			fp, walkMax = c.fp, MaxDepth-1
		}
	case state&(InterruptBacktrace|Backtrace) != 0:
		// No interrupt frame (or the debug mode that asks for the ordinary walk): the path
		// that reached this point, like any tracepoint's backtrace.
		if state&InterruptBacktrace != 0 {
			rflags |= record.NoInterruptFrame
		}
		rflags |= record.HasStack
		w = currentWalk()
		fp, walkMax = callerFP(), MaxDepth
	}
	nwalk := 0
	if walkMax > 0 {
		var wf record.Flags
		nwalk, wf = w.frames(fp, 0, walkMax)
		cs.countWalk(wf)
		rflags |= wf
	}
	nframes := nwalk
	if pc0 != 0 {
		nframes++
	}
	state8 := record.SampleState(c.kind) << record.StackKindShift
	if idle {
		state8 |= record.StateIdle
	}
	args[record.SampleArgTID] = uint64(cs.tid.Load())
	args[record.SampleArgLateNs] = lateNs
	args[record.SampleArgState] = uint64(state8)

	size := record.HeaderSize + (record.SampleArgs+nframes)*record.SlotSize
	if addr, _, ok := cs.ring.Reserve(uint32(size), ts); ok {
		store16(addr+record.OffTPID, p.id)
		store8(addr+record.OffFlags, uint8(rflags))
		store8(addr+record.OffNFrames, uint8(nframes))
		store32(addr+record.OffTID, cs.tid.Load())
		a := addr + record.OffArgs
		for i := range args {
			store(a+uintptr(i)*8, args[i])
		}
		st := a + record.SampleArgs*8
		if pc0 != 0 {
			store(st, uint64(pc0))
			st += 8
		}
		if nwalk > 0 {
			// The second walk sees the same chain (interrupts are masked) and writes what the
			// first one counted straight into the ring.
			w.frames(fp, st, nwalk)
		}
		cs.ring.Commit()
	}
	cs.inEmit.Store(0)
	irqRestore(flags)
}

// EmitThrottle writes a THROTTLE record: the sampler on this CPU changed its rate.
//
//go:nosplit
func EmitThrottle(oldHz, newHz uint64) {
	flags := irqSave()
	cpu := cpuIndex()
	if cpu >= 0 && cpu < MaxCPUs {
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
