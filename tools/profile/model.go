package profile

import (
	"errors"
	"fmt"

	"github.com/unitrace/unitrace/tools/tracefile"
	"github.com/unitrace/unitrace/trace/record"
	"github.com/unitrace/unitrace/trace/wire"
)

// Options choose how samples become a profile.
type Options struct {
	NoLeafFix bool // keep the raw frame-pointer stacks
	Idle      bool // keep the samples of idle CPUs
}

// Profile is the symbolized samples of one recording.
type Profile struct {
	Samples []Sample // in time order; idle ones only with Options.Idle
	Image   *Image
	Arch    wire.Arch
	Accel   string // HELLO's (or the HOST frame's) accelerator: tcg, kvm, unknown, or ""

	// The sampling rate: StartHz is the rate at the start of the recording,
	// RateSource says where it came from; a THROTTLE record changes the rate
	// of its CPU from then on, and each Sample carries its own period.
	StartHz    float64
	RateSource string
	Throttles  int // THROTTLE records seen

	Records   int            // SAMPLE records in the recording
	IdleCount int            // of which the CPU was idle
	IdleShown bool           // Samples include them (Options.Idle)
	Lost      map[uint16]int // per CPU, an estimate of the samples lost (see lostSamples)
	Fix       [numFixResults]int
	Walk      struct{ Trunc, Stop, NoTrapFrame int } // walk flags of the kept samples

	// StartNs and EndNs are the times of the first and last sample (ns
	// since boot); StartUnixNs is the wall-clock time of the first sample,
	// or of the recording's start, 0 when unknown.
	StartNs, EndNs int64
	StartUnixNs    int64
}

// Sample is one SAMPLE record, symbolized.
type Sample struct {
	Ns     int64
	CPU    uint16
	TID    uint32 // the interrupted kernel thread (the record's tid)
	Task   uint64 // the SAMPLE's tid-or-goid argument
	Idle   bool
	Kind   record.StackKind
	Flags  record.Flags
	LateNs uint64
	Period int64 // ns of CPU time this sample stands for

	Stack []uint64  // the stack words after the leaf fix: Stack[0] is the pc
	Fix   FixResult // FixApplied: Stack[1] was inserted
	Locs  []Loc     // one per stack word, leaf first (wrapper-only words dropped)
}

// Loc is one stack word and its logical frames, innermost first.
type Loc struct {
	Addr   uint64 // the stack word
	Exact  bool   // Addr is the sampled instruction, not a return address
	Frames []Frame
}

// Frames returns the sample's logical frames, leaf first.
func (s *Sample) Frames() []Frame {
	var out []Frame
	for _, l := range s.Locs {
		out = append(out, l.Frames...)
	}
	return out
}

// ErrNoSamples is returned by Build for a recording without SAMPLE records.
var ErrNoSamples = errors.New("the recording has no SAMPLE records: the sampler was not running while it was recorded")

// Placeholder frames for samples that have nothing to symbolize.
const (
	FrameNoStack = "[no stack]"
	FrameIdle    = "[idle]"
	FrameLost    = "[lost samples]"
)

// HasSamples reports whether the recording holds any SAMPLE record.
func HasSamples(tr *tracefile.Trace) bool {
	for i := range tr.Records {
		if tr.Records[i].TPID == record.TPSample {
			return true
		}
	}
	return false
}

// Build symbolizes the SAMPLE records of a recording with im (which must be
// the image that produced it; see OpenFor) and applies the leaf fix unless
// opt.NoLeafFix. Records that are not well-formed SAMPLEs are skipped
// rather than trusted.
func Build(tr *tracefile.Trace, im *Image, opt Options) (*Profile, error) {
	if im == nil {
		return nil, errors.New("profile: no image to symbolize with")
	}
	if !HasSamples(tr) {
		return nil, ErrNoSamples
	}
	p := &Profile{Image: im, Arch: im.Arch, Lost: map[uint16]int{}, IdleShown: opt.Idle}
	bootUnixNs := int64(0)
	if tr.Hello != nil {
		p.Accel = tr.Hello.Accel
		if tr.Hello.RefUnixNs != 0 {
			bootUnixNs = tr.Hello.RefUnixNs - int64(tr.Hello.RefNs)
		}
	}
	if p.Accel == "" && tr.Host != nil {
		p.Accel = tr.Host.Accel
	}
	recs := tr.Merged()
	rates := newRates(recs)
	p.StartHz, p.RateSource = rates.startHz, rates.source
	first := true
	for i := range recs {
		r := &recs[i]
		rates.observe(r)
		if r.TPID == record.TPThrottle {
			p.Throttles++
		}
		ss, ok := r.Sample()
		if !ok {
			continue
		}
		p.Records++
		idle := ss.State&record.StateIdle != 0
		if idle {
			p.IdleCount++
			if !opt.Idle {
				continue
			}
		}
		s := Sample{Ns: r.Ns, CPU: r.CPU, TID: r.TID, Task: ss.TID, Idle: idle, Kind: ss.State.Kind(),
			Flags: r.Flags, LateNs: ss.LateNs, Period: rates.period(r.CPU), Stack: r.Stack, Fix: FixOff}
		if !opt.NoLeafFix {
			s.Stack, s.Fix = FixStack(im.Arch, im, &r.Record)
		}
		p.Fix[s.Fix]++
		if r.Flags&record.StackTrunc != 0 {
			p.Walk.Trunc++
		}
		if r.Flags&record.WalkStop != 0 {
			p.Walk.Stop++
		}
		if r.Flags&record.PC0Exact == 0 || r.Flags&record.NoInterruptFrame != 0 {
			p.Walk.NoTrapFrame++
		}
		s.Locs = symbolize(im, s.Stack, r.Flags&record.PC0Exact != 0, idle)
		if first {
			p.StartNs, first = s.Ns, false
		}
		p.EndNs = s.Ns
		p.Samples = append(p.Samples, s)
	}
	p.Lost = lostSamples(tr)
	switch {
	case bootUnixNs != 0:
		p.StartUnixNs = bootUnixNs + p.StartNs
	case tr.Host != nil && !tr.Host.Start.IsZero():
		p.StartUnixNs = tr.Host.Start.UnixNano()
	}
	return p, nil
}

// symbolize expands each stack word into its logical frames. Autogenerated
// wrappers are dropped except at the leaf, as the runtime's tracebacks do;
// a sample without a stack gets a placeholder frame.
func symbolize(im *Image, stack []uint64, exact, idle bool) []Loc {
	var locs []Loc
	for i, pc := range stack {
		ex := i == 0 && exact
		var frames []Frame
		for _, f := range im.Frames(pc, ex) {
			if f.Wrapper && i > 0 {
				continue
			}
			frames = append(frames, f)
		}
		if len(frames) > 0 {
			locs = append(locs, Loc{Addr: pc, Exact: ex, Frames: frames})
		}
	}
	if len(locs) == 0 {
		name := FrameNoStack
		if idle {
			name = FrameIdle
		}
		locs = append(locs, Loc{Frames: []Frame{{Func: name}}})
	}
	return locs
}

// lostSamples estimates, per CPU, how many samples were lost: the records
// that LOST records and LOST frames cover, scaled by the share of SAMPLE
// records among the records the CPU delivered (exact for a recording of
// the sampler alone; the dropped records' kinds are not known).
func lostSamples(tr *tracefile.Trace) map[uint16]int {
	samples := map[uint16]int{}
	received := map[uint16]int{}
	for i := range tr.Records {
		r := &tr.Records[i]
		if r.TPID == record.TPLost {
			continue
		}
		received[r.CPU]++
		if r.TPID == record.TPSample {
			samples[r.CPU]++
		}
	}
	allS, allR := 0, 0
	for c, n := range received {
		allS += samples[c]
		allR += n
	}
	out := map[uint16]int{}
	if tr.Account == nil {
		return out
	}
	for _, a := range tr.Account.CPUs() {
		lost := a.LostRecords + a.LostFrames
		if lost == 0 {
			continue
		}
		s, n := samples[a.CPU], received[a.CPU]
		if n == 0 { // nothing from this CPU arrived: use the whole recording's share
			s, n = allS, allR
		}
		if n == 0 {
			continue
		}
		est := (lost*uint64(s) + uint64(n)/2) / uint64(n)
		if est > 0 {
			out[a.CPU] = int(min(est, 1<<40))
		}
	}
	return out
}

// LostTotal is the estimated number of lost samples over all CPUs.
func (p *Profile) LostTotal() int {
	n := 0
	for _, v := range p.Lost {
		n += v
	}
	return n
}

// Summary is one line describing the profile, for the views' headers:
// samples, idle ones, lost ones and the sampling rate.
func (p *Profile) Summary() string {
	idle := ""
	switch {
	case p.IdleCount > 0 && p.IdleShown:
		idle = fmt.Sprintf(" (%d idle)", p.IdleCount)
	case p.IdleCount > 0:
		idle = fmt.Sprintf(" (%d idle hidden: --idle shows them)", p.IdleCount)
	}
	lost := ""
	if n := p.LostTotal(); n > 0 {
		lost = fmt.Sprintf(", ~%d lost", n)
	}
	return fmt.Sprintf("%d samples%s%s, %s (%s)", len(p.Samples), idle, lost, formatHz(p.StartHz), p.RateSource)
}

func formatHz(hz float64) string {
	if hz == float64(int64(hz)) {
		return fmt.Sprintf("%d Hz", int64(hz))
	}
	return fmt.Sprintf("%.1f Hz", hz)
}
