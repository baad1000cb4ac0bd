package observe

import (
	"github.com/unitrace/unitrace/kernel/core"
	"github.com/unitrace/unitrace/kernel/dev/serial"
	"github.com/unitrace/unitrace/kernel/klog"
	"github.com/unitrace/unitrace/kernel/machine"
	"github.com/unitrace/unitrace/trace"
	"github.com/unitrace/unitrace/trace/record"
	"github.com/unitrace/unitrace/unwind"
)

// Who woke a blocked thread (boot option unitrace.wakers=1, run -wakers): every wake-up of a
// thread blocked in the kernel writes a WAKE record with the woken thread's stack as it
// blocked, how long it was blocked and on what, and the waker's stack: the thread whose system
// call woke it (its path across the trap frame, its goroutine), or the timer or device whose
// interrupt did. The host joins the two into the wakers profile (unitrace pprof -wakers).
//
// The cause is per CPU: the interrupt paths that wake threads say what they are (core.SetWaker)
// while they run, and a wake-up outside them is the running thread's system call.

// WakersOption reads a kernel option word; it reports whether it was the wakers option.
func WakersOption(o string) bool {
	if o != "unitrace.wakers=1" {
		return false
	}
	core.WakersOn = true
	return true
}

// StartBootWakers turns the wake-up records on if the command line asked; the tracer must be up.
func StartBootWakers() {
	if core.WakersOn && !serial.TracingReady {
		klog.Log().S("unitrace.wakers: no trace device, so no wake-up records").NL()
		core.WakersOn = false
	}
}

// wakeCounts are the wake-up records' counters: written, and not (their CPU's ring was full,
// or the wake-up came inside another record's emit).
var wakeCounts struct{ recorded, dropped uint64 }

// NoteWake records the wake-up of the blocked thread in slot, before it is made runnable.
func NoteWake(slot int32, timedOut bool) {
	t := &core.Threads[slot]
	var st goroutineStack
	threadStack(t, &st, true)
	var args [record.WakeArgs]uint64
	c := unwind.ContextAt(machine.AddrOfFrame(&t.Frame))
	args[record.WakeArgWoken] = c.Goid()
	args[record.WakeArgBlockedNs] = uint64(max(machine.Nanotime()-t.BlockedAt, 0))
	args[record.WakeArgWait] = uint64(trace.StackWait(t.Wait)) | (t.SysNr+1)<<8
	k := core.Here().Waker
	if timedOut {
		k = record.WakerTimer
	}
	args[record.WakeArgWaker] = uint64(k)
	args[record.WakeArgWokenSP], args[record.WakeArgWokenFP], args[record.WakeArgWokenLR] = st.sp, st.fp, st.lr
	args[record.WakeArgWokenW0], args[record.WakeArgWokenW1] = st.w0, st.w1
	if trace.EmitWake(uint32(t.Tid), &args, st.words[:st.n]) {
		wakeCounts.recorded++
	} else {
		wakeCounts.dropped++
	}
}

// ReportWakers prints the wake-up records' counters at exit, when they were on.
func ReportWakers() {
	if !core.WakersOn {
		return
	}
	klog.Log().S("wakers: ").U(wakeCounts.recorded).S(" wake-ups recorded, ").U(wakeCounts.dropped).S(" not (ring full or nested)").NL()
}
