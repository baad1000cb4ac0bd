package pprofcmp

import (
	"regexp"
	"strings"
	"testing"

	pprof "github.com/google/pprof/profile"

	"github.com/unitrace/unitrace/internal/profile"
)

// builder makes synthetic profiles: stacks are function names, innermost first; a name ending
// in " [k]" is a location of the kernel's mapping, and "a+b" one location with a inlined into b.
type builder struct {
	p     *pprof.Profile
	funcs map[string]*pprof.Function
	image *pprof.Mapping
	kern  *pprof.Mapping
}

func newBuilder(types ...string) *builder {
	p := &pprof.Profile{PeriodType: &pprof.ValueType{Type: "cpu", Unit: "nanoseconds"}, Period: 10_000_000,
		DurationNanos: 2_000_000_000}
	for _, t := range types {
		unit := "count"
		if t == "cpu" {
			unit = "nanoseconds"
		}
		p.SampleType = append(p.SampleType, &pprof.ValueType{Type: t, Unit: unit})
	}
	b := &builder{p: p, funcs: map[string]*pprof.Function{},
		image: &pprof.Mapping{ID: 1, Start: 0x1000, Limit: 0x100000, File: "app.elf"},
		kern:  &pprof.Mapping{ID: 2, Start: 0x1000, Limit: 0x100000, File: profile.KernelMapping}}
	p.Mapping = []*pprof.Mapping{b.image, b.kern}
	return b
}

func (b *builder) add(values []int64, stack ...string) {
	s := &pprof.Sample{Value: values}
	for _, frame := range stack {
		loc := &pprof.Location{ID: uint64(len(b.p.Location) + 1), Address: uint64(0x1000 + len(b.p.Location)), Mapping: b.image}
		if name, ok := strings.CutSuffix(frame, " [k]"); ok {
			frame, loc.Mapping = name, b.kern
		}
		if frame != "" {
			for _, fn := range strings.Split(frame, "+") {
				f := b.funcs[fn]
				if f == nil {
					f = &pprof.Function{ID: uint64(len(b.p.Function) + 1), Name: fn}
					b.funcs[fn] = f
					b.p.Function = append(b.p.Function, f)
				}
				loc.Line = append(loc.Line, pprof.Line{Function: f})
			}
		}
		b.p.Location = append(b.p.Location, loc)
		s.Location = append(s.Location, loc)
	}
	b.p.Sample = append(b.p.Sample, s)
}

// roundTrip writes the profile and parses it back, as the command reads its files.
func (b *builder) roundTrip(t *testing.T) *pprof.Profile {
	t.Helper()
	if err := b.p.CheckValid(); err != nil {
		t.Fatal(err)
	}
	var buf strings.Builder
	if err := b.p.Write(&buf); err != nil {
		t.Fatal(err)
	}
	p, err := pprof.Parse(strings.NewReader(buf.String()))
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func TestValueIndex(t *testing.T) {
	for _, tc := range []struct {
		types []string
		value string
		want  int
		err   bool
	}{
		{[]string{"samples", "cpu"}, "", 1, false},
		{[]string{"samples"}, "", 0, false},
		{[]string{"alloc_objects", "alloc_space"}, "", 1, false},
		{[]string{"samples", "cpu"}, "samples", 0, false},
		{[]string{"samples", "cpu"}, "wall", 0, true},
	} {
		got, err := ValueIndex(newBuilder(tc.types...).p, tc.value)
		if got != tc.want || (err != nil) != tc.err {
			t.Errorf("types %v value %q: %d, %v; want %d, error %v", tc.types, tc.value, got, err, tc.want, tc.err)
		}
	}
	if _, err := ValueIndex(&pprof.Profile{}, ""); err == nil {
		t.Errorf("a profile without sample types: no error")
	}
}

// TestComputeShares: flat and cumulative shares weighed by cpu (whose period may differ
// between samples), inlined frames, kernel frames kept or folded, focus and ignore.
func TestComputeShares(t *testing.T) {
	b := newBuilder("samples", "cpu")
	b.add([]int64{6, 60}, "main.share60", "main.shares", "main.main")
	b.add([]int64{3, 30}, "main.share30", "main.shares", "main.main")
	b.add([]int64{1, 5}, "main.share10", "main.shares", "main.main") // half the period
	b.add([]int64{1, 5}, "main.share10", "main.shares", "main.main")
	b.add([]int64{1, 10}, "kernel.tick [k]", "main.share60", "main.shares", "main.main")
	b.add([]int64{2, 20}, "runtime.memclr+runtime.mallocgc", "runtime.gcBgMarkWorker")
	b.add([]int64{1, 10}, "kernel.idle [k]")
	p := b.roundTrip(t)

	check := func(name string, opt Options, wantKept, wantTotal int64, want map[string]float64) {
		t.Helper()
		s, err := Compute(p, opt)
		if err != nil {
			t.Fatal(err)
		}
		wantValue := "cpu/nanoseconds"
		if opt.Value == "samples" {
			wantValue = "samples/count"
		}
		if s.Value != wantValue || s.Samples != 15 || s.Kept != wantKept || s.Total != wantTotal || s.Duration.Seconds() != 2 {
			t.Errorf("%s: value %s, %d samples, %d kept, total %d, %v; want %s, 15, %d, %d, 2s", name, s.Value, s.Samples, s.Kept, s.Total, s.Duration, wantValue, wantKept, wantTotal)
		}
		if len(s.ByFunc) != len(want) {
			t.Errorf("%s: functions %v, want %v", name, s.ByFunc, want)
		}
		for fn, w := range want {
			if got, ok := s.Share(fn); !ok || got != w {
				t.Errorf("%s: %s share %v (%v), want %v", name, fn, got, ok, w)
			}
		}
	}
	check("flat", Options{}, 15, 140, map[string]float64{
		"main.share60": 100 * 60.0 / 140, "main.share30": 100 * 30.0 / 140, "main.share10": 100 * 10.0 / 140,
		"kernel.tick": 100 * 10.0 / 140, "runtime.memclr": 100 * 20.0 / 140, "kernel.idle": 100 * 10.0 / 140})
	check("fold", Options{FoldKernel: true}, 15, 140, map[string]float64{
		"main.share60": 100 * 70.0 / 140, "main.share30": 100 * 30.0 / 140, "main.share10": 100 * 10.0 / 140,
		"runtime.memclr": 100 * 20.0 / 140, KernelFrame: 100 * 10.0 / 140})
	focus := regexp.MustCompile(`^main\.main$`)
	check("focus", Options{FoldKernel: true, Focus: focus}, 12, 110, map[string]float64{
		"main.share60": 100 * 70.0 / 110, "main.share30": 100 * 30.0 / 110, "main.share10": 100 * 10.0 / 110})
	check("cum", Options{Cum: true, Focus: focus}, 12, 110, map[string]float64{
		"main.share60": 100 * 70.0 / 110, "main.share30": 100 * 30.0 / 110, "main.share10": 100 * 10.0 / 110,
		"kernel.tick": 100 * 10.0 / 110, "main.shares": 100, "main.main": 100})
	check("ignore", Options{Cum: true, Ignore: regexp.MustCompile(`^main\.`)}, 3, 30, map[string]float64{
		"runtime.memclr": 100 * 20.0 / 30, "runtime.mallocgc": 100 * 20.0 / 30, "runtime.gcBgMarkWorker": 100 * 20.0 / 30,
		"kernel.idle": 100 * 10.0 / 30})
	check("samples", Options{Value: "samples", Focus: focus}, 12, 12, map[string]float64{
		"main.share60": 100 * 6.0 / 12, "kernel.tick": 100 * 1.0 / 12, "main.share30": 100 * 3.0 / 12, "main.share10": 100 * 2.0 / 12})
}

// TestComputeWithoutCounts: a profile with only a cpu type counts its pprof samples, and a
// location without lines is named by its address.
func TestComputeWithoutCounts(t *testing.T) {
	b := newBuilder("cpu")
	b.add([]int64{10}, "", "main.main")
	b.add([]int64{30}, "main.f", "main.main")
	s, err := Compute(b.roundTrip(t), Options{})
	if err != nil {
		t.Fatal(err)
	}
	if s.Samples != 2 || s.Total != 40 || s.ByFunc["0x1000"] != 10 || s.ByFunc["main.f"] != 30 {
		t.Errorf("%+v", s)
	}
}

// TestTopAndFormat: the rows are the top functions by either share, ties in name order, "-"
// where a profile lacks a function; the output is the same every time.
func TestTopAndFormat(t *testing.T) {
	a := &Shares{Value: "cpu/nanoseconds", Samples: 100, Kept: 100, Total: 100, Duration: 2e9,
		ByFunc: map[string]int64{"main.a": 50, "main.b": 20, "main.c": 20, "main.only": 10}}
	b := &Shares{Value: "cpu/nanoseconds", Samples: 210, Kept: 200, Total: 200,
		ByFunc: map[string]int64{"main.a": 90, "main.b": 30, "main.c": 50, "runtime.x": 30}}
	rows := Top(a, b, 0)
	var names []string
	for _, r := range rows {
		names = append(names, r.Func)
	}
	if got := strings.Join(names, " "); got != "main.a main.c main.b runtime.x main.only" {
		t.Errorf("order %s", got)
	}
	if r := Top(a, b, 2); len(r) != 2 || r[1].Func != "main.c" {
		t.Errorf("top 2: %+v", r)
	}
	worst, d, ok := MaxDiff(rows)
	if !ok || worst.Func != "runtime.x" || d != 15 {
		t.Errorf("max diff %+v %v %v", worst, d, ok)
	}
	if _, _, ok := MaxDiff(nil); ok {
		t.Errorf("max diff of no rows")
	}
	var out strings.Builder
	if err := Format(&out, Named{"cpu.pprof", a}, Named{"sampler.pprof", b}, rows, Options{FoldKernel: true, Focus: regexp.MustCompile(`main\.main`)}); err != nil {
		t.Fatal(err)
	}
	want := `flat shares of each profile's value, in percent (kernel frames folded into the thread's, focus 'main\.main')
A: cpu.pprof: 100 samples, 2.00s, value cpu/nanoseconds, 100 samples kept
B: sampler.pprof: 210 samples, duration unknown, value cpu/nanoseconds, 200 samples kept
function         A        B      B-A
main.a       50.0%    45.0%     -5.0
main.c       20.0%    25.0%     +5.0
main.b       20.0%    15.0%     -5.0
runtime.x        -    15.0%    +15.0
main.only    10.0%        -    -10.0
`
	if out.String() != want {
		t.Errorf("got:\n%s\nwant:\n%s", out.String(), want)
	}
}

// TestFormatRoundsToZero: a difference that rounds to zero prints as +0.0, never -0.0.
func TestFormatRoundsToZero(t *testing.T) {
	s := &Shares{Value: "cpu/nanoseconds"}
	var out strings.Builder
	if err := Format(&out, Named{"a", s}, Named{"b", s}, []Row{{Func: "f", A: 10.02, B: 10, InA: true, InB: true}}, Options{}); err != nil {
		t.Fatal(err)
	}
	if !strings.HasSuffix(out.String(), "f           10.0%    10.0%     +0.0\n") {
		t.Errorf("got:\n%s", out.String())
	}
}
