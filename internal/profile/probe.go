package profile

import (
	"errors"

	"github.com/unitrace/unitrace/internal/tracefile"
)

// ProbeHit is one hit of a dynamic probe to make a sample of: the record (its stack is the
// trapped context's, exact pc first) and the latency of its call, 0 when unknown.
type ProbeHit struct {
	Rec       *tracefile.Rec
	LatencyNs int64
}

// ErrNoProbeStacks is returned by BuildProbe for hits without stacks.
var ErrNoProbeStacks = errors.New("the probe's hits have no stacks: the probe was armed without -backtrace")

// BuildProbe makes a profile of a probe's hits: one sample a hit, weighing one, its stack the
// record's (symbolized with inline frames; the leaf is exact, and there are no registers for a
// leaf fix), and its call's latency in Period, which PProf writes as the second sample type.
func BuildProbe(tr *tracefile.Trace, im *Image, hits []ProbeHit, opt Options) (*Profile, error) {
	if im == nil {
		return nil, errors.New("profile: no image to symbolize with")
	}
	p := &Profile{Image: im, Arch: im.Arch, Lost: map[uint16]int{}, Value: ValueProbe, FoldKernel: opt.FoldKernel,
		NoLeafFix: true, split: map[uint16]*CPUSplit{}}
	if tr.Hello != nil {
		p.Accel = tr.Hello.Accel
	}
	first := true
	for _, h := range hits {
		r := h.Rec
		if len(r.Stack) == 0 {
			continue
		}
		st := splitStack(r.Stack, r.Flags, false)
		if opt.FoldKernel {
			st.foldKernel()
		}
		s := Sample{Ns: r.Ns, CPU: r.CPU, TID: r.TID, Flags: r.Flags, Weight: 1, Period: h.LatencyNs,
			InKernel: st.inKernel(), Fix: FixOff, ThreadFix: FixOff, Stack: st.words, Thread: st.thread}
		if pr, ok := r.Probe(); ok {
			s.Goroutine = pr.Goid
		}
		p.Records++
		p.Deadlines++
		if s.InKernel {
			p.Kernel++
		}
		p.keep(&s, false, opt, &first)
	}
	if len(p.Samples) == 0 {
		return nil, ErrNoProbeStacks
	}
	return p, nil
}
