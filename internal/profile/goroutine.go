package profile

import (
	"errors"
	"slices"

	"github.com/unitrace/unitrace/goroutines"
	"github.com/unitrace/unitrace/internal/tracefile"
	"github.com/unitrace/unitrace/kernel/sysnames"
	"github.com/unitrace/unitrace/trace"
	"github.com/unitrace/unitrace/trace/record"
	"github.com/unitrace/unitrace/trace/wire"
)

// Value says which samples a profile holds and what each weighs.
type Value uint8

const (
	// ValueCPU: the CPU sampler's samples, each weighing the sampler's deadlines it stands
	// for (the views' default, and all a recording without -offcpu has).
	ValueCPU Value = iota
	// ValueOffCPU: the off-CPU sweep's goroutine samples, each weighing the microseconds it
	// stands for: where the program waits.
	ValueOffCPU
	// ValueWall: both, in microseconds: on a CPU and off it, each goroutine's total its wall
	// time.
	ValueWall
	// ValueAll: both, each weighing what it was recorded as (PProf, which keeps a value per
	// sample type: samples, cpu and wait).
	ValueAll
	// ValueWakers: the wake-ups of blocked threads (WAKE records), each weighing the
	// microseconds its thread was blocked (wake.go).
	ValueWakers
	// ValueProbe: a dynamic probe's hits (PROBE records), each weighing one hit, with its call's
	// latency as a second value (probe.go).
	ValueProbe
)

// ErrNoWakes is returned by Build for a wakers profile of a recording without WAKE records.
var ErrNoWakes = errors.New("the recording has no wake-ups: the kernel was not recording them (unitrace run -wakers)")

// ErrNoGoroutines is returned by Build for an off-CPU profile of a recording without GOROUTINE
// records.
var ErrNoGoroutines = errors.New("the recording has no goroutine samples: the off-CPU sweep was not running (unitrace run -offcpu)")

func hasGoroutines(tr *tracefile.Trace) bool { return hasRecord(tr, record.TPGoroutine) }

func hasRecord(tr *tracefile.Trace, id record.TPID) bool {
	return slices.ContainsFunc(tr.Records, func(r tracefile.Rec) bool { return r.TPID == id })
}

// addGoroutine adds the off-CPU sample of a GOROUTINE record.
func (p *Profile) addGoroutine(r *tracefile.Rec, g *record.Goroutine, opt Options, first *bool) {
	st := splitStack(r.Stack, r.Flags, false)
	period := int64(min(g.PeriodNs, 1<<40))
	s := Sample{Ns: r.Ns, CPU: r.CPU, TID: r.TID, Goroutine: g.ID, Wait: true, InKernel: st.inKernel(),
		Flags: r.Flags, Period: period, Weight: 1, Fix: FixOff, ThreadFix: FixOff,
		State: goroutines.State(g.State.State()).String(), KernelWait: trace.StackWait(g.State.Wait()).String(),
		WaitNs: int64(min(g.WaitNs, 1<<62))}
	switch {
	case s.State == "waiting":
		s.Reason = p.Image.WaitReason(g.State.Reason())
	case g.Syscall >= 0:
		s.Reason = SyscallName(p.Arch, uint64(g.Syscall))
	}
	if opt.Value == ValueOffCPU || opt.Value == ValueWall {
		s.Weight = int(max(period/1000, 1))
	}
	// The leaf fixes apply only where the stack holds a thread's exact pc: a goroutine's own
	// stack resumes at a return address (gopark's call), whose frame the walk began with.
	if !opt.NoLeafFix {
		if r.Flags&record.PC0Exact != 0 {
			s.Fix = st.fixLeaf(p.Arch, p.Image, &r.Record)
		}
		if st.thread >= 0 {
			s.ThreadFix = st.fixThread(p.Arch, p.Image, &r.Record)
		}
	}
	if opt.FoldKernel && s.InKernel {
		st.foldKernel()
	}
	s.Stack, s.Thread = st.words, st.thread
	if opt.Value != ValueAll { // the views' 100%; pprof keeps the two kinds apart
		p.Deadlines += s.Weight
	}
	if st.malformed {
		p.BadMarks++
	}
	p.keep(&s, false, opt, first)
	if opt.Value != ValueAll {
		// The time views show what the goroutine waits for as its leaf; pprof has labels.
		k := &p.Samples[len(p.Samples)-1]
		k.Locs = append([]Loc{{Frames: []Frame{{Func: s.WaitFrame()}}}}, k.Locs...)
	}
}

// addSame adds the sample of a GOROUTINE_SAME record: the goroutine stayed as its sample i
// shows it for sweeps more sweeps, weighing ns.
func (p *Profile) addSame(r *tracefile.Rec, i int, ns, sweeps uint64, opt Options) {
	s := p.Samples[i]
	s.Ns = r.Ns
	sweeps = max(sweeps, 1)
	ns = min(ns, 1<<62)
	switch opt.Value {
	case ValueOffCPU, ValueWall:
		s.Weight = int(max(ns/1000, 1))
		p.Deadlines += s.Weight
	default:
		// pprof counts the sweeps and weighs each its share (ns/sweeps), as if each had a
		// record of its own.
		s.Weight, s.Period = int(min(sweeps, 1<<30)), int64(ns/sweeps)
	}
	p.EndNs = s.Ns
	p.Samples = append(p.Samples, s)
}

// WaitFrame names what an off-CPU sample waits for, as the time views' leaf frame: "[waiting:
// chan receive]", "[syscall: read on pipe]", "[runnable]".
func (s *Sample) WaitFrame() string {
	what := s.State
	if s.Reason != "" {
		what += ": " + s.Reason
		if s.KernelWait != "" {
			what += " on " + s.KernelWait
		}
	}
	return "[" + what + "]"
}

// SyscallName names system call nr of arch.
func SyscallName(arch wire.Arch, nr uint64) string {
	if arch == wire.ArchARM64 {
		return sysnames.ARM64(nr)
	}
	return sysnames.AMD64(nr)
}
