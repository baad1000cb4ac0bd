package profile

import (
	"errors"
	"fmt"
	"time"

	"github.com/unitrace/unitrace/internal/tracefile"
	"github.com/unitrace/unitrace/trace/record"
	"github.com/unitrace/unitrace/trace/wire"
)

// Options choose how samples become a profile.
type Options struct {
	NoLeafFix bool // keep the raw frame-pointer stacks
	Idle      bool // keep the samples of idle CPUs
	// FoldKernel drops the kernel's frames from samples taken in the kernel, so that each
	// becomes a sample of the thread's pc: the system call (or the instruction) that entered
	// the kernel, for readers who only want their own code.
	FoldKernel bool
	// Value chooses the samples and their weights: the CPU sampler's (the default), the
	// off-CPU sweep's, both in time, or both as recorded (PProf).
	Value Value
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

	Records int // SAMPLE records in the recording
	// Goroutines counts the GOROUTINE records in the recording (the off-CPU sweep's), and
	// Value is what the Samples weigh (Options.Value): in microseconds for the time views.
	Goroutines int
	Value      Value
	Wakes      int            // WAKE records made into samples (ValueWakers)
	IdleCount  int            // of which the CPU was idle
	IdleShown  bool           // Samples include them (Options.Idle)
	Lost       map[uint16]int // per CPU, an estimate of the samples lost (see lostSamples)
	// Deadlines is the sum of the Samples' weights: the views' 100%.
	Deadlines int
	// Fix counts the leaf fix's outcomes at stack[0], ThreadFix at the thread's pc of the
	// samples taken in the kernel.
	Fix, ThreadFix [numFixResults]int
	Walk           struct{ Trunc, Stop, NoTrapFrame int } // walk flags of the kept samples
	// Kernel counts the kept samples taken in the kernel's trap context, BadMarks those
	// whose stack marks stood where the format has none (see splitStack).
	Kernel, BadMarks int
	FoldKernel       bool // the kernel's frames were folded into the threads' pcs
	NoLeafFix        bool // the stacks are as the frame-pointer walks recorded them

	split map[uint16]*CPUSplit // every sample, idle ones included, by CPU

	// StartNs and EndNs are the times of the first and last sample (ns
	// since boot); StartUnixNs is the wall-clock time of the first sample,
	// or of the recording's start, 0 when unknown.
	StartNs, EndNs int64
	StartUnixNs    int64
}

// Sample is one SAMPLE record, symbolized.
type Sample struct {
	Ns         int64
	CPU        uint16
	TID        uint32 // the interrupted kernel thread (the record's tid)
	Task       uint64 // the SAMPLE's tid-or-goid argument
	Idle       bool
	Kind       record.StackKind // of the leaf's stack
	ThreadKind record.StackKind // of the thread's stack below a sample taken in the kernel
	InKernel   bool             // taken in the kernel's trap context
	Flags      record.Flags
	LateNs     uint64
	Period     int64 // ns of CPU time one deadline stands for; of a goroutine sample, of wall time
	Weight     int   // the sampler's deadlines the sample stands for, at least 1 (µs in the time views)
	// Goroutine is the goroutine's id: the one the interrupted thread ran, or the off-CPU
	// sample's (0: none, or not known).
	Goroutine uint64
	// An off-CPU sample (a GOROUTINE record): the goroutine's state (runnable, syscall,
	// waiting, running), its wait reason or for a system call its name, what its thread waits
	// on in the kernel (KernelWait, "" for nothing) and how long it has been so (WaitNs).
	Wait       bool
	State      string
	Reason     string
	KernelWait string
	WaitNs     int64
	// A wake-up (ValueWakers): who woke the thread, its goroutine and thread.
	Waker          string
	WakerGoroutine uint64
	WakerTID       uint32

	// Stack is the stack after the leaf fixes, marks dropped: Stack[0] is the leaf, and
	// Stack[Thread] the thread's exact pc (Thread is -1 when the stack has none).
	Stack     []Word
	Thread    int
	Fix       FixResult // at Stack[0]; FixApplied: Stack[1] was inserted
	ThreadFix FixResult // at the thread's pc; FixOff when the stack has none
	Locs      []Loc     // one per stack word, leaf first (wrapper-only words dropped)
}

// Loc is one stack word and its logical frames, innermost first.
type Loc struct {
	Addr   uint64 // the stack word
	Exact  bool   // Addr is the sampled instruction, not a return address
	Kernel bool   // the word is in the kernel's trap context
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

// ErrNoSamples is returned by Build for a recording without SAMPLE or GOROUTINE records.
var ErrNoSamples = errors.New("the recording has no SAMPLE records: the sampler was not running while it was recorded")

// Placeholder frames for samples that have nothing to symbolize.
const (
	FrameNoStack = "[no stack]"
	FrameIdle    = "[idle]"
	FrameLost    = "[lost samples]"
	// FrameKernel stands for the kernel when -fold-kernel drops a stack that never reached
	// the thread below it (the walk stopped or was cut first).
	FrameKernel = "[kernel]"
)

// HasSamples reports whether the recording holds any sample: a SAMPLE record of the CPU
// sampler, a GOROUTINE record of the off-CPU sweep or a WAKE record.
func HasSamples(tr *tracefile.Trace) bool {
	for i := range tr.Records {
		if id := tr.Records[i].TPID; id == record.TPSample || id == record.TPGoroutine || id == record.TPWake {
			return true
		}
	}
	return false
}

// Build symbolizes the SAMPLE records of a recording with im (which must be
// the image that produced it; see OpenFor): it splits each stack at its
// marks (splitStack), applies the leaf fixes unless opt.NoLeafFix, and with
// opt.FoldKernel drops the kernel's frames. Records that are not well-formed
// SAMPLEs are skipped rather than trusted.
func Build(tr *tracefile.Trace, im *Image, opt Options) (*Profile, error) {
	if im == nil {
		return nil, errors.New("profile: no image to symbolize with")
	}
	if !HasSamples(tr) {
		return nil, ErrNoSamples
	}
	if opt.Value == ValueOffCPU && !hasGoroutines(tr) {
		return nil, ErrNoGoroutines
	}
	if opt.Value == ValueWakers && !hasRecord(tr, record.TPWake) {
		return nil, ErrNoWakes
	}
	p := &Profile{Image: im, Arch: im.Arch, Lost: map[uint16]int{}, IdleShown: opt.Idle, Value: opt.Value,
		FoldKernel: opt.FoldKernel, NoLeafFix: opt.NoLeafFix, split: map[uint16]*CPUSplit{}}
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
	last := map[uint64]int{} // a goroutine's last GOROUTINE sample, by id: what a GOROUTINE_SAME adds to
	rates := newRates(recs)
	p.StartHz, p.RateSource = rates.startHz, rates.source
	first := true
	for i := range recs {
		r := &recs[i]
		rates.observe(r)
		if r.TPID == record.TPThrottle {
			p.Throttles++
		}
		if w, ok := r.Wake(); ok {
			if opt.Value == ValueWakers {
				p.addWake(r, &w, opt, &first)
			}
			continue
		}
		if opt.Value == ValueWakers {
			continue
		}
		if g, ok := r.Goroutine(); ok {
			p.Goroutines++
			if opt.Value != ValueCPU {
				p.addGoroutine(r, &g, opt, &first)
				last[g.ID] = len(p.Samples) - 1
			}
			continue
		}
		if id, ns, sweeps, ok := r.GoroutineSame(); ok {
			p.Goroutines++
			if i, known := last[id]; known && opt.Value != ValueCPU {
				p.addSame(r, i, ns, sweeps, opt)
			}
			continue
		}
		ss, ok := r.Sample()
		if !ok {
			continue
		}
		p.Records++
		idle := ss.State&record.StateIdle != 0
		st := splitStack(r.Stack, r.Flags, ss.State.Kind() == record.StackInterrupt)
		// A guest's weight is what is missed between two samples; capping a garbage one keeps
		// the sums of weights and nanoseconds from overflowing.
		weight := int(min(ss.Weight, 1<<30))
		p.countSplit(r.CPU, weight, idle, st.inKernel())
		if idle {
			p.IdleCount++
			if !opt.Idle {
				continue
			}
		}
		s := Sample{Ns: r.Ns, CPU: r.CPU, TID: r.TID, Task: ss.TID, Idle: idle, Kind: ss.State.Kind(),
			ThreadKind: ss.State.ThreadKind(), InKernel: st.inKernel(), Flags: r.Flags, LateNs: ss.LateNs,
			Period: rates.period(r.CPU), Weight: weight, Fix: FixOff, ThreadFix: FixOff}
		if ss.State&record.StateGoroutine != 0 {
			s.Goroutine, s.Task = ss.TID, 0
		}
		if opt.Value == ValueOffCPU {
			continue
		}
		if opt.Value == ValueWall {
			s.Weight = int(min(int64(weight)*s.Period/1000, 1<<40))
		}
		p.fixStack(&s, &st, &r.Record, opt)
		s.Stack, s.Thread = st.words, st.thread
		p.Deadlines += s.Weight
		if s.InKernel {
			p.Kernel++
		}
		if st.malformed {
			p.BadMarks++
		}
		if r.Flags&record.StackTrunc != 0 {
			p.Walk.Trunc++
		}
		if r.Flags&record.WalkStop != 0 {
			p.Walk.Stop++
		}
		if r.Flags&record.PC0Exact == 0 || r.Flags&record.NoInterruptFrame != 0 {
			p.Walk.NoTrapFrame++
		}
		p.keep(&s, idle, opt, &first)
	}
	if opt.Value == ValueCPU || opt.Value == ValueAll {
		p.Lost = lostSamples(tr) // an estimate of CPU samples, in the sampler's deadlines
	}
	switch {
	case bootUnixNs != 0:
		p.StartUnixNs = bootUnixNs + p.StartNs
	case tr.Host != nil && !tr.Host.Start.IsZero():
		p.StartUnixNs = tr.Host.Start.UnixNano()
	}
	return p, nil
}

// keep symbolizes a sample and adds it to the profile.
func (p *Profile) keep(s *Sample, idle bool, opt Options, first *bool) {
	s.Locs = symbolize(p.Image, s.Stack, idle, s.InKernel && opt.FoldKernel)
	if *first {
		p.StartNs, *first = s.Ns, false
	}
	p.EndNs = s.Ns
	p.Samples = append(p.Samples, *s)
}

// fixStack applies the leaf fixes to a sample's split stack, unless opt.NoLeafFix: at
// stack[0] with the leaf's registers, and at the thread's pc with the thread's. With
// opt.FoldKernel the kernel's words go, so a sample taken in the kernel has no leaf fix at
// stack[0] to count: its leaf is the thread's pc.
func (p *Profile) fixStack(s *Sample, st *stack, rec *record.Record, opt Options) {
	folded := opt.FoldKernel && s.InKernel
	if !opt.NoLeafFix {
		if st.thread >= 0 {
			s.ThreadFix = st.fixThread(p.Arch, p.Image, rec)
		}
		if !folded {
			s.Fix = st.fixLeaf(p.Arch, p.Image, rec)
		}
	}
	if folded {
		st.foldKernel()
	} else {
		p.Fix[s.Fix]++
	}
	if st.thread >= 0 {
		p.ThreadFix[s.ThreadFix]++
	}
}

// symbolize expands each stack word into its logical frames. Autogenerated
// wrappers are dropped except at the leaf, as the runtime's tracebacks do;
// a sample without a stack gets a placeholder frame: FrameKernel for a
// sample taken in the kernel whose kernel words were folded away.
func symbolize(im *Image, stack []Word, idle, kernelFolded bool) []Loc {
	var locs []Loc
	for i, w := range stack {
		var frames []Frame
		for _, f := range im.Frames(w.Addr, w.Exact) {
			if f.Wrapper && i > 0 {
				continue
			}
			frames = append(frames, f)
		}
		if len(frames) > 0 {
			locs = append(locs, Loc{Addr: w.Addr, Exact: w.Exact, Kernel: w.Kernel, Frames: frames})
		}
	}
	if len(locs) == 0 {
		name := FrameNoStack
		switch {
		case idle:
			name = FrameIdle
		case kernelFolded:
			name = FrameKernel
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
// samples, the deadlines they stand for when some stand for more than one,
// idle ones, lost ones and the sampling rate.
func (p *Profile) Summary() string {
	deadlines := ""
	if p.Deadlines != len(p.Samples) && p.Value != ValueAll {
		deadlines = fmt.Sprintf(" for %d deadlines", p.Deadlines)
	}
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
	switch p.Value {
	case ValueProbe:
		return fmt.Sprintf("%d hits of a dynamic probe, with their calls' latencies", len(p.Samples))
	case ValueWakers:
		return fmt.Sprintf("%d wake-ups of blocked threads, %v blocked in all (weights in µs)", p.Wakes,
			time.Duration(p.Deadlines)*time.Microsecond)
	case ValueOffCPU:
		return fmt.Sprintf("%d goroutine samples, %v off the CPUs (weights in µs)%s", len(p.Samples),
			time.Duration(p.Deadlines)*time.Microsecond, lost)
	case ValueWall:
		return fmt.Sprintf("%d samples, %v on and off the CPUs (weights in µs)%s%s; CPU samples at %s (%s)", len(p.Samples),
			time.Duration(p.Deadlines)*time.Microsecond, idle, lost, formatHz(p.StartHz), p.RateSource)
	}
	sweep := ""
	if p.Value == ValueAll && p.Goroutines > 0 {
		sweep = fmt.Sprintf("; %d goroutine samples from the off-CPU sweep", p.Goroutines)
	}
	cpu := len(p.Samples)
	if p.Value == ValueAll {
		cpu -= p.Goroutines
	}
	return fmt.Sprintf("%d samples%s%s%s, %s (%s)%s", cpu, deadlines, idle, lost, formatHz(p.StartHz), p.RateSource, sweep)
}

func formatHz(hz float64) string {
	if hz == float64(int64(hz)) {
		return fmt.Sprintf("%d Hz", int64(hz))
	}
	return fmt.Sprintf("%.1f Hz", hz)
}
