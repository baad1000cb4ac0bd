package trace

import "github.com/unitrace/unitrace/trace/record"

// EmitGoroutine writes a GOROUTINE record on this CPU (the kernel's off-CPU sweep): its
// arguments, the walk's flags, the thread of the goroutine's M (0 for none) as the record's
// tid, and its stack words. It reports whether the ring took the record; a full ring counts
// the drop as every emit does.
//
//go:nosplit
func EmitGoroutine(args *[record.GoroutineArgs]uint64, flags record.Flags, tid uint32, stack []uint64) bool {
	if len(stack) > record.MaxFrames {
		stack = stack[:record.MaxFrames]
	}
	if len(stack) > 0 {
		flags |= record.HasStack
	}
	cs, irq := enterEmit()
	if cs == nil {
		return false
	}
	ok := false
	size := record.HeaderSize + (record.GoroutineArgs+len(stack))*record.SlotSize
	if addr, _, reserved := cs.ring.Reserve(uint32(size), ticks()); reserved {
		store16(addr+record.OffTPID, uint16(record.TPGoroutine))
		store8(addr+record.OffFlags, uint8(flags))
		store8(addr+record.OffNFrames, uint8(len(stack)))
		store32(addr+record.OffTID, tid)
		a := addr + record.OffArgs
		for i := 0; i < record.GoroutineArgs; i++ {
			store(a+uintptr(i)*8, args[i])
		}
		st := a + record.GoroutineArgs*8
		for i, w := range stack {
			store(st+uintptr(i)*8, w)
		}
		cs.ring.Commit()
		ok = true
	}
	leaveEmit(cs, irq)
	return ok
}

// EmitGoroutineSame writes a GOROUTINE_SAME record on this CPU: goroutine id stayed as its last
// GOROUTINE record showed it for sweeps more sweeps, weighing ns, up to sweep number seq.
//
//go:nosplit
func EmitGoroutineSame(id, ns, sweeps, seq uint64) bool {
	cs, irq := enterEmit()
	if cs == nil {
		return false
	}
	ok := false
	size := record.HeaderSize + record.GoroutineSameArgs*record.SlotSize
	if addr, _, reserved := cs.ring.Reserve(uint32(size), ticks()); reserved {
		store16(addr+record.OffTPID, uint16(record.TPGoroutineSame))
		store8(addr+record.OffFlags, 0)
		store8(addr+record.OffNFrames, 0)
		store32(addr+record.OffTID, 0)
		a := addr + record.OffArgs
		store(a+record.GoroutineSameArgID*8, id)
		store(a+record.GoroutineSameArgNs*8, ns)
		store(a+record.GoroutineSameArgSweeps*8, sweeps)
		store(a+record.GoroutineSameArgSweep*8, seq)
		cs.ring.Commit()
		ok = true
	}
	leaveEmit(cs, irq)
	return ok
}
