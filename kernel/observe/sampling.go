package observe

import (
	"strings"
	"sync/atomic"

	"github.com/unitrace/unitrace/kernel/core"
	"github.com/unitrace/unitrace/kernel/dev/serial"
	"github.com/unitrace/unitrace/kernel/klog"
	"github.com/unitrace/unitrace/kernel/machine"
	"github.com/unitrace/unitrace/kernel/options"
	"github.com/unitrace/unitrace/kernel/tp"
	"github.com/unitrace/unitrace/sampler"
	"github.com/unitrace/unitrace/trace"
)

// The sampling profiler's kernel side. Each sample is one SAMPLE record from the sampler_tick
// tracepoint, taken in the sampler's timer interrupt: the exact interrupted pc from the
// interrupt frame, then the interrupted thread's frame-pointer chain (trace.EmitSample). Boot
// options:
//
//	unitrace.sample=HZ          sample from boot at HZ (1..10000)
//	unitrace.sample.force=1     allow up to 100000 Hz
//	unitrace.debug=samplewalk   the sampler records the ordinary walk of its own handler instead
//	                            of the interrupted thread (to show what that gets wrong)
//	unitrace.debug=samplecost   time the sampler's interrupt phase by phase (sampler.Phases) and
//	                            report the means at exit
//
// The control port's sampler.start {hz, force} and sampler.stop do the same at run time.

// SampleOpts are the sampler's boot options.
var SampleOpts struct {
	HzWord   int // command-line option index of unitrace.sample=, -1 for none
	force    bool
	ordinary bool // debug: the ordinary walk instead of the interrupt frame
}

// SampleOption reads kernel option word i (o); it reports whether the word was a sampler option.
func SampleOption(i int, o string) bool {
	switch {
	case strings.HasPrefix(o, "unitrace.sample="):
		SampleOpts.HzWord = i
	case o == "unitrace.sample.force=1":
		SampleOpts.force = true
	case o == "unitrace.debug=samplewalk":
		SampleOpts.ordinary = true
	case o == "unitrace.debug=samplecost":
		TimePhases = true
	default:
		return false
	}
	return true
}

// StartBootSampler starts the sampler if the command line asked for it; the tracer must be up.
func StartBootSampler() {
	if SampleOpts.HzWord < 0 {
		return
	}
	v := options.Cmdline.Option(SampleOpts.HzWord)[len("unitrace.sample="):]
	hz, err := sampler.ParseHz(v, SampleOpts.force)
	if err != sampler.OK {
		klog.Log().S("unitrace.sample=").S(v).S(": ").S(err.String()).S("; the sampler stays off").NL()
		return
	}
	if !serial.TracingReady {
		klog.Log().S("unitrace.sample: no trace device, so no sampler").NL()
		return
	}
	startSampler(uint64(hz))
}

// TimePhases is set by unitrace.debug=samplecost: the timer interrupts account their phases
// (PhaseDone) while the sampler runs.
var TimePhases bool

// Phases holds each CPU's phase accounts (TimePhases).
var Phases [core.MaxCPUs]sampler.Phases

// PhaseDone accounts the phase p that ran on this CPU from start (ticks) to now and returns now,
// the next phase's start. Call it only under TimePhases.
//
//go:nosplit
func PhaseDone(p sampler.Phase, start uint64) uint64 {
	now := machine.Ticks()
	Phases[machine.CPUIndex()&(core.MaxCPUs-1)].Add(p, now-start)
	return now
}

// SamplerHz is the rate every CPU samples at (0: off): a CPU that comes online later starts
// its sampler from it.
var SamplerHz uint64

// startSampler (re)starts every CPU's sampler at hz and enables sampler_tick; it returns the
// rate in force on this CPU. The CPUs that did not acknowledge are in xcall.unanswered.
func startSampler(hz uint64) uint64 {
	flags := trace.Enabled | trace.InterruptBacktrace
	if SampleOpts.ordinary {
		flags = trace.Enabled | trace.Backtrace
	}
	tp.SamplerTick.SetFlags(flags)
	atomic.StoreUint64(&SamplerHz, hz)
	core.CrossCall(core.XcallSamplerStart, hz)
	return uint64(core.Samplers[machine.CPUIndex()].Hz())
}

// StopSampler turns every CPU's sampler off. When it returns no further sample is taken: each
// CPU that answered has stopped its own (a sampler interrupt already pending finds it off), and
// sampler_tick is disabled, so one that did not answer records nothing either.
func StopSampler() {
	atomic.StoreUint64(&SamplerHz, 0)
	core.CrossCall(core.XcallSamplerStop, 0)
	tp.SamplerTick.SetFlags(0)
}

// StartLocalSampler starts this CPU's sampler at hz with its own random phase. Interrupts are
// masked (serveCrossCall): the sampler's own interrupt must not see it half set up.
func StartLocalSampler(hz uint64) {
	s := &core.Samplers[machine.CPUIndex()&(core.MaxCPUs-1)]
	r, _ := machine.HWRandom()
	now := machine.Ticks()
	s.Start(uint32(hz), machine.TicksHz(), now, r^now^uint64(machine.CPUIndex())<<32)
	core.Here().SampleCarry = 0
	core.ArmNext()
}

// StopLocalSampler stops this CPU's sampler (interrupts masked, as for StartLocalSampler).
func StopLocalSampler() {
	core.Samplers[machine.CPUIndex()&(core.MaxCPUs-1)].Stop()
	core.ArmNext()
}

// TakeSample emits the due sample and applies the throttle rule to what it cost.
func TakeSample(s *sampler.CPU, now uint64) {
	late, weight := fireSample(s, now)
	finishSample(s, now, weight, tp.SamplerTick.EmitSample(s.NsFromTicks(late), weight, core.OnIdle()))
}

// SampleAtExit runs on the way out of a trap that a thread took at entered (ticks), interrupts
// masked, just before the return to the thread. A sampler deadline that passed since the trap
// was taken, and whose interrupt has not come, fell in the kernel's time: it is taken here, as
// a sample of the kernel's exit path (its leaf is this function) across the trap frame. Left
// to the timer's interrupt it would be taken at the thread's first instruction, the system
// call's return point, and charge the kernel's time to the thread. That happens for deadlines
// that pass in the masked exit itself, and, under TCG, for ones whose interrupt QEMU raises
// late: its timer callbacks need the lock that the exit's task-priority or GIC write takes, so
// they often run just then. A deadline from before the trap is the thread's: its late interrupt
// is left to land where the CPU is when it comes.
//
//go:noinline
func SampleAtExit(entered uint64) {
	s := &core.Samplers[machine.CPUIndex()&(core.MaxCPUs-1)]
	if !s.On() {
		return
	}
	if now := machine.Ticks(); s.Due(now) && s.Next() >= entered {
		late, weight := fireSample(s, now)
		finishSample(s, now, weight, tp.SamplerTick.EmitSampleHere(s.NsFromTicks(late), weight, false))
	}
}

// TakeExitSample runs SampleAtExit while the sampler is on: inlined into the trap paths, it costs
// a trap's exit one load otherwise.
//
//go:nosplit
func TakeExitSample(entered uint64) {
	if atomic.LoadUint64(&SamplerHz) != 0 {
		SampleAtExit(entered)
	}
}

// fireSample takes the due deadline: how late it came, and how many deadlines the sample stands
// for, with the weight of a sample that could not be recorded before it.
func fireSample(s *sampler.CPU, now uint64) (late, weight uint64) {
	late, weight = s.Fire(now)
	l := core.Here()
	weight += l.SampleCarry
	l.SampleCarry = 0
	return late, weight
}

// finishSample hands the weight of a sample that landed inside another emit on this CPU on to
// the next one, and applies the throttle rule to what the sample cost.
func finishSample(s *sampler.CPU, now, weight uint64, res trace.SampleResult) {
	if res == trace.SampleNested {
		core.Here().SampleCarry = weight
	}
	if throttled, oldHz, newHz := s.Cost(machine.Ticks() - now); throttled {
		trace.EmitThrottle(uint64(oldHz), uint64(newHz))
	}
	trace.NoteSampler(machine.CPUIndex(), s.Samples, s.Late, s.Throttles)
}

// ReportSampler prints the sampler's counters and handler cost at exit, when it ran: the
// in-guest numbers behind docs/measurements.md.
func ReportSampler() {
	for cpu := 0; cpu < core.NumCPUs; cpu++ {
		reportCPUSampler(cpu)
	}
}

func reportCPUSampler(cpu int) {
	s := &core.Samplers[cpu]
	if s.Samples == 0 {
		return
	}
	p50, p99, n := s.CostPercentiles()
	l := klog.Log().S("sampler: ")
	if core.NumCPUs > 1 {
		l.S("cpu ").D(int64(cpu)).S(": ")
	}
	l.U(s.Samples).S(" samples, ").U(s.Late).S(" late, ").U(s.Missed).S(" missed (carried as weight), ").
		U(s.Throttles).S(" throttled; handler cost over the last ").D(int64(n)).S(": median ").U(p50).
		S(" cycles (").U(s.NsFromTicks(p50)).S(" ns), p99 ").U(p99).S(" cycles (").U(s.NsFromTicks(p99)).S(" ns)").NL()
	if TimePhases {
		reportPhases(cpu, s)
	}
}

// reportPhases prints where cpu's timer interrupts spent their time, the mean of each phase
// and its share of the sampler's time per sample (the sum over the samples taken).
func reportPhases(cpu int, s *sampler.CPU) {
	ph := &Phases[cpu]
	var total uint64
	for p := sampler.Phase(0); p < sampler.NumPhases; p++ {
		sum, _ := ph.Total(p)
		total += sum
	}
	l := klog.Log().S("sampler phases: ")
	if core.NumCPUs > 1 {
		l.S("cpu ").D(int64(cpu)).S(": ")
	}
	l.U(s.NsFromTicks(total / max(s.Samples, 1))).S(" ns per sample (")
	for p := sampler.Phase(0); p < sampler.NumPhases; p++ {
		sum, n := ph.Total(p)
		if n == 0 {
			continue
		}
		if p != 0 {
			l.S(", ")
		}
		l.S(p.String()).S(" ").U(s.NsFromTicks(sum / n)).S(" ns x").U(n)
	}
	// Every timer write of the run, the tick's and the wake-ups' too: what arming costs is the
	// re-arm phase's mean.
	writes := machine.TimerWrites(cpu)
	l.S("); ").U(writes).S(" timer writes, ").U(writes * 100 / max(s.Samples, 1)).S(" per 100 samples").NL()
}
