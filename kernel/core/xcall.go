package core

import (
	"sync/atomic"

	"github.com/unitrace/unitrace/kernel/klog"
	"github.com/unitrace/unitrace/kernel/machine"
)

// Cross-CPU requests. A CPU holding the kernel lock can ask every other CPU to do something on
// itself: flush its TLB, start or stop its sampler, capture the frame of the thread it runs.
// The requester posts the request, sends each CPU an IPI and waits (bounded) for every answer;
// the others serve it in the IPI's handler, or in the kernel lock's wait loop if they are
// waiting for the lock (which the requester holds), without taking the lock themselves. One
// request is in flight at a time: only the lock holder posts.
//
// Stopping the machine (exit, kernel fault) is separate: it must work without the lock, from
// any CPU, at most once (StopOtherCPUs).

type XcallOp uint32

const (
	xcallNone XcallOp = iota
	xcallFlushTLB
	XcallSamplerStart // arg: rate (Hz)
	XcallSamplerStop
	XcallCapture   // record the interrupted frame of the running thread (the kernel's threadsnap.go)
	XcallFlushLost // publish the ring's pending drops (a producer's job: this CPU's own)
	XcallRingMode  // re-initialise the CPU's own ring: arg mode<<56 | size
	// XcallSync has no work: answering it is the point. A CPU answers from an interrupt (a
	// context synchronisation: it fetches text written before the request again) or from the
	// kernel lock's wait loop, never from inside a trap handler that runs masked (a dynamic
	// probe's breakpoint handler): once every CPU answered, none is still in one.
	XcallSync
	NumXcallOps
)

// XcallWork is each request's work but the TLB flush, the kernel's own: handed down at boot by
// the code that posts it (the kernel's wiring.go). f is the frame the request interrupted on the
// CPU that serves it (nil on the requesting CPU), arg the request's argument.
var XcallWork [NumXcallOps]Hook[func(f *machine.Frame, arg uint64)]

// xcallTimeout bounds the wait for each CPU's answer. Under TCG a vCPU thread can be off the
// host CPU for a while; a CPU that has not answered by then is reported, not waited for.
const xcallTimeout = 2_000_000_000 // ns

var Xcall struct {
	Seq        atomic.Uint64 // number of the request posted last
	op         atomic.Uint32
	arg        atomic.Uint64
	Unanswered atomic.Uint64 // CPUs that missed the last request's deadline
}

// CrossCall runs op on every online CPU (this one directly) and returns the mask of CPUs that
// did not answer in time (xcallTimeout). A TLB flush has no such time: it is waited for until
// every CPU has answered. The caller holds the kernel lock.
func CrossCall(op XcallOp, arg uint64) uint64 {
	me := machine.CPUIndex()
	Xcall.op.Store(uint32(op))
	Xcall.arg.Store(arg)
	seq := Xcall.Seq.Add(1)
	var waiting uint64
	for c := 0; c < NumCPUs; c++ {
		l := &CPULocals[c]
		if c == me || !l.Online.Load() || l.Halted.Load() {
			continue
		}
		waiting |= 1 << uint(c)
		sendIPI(c)
	}
	wakeLockSleepers()  // a CPU asleep waiting for the lock takes no IPI: wake it to serve
	serveCrossCall(nil) // this CPU's part; nil: no interrupted frame (the caller is the kernel)
	start := machine.Nanotime()
	deadline := start + xcallTimeout
	for waiting != 0 {
		if OtherCPUStopping() {
			ParkForGood()
		}
		for c := 0; c < NumCPUs; c++ {
			if waiting&(1<<uint(c)) != 0 && CPULocals[c].XcallAck.Load() >= seq {
				waiting &^= 1 << uint(c)
			}
		}
		if now := machine.Nanotime(); waiting != 0 && now >= deadline {
			if op != xcallFlushTLB {
				klog.Log().S("cross-CPU request ").S(op.String()).S(": CPUs ").X(waiting).S(" did not answer").NL()
				whereCPUsAre(waiting)
				break
			}
			// A CPU that has not flushed may still reach memory that is about to be reused:
			// going on would corrupt it. Wait, and say so (and where it is) every period.
			klog.Log().S("TLB shootdown: CPUs ").X(waiting).S(" have not flushed after ").D((now - start) / 1e6).
				S(" ms; waiting").NL()
			whereCPUsAre(waiting)
			deadline = now + xcallTimeout
		}
		machine.CPURelax()
	}
	Xcall.Unanswered.Store(waiting)
	return waiting
}

// String names the request for the console.
func (op XcallOp) String() string {
	switch op {
	case xcallFlushTLB:
		return "flush-tlb"
	case XcallSamplerStart:
		return "sampler-start"
	case XcallSamplerStop:
		return "sampler-stop"
	case XcallCapture:
		return "capture"
	case XcallFlushLost:
		return "flush-lost"
	case XcallRingMode:
		return "ring-mode"
	case XcallSync:
		return "sync"
	}
	return "none"
}

// serveCrossCall carries out the posted request on this CPU if it has not yet: f is the frame
// the IPI (or the wait for the kernel lock) interrupted, nil on the requesting CPU itself.
func serveCrossCall(f *machine.Frame) {
	l := Here()
	seq := Xcall.Seq.Load()
	if l.XcallAck.Load() >= seq {
		return
	}
	op, arg := XcallOp(Xcall.op.Load()), Xcall.arg.Load()
	// Interrupts masked: the sampler's interrupt can land in kernel code, and what these change
	// (this CPU's sampler, ring and timer) is what its handler uses.
	flags := machine.MaskInterrupts()
	if op == xcallFlushTLB {
		machine.FlushLocalTLB()
	} else if op < NumXcallOps && XcallWork[op].IsSet() {
		XcallWork[op].Get()(f, arg)
	}
	machine.RestoreInterrupts(flags)
	l.XcallAck.Store(seq)
}

// stopping is set once, by the CPU that stops the machine; every other CPU parks for good when
// it sees it (at its next IPI, kernel entry, or turn waiting for the kernel lock).
var (
	stopping atomic.Uint32
	stopper  atomic.Int32 // the CPU that set stopping
	parked   atomic.Int32
)

// OtherCPUStopping reports whether another CPU is stopping the machine: this one must park.
//
//go:nosplit
func OtherCPUStopping() bool {
	return stopping.Load() != 0 && stopper.Load() != int32(machine.CPUIndex())
}

// StopOtherCPUs stops every other CPU and waits (bounded) until they have parked, so that no
// other CPU emits trace records or touches kernel state while this one finishes. It reports
// false if another CPU got there first: the caller must park itself then.
func StopOtherCPUs() bool {
	me := machine.CPUIndex()
	if !stopping.CompareAndSwap(0, 1) {
		return stopper.Load() == int32(me) // stopping twice (a fault while exiting) is fine
	}
	stopper.Store(int32(me))
	want := int32(0)
	for c := 0; c < NumCPUs; c++ {
		if c != me && CPULocals[c].Online.Load() {
			want++
			sendIPI(c)
		}
	}
	wakeLockSleepers()
	deadline := machine.Nanotime() + xcallTimeout
	for parked.Load() < want && machine.Nanotime() < deadline {
		machine.CPURelax()
	}
	return true
}

// ParkForGood stops this CPU: interrupts stay masked and it never runs kernel code again.
func ParkForGood() {
	l := Here()
	if !l.Halted.Swap(true) {
		parked.Add(1)
	}
	for {
		machine.ParkCPU()
	}
}

// IPIInterrupt handles the kernel's IPI: a stop, a cross-CPU request, or a kick to leave idle
// (which the kernel entry's end does: LeaveIdle). It reports whether the entry must go on under
// the kernel lock: for a kick, or a thread of this CPU with a signal to deliver.
func IPIInterrupt(f *machine.Frame) bool {
	if OtherCPUStopping() {
		ParkForGood()
	}
	serveCrossCall(f)
	return Here().kicked.Swap(false)
}
