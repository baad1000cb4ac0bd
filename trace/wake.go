package trace

import (
	"github.com/unitrace/unitrace/trace/record"
	"github.com/unitrace/unitrace/unwind"
)

// EmitWake writes a WAKE record of thread wokenTID on this CPU: args (the kernel fills all but the waker's
// goroutine, thread and registers), the woken thread's stack words, then the waker's: the path
// that reached EmitWake's caller and, when the waker is a thread (args' WakeArgWaker is
// WakerThread) in a trap handler, on across the trap frame into the code that made the call,
// with that context's goroutine and registers. A timer's or a device's wake-up records the
// kernel's path alone: what its interrupt interrupted did not wake anyone. It reports whether
// the ring took the record.
//
//go:noinline
func EmitWake(wokenTID uint32, args *[record.WakeArgs]uint64, woken []uint64) bool {
	if len(woken) > record.MaxFrames-MaxDepth {
		woken = woken[:record.MaxFrames-MaxDepth]
	}
	cs, irq := enterEmit()
	if cs == nil {
		return false
	}
	ts := ticks()
	var waker [MaxDepth]uint64
	var w unwind.Walk
	w.OnCurrentStack()
	fp := unwind.CallerFP()
	nw := 0
	var rflags record.Flags
	fa := uintptr(0)
	if record.WakerKind(args[record.WakeArgWaker]) == record.WakerThread {
		fa = unwind.CurrentFrame()
		args[record.WakeArgWakerTID] = uint64(cs.tid.Load())
	}
	if fa != 0 {
		var x unwind.Crossing
		x.StartAcross(&w, fp, fa, MaxDepth)
		nw = min(x.Store(waker[:]), MaxDepth)
		rflags = x.End()
		if t := x.Thread(); t != nil {
			w0, w1 := t.Words()
			args[record.WakeArgWakerSP], args[record.WakeArgWakerFP], args[record.WakeArgWakerLR] = uint64(t.SP), uint64(t.FP), uint64(t.LR)
			args[record.WakeArgWakerW0], args[record.WakeArgWakerW1] = uint64(w0), uint64(w1)
			args[record.WakeArgWakerGoid] = t.Goid()
		}
	} else {
		w.Start(fp, MaxDepth)
		nw = w.Store(waker[:])
		rflags = w.End()
	}
	args[record.WakeArgWokenWords] = uint64(len(woken))
	ok := false
	n := len(woken) + nw
	size := record.HeaderSize + (record.WakeArgs+n)*record.SlotSize
	if addr, _, reserved := cs.ring.Reserve(uint32(size), ts); reserved {
		store16(addr+record.OffTPID, uint16(record.TPWake))
		store8(addr+record.OffFlags, uint8(rflags|record.HasStack))
		store8(addr+record.OffNFrames, uint8(n))
		store32(addr+record.OffTID, wokenTID)
		a := addr + record.OffArgs
		for i := 0; i < record.WakeArgs; i++ {
			store(a+uintptr(i)*8, args[i])
		}
		st := a + record.WakeArgs*8
		for i, v := range woken {
			store(st+uintptr(i)*8, v)
		}
		for i := 0; i < nw; i++ {
			store(st+uintptr(len(woken)+i)*8, waker[i])
		}
		cs.ring.Commit()
		ok = true
	}
	leaveEmit(cs, irq)
	return ok
}
