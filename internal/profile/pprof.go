package profile

import (
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"

	pprof "github.com/google/pprof/profile"

	"github.com/unitrace/unitrace/internal/tracefile"
)

// PProf converts the profile to pprof's model: sample types samples/count
// and cpu/nanoseconds, period type cpu/nanoseconds with the starting
// sampling period, one Mapping for the image (its GNU build id, inline
// frames) and one, KernelMapping, that the locations of the kernel's trap
// context refer to, one Location per stack address and context with a Line
// per logical frame, innermost first (Address is the sampled pc for exact
// words and the return address minus 1 for callers, inside the call),
// numeric labels cpu, tid and task, and the estimated lost samples as a
// sample whose only frame is FrameLost. Samples with the same locations
// and labels are one pprof sample whose values are summed, as
// runtime/pprof writes them; each counts as its weight.
//
// A profile built with ValueAll from a recording with goroutine samples (the off-CPU sweep's)
// has a third sample type, wait/nanoseconds: CPU samples carry cpu, goroutine samples carry
// wait (the sweep's period), string labels state and reason (the runtime's wait reason, or a
// system call's name), kernel_wait (what the thread waits on in the kernel) and the numeric
// label goroutine, which CPU samples carry too when the sampler read it. -sample_index=wait is
// the off-CPU profile; cpu plus wait is the wall-clock profile.
func PProf(p *Profile) (*pprof.Profile, error) {
	period := p.PeriodNs()
	types := []*pprof.ValueType{{Type: "samples", Unit: "count"}, {Type: "cpu", Unit: "nanoseconds"}}
	def, periodUnit := "cpu", "nanoseconds"
	switch {
	case p.Value == ValueWakers:
		types[1].Type, def = "wait", "wait"
	case p.Value == ValueProbe:
		types = []*pprof.ValueType{{Type: "hits", Unit: "count"}, {Type: "latency", Unit: "nanoseconds"}}
		def, period, periodUnit = "hits", 1, "count"
	case p.Goroutines > 0 && p.Value == ValueAll:
		types = append(types, &pprof.ValueType{Type: "wait", Unit: "nanoseconds"})
	}
	out := &pprof.Profile{
		SampleType:        types,
		DefaultSampleType: def,
		PeriodType:        &pprof.ValueType{Type: def, Unit: periodUnit},
		Period:            period,
		Comments:          p.comments(),
	}
	if p.StartUnixNs != 0 {
		out.TimeNanos = p.StartUnixNs
	}
	if len(p.Samples) > 0 {
		out.DurationNanos = p.EndNs - p.StartNs + period
	}
	b := &pprofBuilder{out: out, locs: map[locKey]*pprof.Location{}, funcs: map[funcKey]*pprof.Function{},
		samples: map[string]*pprof.Sample{}}
	if im := p.Image; im != nil {
		start, limit, off := im.mappingRange()
		b.mapping = &pprof.Mapping{ID: 1, Start: start, Limit: limit, Offset: off, File: im.Path,
			BuildID: tracefile.BuildIDHex(im.BuildID), HasFunctions: true, HasFilenames: true,
			HasLineNumbers: true, HasInlineFrames: true}
		out.Mapping = []*pprof.Mapping{b.mapping}
		if p.Kernel > 0 && !p.FoldKernel {
			b.kernel = &pprof.Mapping{ID: 2, Start: start, Limit: limit, Offset: off, File: KernelMapping,
				HasFunctions: true, HasFilenames: true, HasLineNumbers: true, HasInlineFrames: true}
			out.Mapping = append(out.Mapping, b.kernel)
		}
	}
	for i := range p.Samples {
		s := &p.Samples[i]
		labels := sampleLabels{cpu: int64(s.CPU), tid: int64(s.TID), idle: s.Idle, goroutine: int64(s.Goroutine),
			state: s.State, reason: s.Reason, kernelWait: s.KernelWait, wait: s.Wait,
			waker: s.Waker, wakerGoroutine: int64(s.WakerGoroutine), wakerTID: int64(s.WakerTID)}
		if s.Task != 0 && s.Task != uint64(s.TID) {
			labels.task = int64(s.Task)
		}
		locs := make([]*pprof.Location, 0, len(s.Locs))
		for _, l := range s.Locs {
			locs = append(locs, b.location(l))
		}
		w := int64(s.Weight)
		if p.Value == ValueProbe {
			b.sample(locs, labels, 1, s.Period, 0) // a hit: its call's latency
			continue
		}
		if p.Value == ValueWakers {
			b.sample(locs, labels, 1, s.Period, 0) // a wake-up: its blocked time
			continue
		}
		if s.Wait {
			b.sample(locs, labels, w, 0, w*s.Period)
		} else {
			b.sample(locs, labels, w, w*s.Period, 0)
		}
	}
	for _, cpu := range sortedCPUs(p.Lost) {
		n := int64(p.Lost[cpu])
		b.sample([]*pprof.Location{b.location(Loc{Frames: []Frame{{Func: FrameLost}}})}, sampleLabels{cpu: int64(cpu), lost: true}, n, n*period, 0)
	}
	if err := out.CheckValid(); err != nil {
		return nil, fmt.Errorf("pprof profile: %w", err)
	}
	return out, nil
}

// KernelMapping is the file name of the pprof Mapping that the kernel's
// locations refer to. The kernel and the program are one image, so the
// mapping covers the same addresses as the image's; it tells the kernel's
// trap context apart, and pprof's regular expressions match mapping names:
// -focus '\[kernel\]' keeps the samples taken in the kernel, -ignore drops
// them, -hide folds the kernel's frames away as -fold-kernel does. pprof
// reads a name in brackets as code without a file of its own.
const KernelMapping = "[kernel]"

// labelUnit is the unit of the numeric labels. pprof's encoding drops a
// numeric label whose value is 0 unless it has a unit, and CPU 0 and
// thread 0 are real.
const labelUnit = "id"

// sampleLabels are a pprof sample's labels: each says something the others do not. task is
// the SAMPLE's tid-or-goid argument when it is a goroutine's id (0: not one, or the tid).
type sampleLabels struct {
	cpu, tid, task, goroutine int64
	idle, lost, wait          bool
	state, reason, kernelWait string // a goroutine sample's
	waker                     string // a wake-up's: who woke the thread, its goroutine and thread
	wakerGoroutine, wakerTID  int64
}

func (l sampleLabels) set(s *pprof.Sample) {
	s.NumLabel, s.NumUnit = map[string][]int64{}, map[string][]string{}
	if !l.wait { // a goroutine sample's CPU is the one that swept: it says nothing
		s.NumLabel["cpu"], s.NumUnit["cpu"] = []int64{l.cpu}, []string{labelUnit}
	}
	if !l.lost && (!l.wait || l.tid != 0) {
		s.NumLabel["tid"], s.NumUnit["tid"] = []int64{l.tid}, []string{labelUnit}
	}
	if l.task != 0 {
		s.NumLabel["task"], s.NumUnit["task"] = []int64{l.task}, []string{labelUnit}
	}
	for k, v := range map[string]int64{"goroutine": l.goroutine, "waker_goroutine": l.wakerGoroutine, "waker_tid": l.wakerTID} {
		if v != 0 {
			s.NumLabel[k], s.NumUnit[k] = []int64{v}, []string{labelUnit}
		}
	}
	str := map[string][]string{}
	for k, v := range map[string]string{"state": l.state, "reason": l.reason, "kernel_wait": l.kernelWait, "waker": l.waker} {
		if v != "" {
			str[k] = []string{v}
		}
	}
	if l.idle {
		str["idle"] = []string{"true"}
	}
	if len(str) > 0 {
		s.Label = str
	}
}

// sample adds count, cpu and wait ns to the pprof sample of locs and labels, making it if it is
// new.
func (b *pprofBuilder) sample(locs []*pprof.Location, labels sampleLabels, count, ns, wait int64) {
	var k strings.Builder
	fmt.Fprint(&k, labels)
	for _, l := range locs {
		fmt.Fprintf(&k, " %d", l.ID)
	}
	if s := b.samples[k.String()]; s != nil {
		s.Value[0] += count
		s.Value[1] += ns
		if len(s.Value) > 2 {
			s.Value[2] += wait
		}
		return
	}
	v := []int64{count, ns}
	if len(b.out.SampleType) > 2 {
		v = append(v, wait)
	}
	s := &pprof.Sample{Location: locs, Value: v}
	labels.set(s)
	b.samples[k.String()] = s
	b.out.Sample = append(b.out.Sample, s)
}

// WritePProf writes the profile as a gzipped pprof protocol buffer.
func WritePProf(w io.Writer, p *Profile) error {
	pp, err := PProf(p)
	if err != nil {
		return err
	}
	return pp.Write(w)
}

type locKey struct {
	addr   uint64
	exact  bool
	kernel bool
	first  string // the innermost frame: a leaf may keep a wrapper frame a caller drops
	n      int
}

type funcKey struct{ name, file string }

type pprofBuilder struct {
	out     *pprof.Profile
	mapping *pprof.Mapping
	kernel  *pprof.Mapping // KernelMapping, when the profile has kernel frames
	locs    map[locKey]*pprof.Location
	funcs   map[funcKey]*pprof.Function
	samples map[string]*pprof.Sample // by labels and location ids
}

func (b *pprofBuilder) location(l Loc) *pprof.Location {
	addr := l.Addr
	if !l.Exact && addr > 0 {
		addr-- // inside the call instruction
	}
	k := locKey{addr: addr, exact: l.Exact, kernel: l.Kernel, n: len(l.Frames)}
	if len(l.Frames) > 0 {
		k.first = l.Frames[0].Func
	}
	if loc := b.locs[k]; loc != nil {
		return loc
	}
	loc := &pprof.Location{ID: uint64(len(b.out.Location) + 1), Address: addr}
	m := b.mapping
	if l.Kernel && b.kernel != nil {
		m = b.kernel
	}
	if m != nil && addr >= m.Start && addr < m.Limit {
		loc.Mapping = m
	}
	for _, f := range l.Frames {
		if !f.Known && l.Addr != 0 {
			continue // pprof shows the address of a location without lines
		}
		loc.Line = append(loc.Line, pprof.Line{Function: b.function(f), Line: int64(f.Line)})
	}
	b.locs[k] = loc
	b.out.Location = append(b.out.Location, loc)
	return loc
}

func (b *pprofBuilder) function(f Frame) *pprof.Function {
	k := funcKey{f.Func, f.File}
	if fn := b.funcs[k]; fn != nil {
		return fn
	}
	fn := &pprof.Function{ID: uint64(len(b.out.Function) + 1), Name: f.Func, SystemName: f.Func, Filename: f.File}
	b.funcs[k] = fn
	b.out.Function = append(b.out.Function, fn)
	return fn
}

// comments are the profile's notes for pprof's -comments.
func (p *Profile) comments() []string {
	c := []string{"unitrace: " + p.Summary()}
	if p.Image != nil {
		c = append(c, "image: "+p.Image.Path)
	}
	if p.Accel != "" {
		c = append(c, "accel: "+p.Accel)
	}
	return c
}

func sortedCPUs(m map[uint16]int) []uint16 {
	return slices.Sorted(maps.Keys(m))
}
