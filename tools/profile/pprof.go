package profile

import (
	"fmt"
	"io"
	"maps"
	"slices"

	pprof "github.com/google/pprof/profile"

	"github.com/unitrace/unitrace/tools/tracefile"
)

// PProf converts the profile to pprof's model (research/tracer.md §5.7):
// sample types samples/count and cpu/nanoseconds, period type
// cpu/nanoseconds with the starting sampling period, one Mapping for the
// image (its GNU build id, inline frames), one Location per stack address
// with a Line per logical frame, innermost first (Address is the sampled
// pc for the leaf and the return address minus 1 for callers, inside the
// call), numeric labels cpu and tid, the label thread, and the estimated
// lost samples as a sample whose only frame is FrameLost.
func PProf(p *Profile) (*pprof.Profile, error) {
	period := p.PeriodNs()
	out := &pprof.Profile{
		SampleType: []*pprof.ValueType{
			{Type: "samples", Unit: "count"},
			{Type: "cpu", Unit: "nanoseconds"},
		},
		DefaultSampleType: "cpu",
		PeriodType:        &pprof.ValueType{Type: "cpu", Unit: "nanoseconds"},
		Period:            period,
		Comments:          p.comments(),
	}
	if p.StartUnixNs != 0 {
		out.TimeNanos = p.StartUnixNs
	}
	if len(p.Samples) > 0 {
		out.DurationNanos = p.EndNs - p.StartNs + period
	}
	b := &pprofBuilder{out: out, locs: map[locKey]*pprof.Location{}, funcs: map[funcKey]*pprof.Function{}}
	if im := p.Image; im != nil {
		start, limit, off := im.mappingRange()
		b.mapping = &pprof.Mapping{ID: 1, Start: start, Limit: limit, Offset: off, File: im.Path,
			BuildID: tracefile.BuildIDHex(im.BuildID), HasFunctions: true, HasFilenames: true,
			HasLineNumbers: true, HasInlineFrames: true}
		out.Mapping = []*pprof.Mapping{b.mapping}
	}
	for i := range p.Samples {
		s := &p.Samples[i]
		ps := &pprof.Sample{
			Value:    []int64{1, s.Period},
			NumLabel: map[string][]int64{"cpu": {int64(s.CPU)}, "tid": {int64(s.TID)}},
			Label:    map[string][]string{"thread": {fmt.Sprintf("tid %d", s.TID)}},
		}
		if s.Task != 0 {
			ps.NumLabel["task"] = []int64{int64(s.Task)}
		}
		if s.Idle {
			ps.Label["idle"] = []string{"true"}
		}
		for _, l := range s.Locs {
			ps.Location = append(ps.Location, b.location(l))
		}
		out.Sample = append(out.Sample, ps)
	}
	for _, cpu := range sortedCPUs(p.Lost) {
		n := int64(p.Lost[cpu])
		out.Sample = append(out.Sample, &pprof.Sample{
			Value:    []int64{n, n * period},
			Location: []*pprof.Location{b.location(Loc{Frames: []Frame{{Func: FrameLost}}})},
			NumLabel: map[string][]int64{"cpu": {int64(cpu)}},
		})
	}
	if err := out.CheckValid(); err != nil {
		return nil, fmt.Errorf("pprof profile: %w", err)
	}
	return out, nil
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
	addr  uint64
	exact bool
	first string // the innermost frame: a leaf may keep a wrapper frame a caller drops
	n     int
}

type funcKey struct{ name, file string }

type pprofBuilder struct {
	out     *pprof.Profile
	mapping *pprof.Mapping
	locs    map[locKey]*pprof.Location
	funcs   map[funcKey]*pprof.Function
}

func (b *pprofBuilder) location(l Loc) *pprof.Location {
	addr := l.Addr
	if !l.Exact && addr > 0 {
		addr-- // inside the call instruction
	}
	k := locKey{addr: addr, exact: l.Exact, n: len(l.Frames)}
	if len(l.Frames) > 0 {
		k.first = l.Frames[0].Func
	}
	if loc := b.locs[k]; loc != nil {
		return loc
	}
	loc := &pprof.Location{ID: uint64(len(b.out.Location) + 1), Address: addr}
	if m := b.mapping; m != nil && addr >= m.Start && addr < m.Limit {
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
