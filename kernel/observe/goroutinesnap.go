package observe

import (
	"github.com/unitrace/unitrace/goroutines"
	"github.com/unitrace/unitrace/kernel/abi"
	"github.com/unitrace/unitrace/kernel/core"
	"github.com/unitrace/unitrace/kernel/machine"
	"github.com/unitrace/unitrace/trace"
	"github.com/unitrace/unitrace/unwind"
)

// The goroutines snapshot (trace.CtlGoroutines): every goroutine of the runtime's list, read
// as the off-CPU sweep reads them, into the agent's buffer; `unitrace stacks -g` shows it. It
// runs in the agent's system call with the kernel lock held, so no thread starts or stops
// under it; the runtime's goroutines keep moving and are read with the sweep's checks. A
// goroutine whose thread runs on a CPU has no stack here: the stacks snapshot taken with it
// captures that thread.

// captureGoroutines serves trace.CtlGoroutines: as many entries as fit in the size bytes at
// buf; it returns how many goroutines the list held.
func captureGoroutines(buf, size uintptr) uint64 {
	if !core.UserRange(buf, size, true) {
		return abi.Neg(abi.EFAULT)
	}
	l, ok := goLayout.Read()
	if !ok || !l.Valid() {
		return abi.Neg(abi.ENODEV)
	}
	r := goroutines.Reader{L: *l, Readable: unwind.Readable}
	r.TextLo, r.TextHi = unwind.TextRange()
	n := r.Start()
	if n < 0 {
		return abi.Neg(abi.EIO)
	}
	nowNs := machine.Nanotime()
	count, used := uint64(0), uintptr(0)
	var g goroutines.G
	for i := 0; i < n; i++ {
		if r.Next(&g) != goroutines.Live {
			continue
		}
		count++
		if size-used < trace.GoroutineEntrySize {
			continue
		}
		var v goroutineView
		e := trace.GoroutineEntry{ID: g.ID, State: uint8(g.State), Reason: g.Reason, GoPC: uint64(g.GoPC), StartPC: uint64(g.StartPC)}
		onCPU, ok := look(&r, &g, &v)
		e.Wait, e.ThreadState, e.TID, e.Syscall = v.wait, v.threadState, v.tid, uint32(v.sysNr)
		words := v.st.words[:v.st.n]
		switch {
		case onCPU:
			e.Flags, words = trace.GoroutineOnCPU, nil
		case !ok:
			e.Flags, words = trace.GoroutineRaced, nil
		default:
			e.Flags = trace.GoroutineFlags(v.flags)
			e.SP, e.FP, e.LR, e.W0, e.W1 = v.st.sp, v.st.fp, v.st.lr, v.st.w0, v.st.w1
			e.WaitNs = Sweep.waitedSoFar(i, &g, nowNs)
		}
		b, ok := core.UserBytes(buf+used, trace.GoroutineEntrySize, true)
		if !ok || !trace.PutGoroutineEntry(b, &e, words) {
			return abi.Neg(abi.EFAULT)
		}
		used += trace.GoroutineEntrySize
	}
	return count
}
