package profile

import (
	"github.com/unitrace/unitrace/internal/tracefile"
	"github.com/unitrace/unitrace/trace"
	"github.com/unitrace/unitrace/trace/record"
)

// The wakers profile (Options.Value ValueWakers): one sample per WAKE record, weighing the time
// the woken thread was blocked, whose stack is the blocked thread's as it blocked with the
// waker's above it, after a frame that names the waker: "[woken by thread]", "[woken by
// timer]", "[woken by interrupt: virtio-serial]". Read root first, it is where the program
// waited, then who ended the wait and how it got there.

// addWake adds the wakers-profile sample of a WAKE record.
func (p *Profile) addWake(r *tracefile.Rec, w *record.Wake, opt Options, first *bool) {
	woken := splitStack(w.WokenStack, 0, false)
	waker := splitStack(w.WakerStack, 0, true)
	if !opt.NoLeafFix {
		if woken.thread >= 0 {
			woken.fixThreadWith(p.Arch, p.Image, regsOf(w.WokenRegs), w.WokenRegs != [5]uint64{})
		}
		if waker.thread >= 0 {
			waker.fixThreadWith(p.Arch, p.Image, regsOf(w.WakerRegs), w.WakerRegs != [5]uint64{})
		}
	}
	if opt.FoldKernel {
		woken.foldKernel()
		waker.foldKernel()
	}
	s := Sample{Ns: r.Ns, CPU: r.CPU, TID: r.TID, Goroutine: w.Woken, Wait: true, Weight: 1, Fix: FixOff, ThreadFix: FixOff,
		KernelWait: trace.StackWait(w.Wait).String(), WakerGoroutine: w.WakerGoid, WakerTID: uint32(w.WakerTID),
		Waker: w.Waker.String(), Period: int64(min(w.BlockedNs, 1<<62)), State: "blocked"}
	if w.Syscall >= 0 {
		s.Reason = SyscallName(p.Arch, uint64(w.Syscall))
	}
	if opt.Value != ValueAll {
		s.Weight = int(max(s.Period/1000, 1))
	}
	p.Deadlines += s.Weight
	p.Wakes++
	if len(waker.words) > 0 { // (symbolize names an empty stack "[no stack]")
		s.Locs = symbolize(p.Image, waker.words, false, opt.FoldKernel)
	}
	s.Locs = append(s.Locs, Loc{Frames: []Frame{{Func: "[woken by " + s.Waker + "]"}}})
	s.Locs = append(s.Locs, symbolize(p.Image, woken.words, false, opt.FoldKernel)...)
	if *first {
		p.StartNs, *first = s.Ns, false
	}
	p.EndNs = s.Ns
	p.Samples = append(p.Samples, s)
}

func regsOf(a [5]uint64) Regs { return Regs{SP: a[0], FP: a[1], LR: a[2], W0: a[3], W1: a[4]} }
