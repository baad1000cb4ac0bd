package trace

import (
	"github.com/unitrace/unitrace/trace/record"
	"github.com/unitrace/unitrace/unwind"
)

// EmitProbe writes a PROBE record on this CPU for a dynamic probe's hit, in the breakpoint's
// trap handler with interrupts masked: info (record.MakeProbeInfo), the site's pc and the
// trapped context's sp, then regs. The goroutine and its stack's top come from the trap frame
// (validated loads, as a sample's); with backtrace the record's stack is the trapped context's
// exact pc and chain, across any trap frames beneath it. It reports whether the ring took the
// record; a full ring counts the drop as every emit does.
//
//go:noinline
func EmitProbe(info, pc, sp uint64, regs []uint64, backtrace bool) bool {
	if len(regs) > record.ProbeMaxRegs {
		regs = regs[:record.ProbeMaxRegs]
	}
	cs, irq := enterEmit()
	if cs == nil {
		return false
	}
	fa := unwind.CurrentFrame()
	var goid, hi uint64
	var x unwind.Crossing
	nframes := 0
	var flags record.Flags
	if fa != 0 {
		c := unwind.ContextAt(fa)
		goid, hi = c.Goid(), uint64(c.Hi)
		if backtrace {
			x.StartTraps(fa, MaxDepth)
			nframes = x.Count()
			wf := x.End()
			cs.countWalk(wf)
			flags |= wf | record.PC0Exact | record.StackFromInterrupt | record.HasStack
		}
	}
	ok := false
	nargs := record.ProbeArgs + len(regs)
	size := record.HeaderSize + (nargs+nframes)*record.SlotSize
	if addr, _, reserved := cs.ring.Reserve(uint32(size), ticks()); reserved {
		store16(addr+record.OffTPID, uint16(record.TPProbe))
		store8(addr+record.OffFlags, uint8(flags))
		store8(addr+record.OffNFrames, uint8(nframes))
		store32(addr+record.OffTID, cs.tid.Load())
		a := addr + record.OffArgs
		store(a+record.ProbeArgInfo*8, info)
		store(a+record.ProbeArgPC*8, pc)
		store(a+record.ProbeArgSP*8, sp)
		store(a+record.ProbeArgGoid*8, goid)
		store(a+record.ProbeArgStackHi*8, hi)
		for i, r := range regs {
			store(a+uintptr(record.ProbeArgs+i)*8, r)
		}
		if nframes > 0 {
			// The second walk sees the same chain (interrupts are masked).
			st := a + uintptr(nargs)*8
			x.StartTraps(fa, nframes)
			got := x.Store(words(st, nframes))
			for ; got < nframes; got++ {
				store(st+uintptr(got)*8, 0)
			}
		}
		cs.ring.Commit()
		ok = true
	}
	leaveEmit(cs, irq)
	return ok
}
