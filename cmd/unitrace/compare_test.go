package main

import (
	"maps"
	"os"
	"path/filepath"
	"runtime/pprof"
	"slices"
	"strings"
	"testing"
	"time"

	gpprof "github.com/google/pprof/profile"

	"github.com/unitrace/unitrace/internal/profile"
)

// writeSynthetic writes a CPU profile whose samples have the given flat cpu values, one stack
// each: leaf, then main.main; a leaf ending in " [k]" is a kernel location above main.share60.
func writeSynthetic(t *testing.T, name string, leaves map[string]int64) string {
	t.Helper()
	p := &gpprof.Profile{
		SampleType:    []*gpprof.ValueType{{Type: "samples", Unit: "count"}, {Type: "cpu", Unit: "nanoseconds"}},
		PeriodType:    &gpprof.ValueType{Type: "cpu", Unit: "nanoseconds"},
		Period:        10_000_000,
		DurationNanos: 4_000_000_000,
	}
	image := &gpprof.Mapping{ID: 1, Start: 0x1000, Limit: 0x10000, File: "app.elf"}
	kernel := &gpprof.Mapping{ID: 2, Start: 0x1000, Limit: 0x10000, File: profile.KernelMapping}
	p.Mapping = []*gpprof.Mapping{image, kernel}
	funcs := map[string]*gpprof.Function{}
	loc := func(fn string, m *gpprof.Mapping) *gpprof.Location {
		f := funcs[fn]
		if f == nil {
			f = &gpprof.Function{ID: uint64(len(p.Function) + 1), Name: fn}
			funcs[fn] = f
			p.Function = append(p.Function, f)
		}
		l := &gpprof.Location{ID: uint64(len(p.Location) + 1), Address: 0x1000 + uint64(len(p.Location)), Mapping: m,
			Line: []gpprof.Line{{Function: f}}}
		p.Location = append(p.Location, l)
		return l
	}
	for _, leaf := range slices.Sorted(maps.Keys(leaves)) {
		v := leaves[leaf]
		var stack []*gpprof.Location
		if k, ok := strings.CutSuffix(leaf, " [k]"); ok {
			stack = append(stack, loc(k, kernel), loc("main.share60", image))
		} else {
			stack = append(stack, loc(leaf, image))
		}
		stack = append(stack, loc("main.main", image))
		p.Sample = append(p.Sample, &gpprof.Sample{Location: stack, Value: []int64{v, v * p.Period}})
	}
	path := filepath.Join(t.TempDir(), name)
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := p.Write(f); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestCompare: the table, -n, -fold-kernel, -focus, -max-diff's exit statuses and the usage
// errors.
func TestCompare(t *testing.T) {
	a := writeSynthetic(t, "a.pprof", map[string]int64{"main.share60": 60, "main.share30": 30, "main.share10": 10})
	b := writeSynthetic(t, "b.pprof", map[string]int64{"main.share60": 50, "kernel.tick [k]": 8, "main.share30": 32, "main.share10": 10})

	out, errs, st := runCLI(t, "compare", a, b)
	want := "flat shares of each profile's value, in percent (all samples)\n" +
		"A: " + a + ": 100 samples, 4.00s, value cpu/nanoseconds, 100 samples kept\n" +
		"B: " + b + ": 100 samples, 4.00s, value cpu/nanoseconds, 100 samples kept\n" +
		"function            A        B      B-A\n" +
		"main.share60    60.0%    50.0%    -10.0\n" +
		"main.share30    30.0%    32.0%     +2.0\n" +
		"main.share10    10.0%    10.0%     +0.0\n" +
		"kernel.tick         -     8.0%     +8.0\n"
	if st != 0 || errs != "" || out != want {
		t.Errorf("status %d, stderr %q, stdout:\n%s\nwant:\n%s", st, errs, out, want)
	}

	out, _, st = runCLI(t, "compare", "-fold-kernel", "-n", "1", "-max-diff", "2.5", a, b)
	if st != 0 || !strings.Contains(out, "(kernel frames folded into the thread's)") || !strings.HasSuffix(out, "main.share60    60.0%    58.0%     -2.0\n") {
		t.Errorf("-fold-kernel -n 1: status %d\n%s", st, out)
	}
	if _, errs, st = runCLI(t, "compare", "-fold-kernel", "-max-diff", "1", a, b); st != 1 || errs != "unitrace compare: main.share60 differs by 2.0 points, more than -max-diff 1\n" {
		t.Errorf("-max-diff 1: status %d, stderr %q", st, errs)
	}
	out, _, st = runCLI(t, "compare", "-cum", "-focus", `^main\.share[36]0$`, b, a)
	if st != 0 || !strings.Contains(out, `cumulative shares of each profile's value, in percent (focus '^main\.share[36]0$')`) ||
		!strings.Contains(out, "90 samples kept") || !strings.Contains(out, "main.main      100.0%   100.0%     +0.0\n") {
		t.Errorf("-cum -focus: status %d\n%s", st, out)
	}

	if _, errs, st := runCLI(t, "compare", "-focus", "^nothing$", a, b); st != 1 || !strings.Contains(errs, "no samples to compare (100 in the profile, 0 kept)") {
		t.Errorf("-focus matching nothing: status %d, stderr %q", st, errs)
	}
	if _, errs, st := runCLI(t, "compare", "-value", "alloc_space", a, b); st != 1 || !strings.Contains(errs, `no sample type "alloc_space" (it has samples, cpu)`) {
		t.Errorf("-value alloc_space: status %d, stderr %q", st, errs)
	}
	notPprof := filepath.Join(t.TempDir(), "x")
	os.WriteFile(notPprof, []byte("not a profile"), 0o644)
	if _, errs, st := runCLI(t, "compare", a, notPprof); st != 1 || !strings.HasPrefix(errs, "unitrace compare: "+notPprof+": ") {
		t.Errorf("not a profile: status %d, stderr %q", st, errs)
	}
	for _, args := range [][]string{{a}, {a, b, b}, {"-n", "-1", a, b}, {"-max-diff", "-1", a, b}, {"-focus", "(", a, b}} {
		if _, errs, st := runCLI(t, append([]string{"compare"}, args...)...); st != 2 {
			t.Errorf("%q: status %d, stderr %q", args, st, errs)
		}
	}
}

//go:noinline
func spinTwice(d time.Duration) uint64 { return spin(2*d) ^ spinOnce(d) }

//go:noinline
func spin(d time.Duration) uint64 {
	x := uint64(1)
	for start := time.Now(); time.Since(start) < d; {
		for range 1000 {
			x ^= x << 13
			x ^= x >> 7
			x ^= x << 17
		}
	}
	return x
}

//go:noinline
func spinOnce(d time.Duration) uint64 { return spin(d) }

// TestCompareRuntimeProfile compares a profile runtime/pprof writes of this process with
// itself: the command reads what the Go runtime writes, finds the spinning functions, and
// two equal profiles differ nowhere.
func TestCompareRuntimeProfile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "cpu.pprof")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		t.Skipf("the CPU profiler is in use (go test -cpuprofile?): %v", err)
	}
	spinTwice(300 * time.Millisecond)
	pprof.StopCPUProfile()
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	out, errs, st := runCLI(t, "compare", "-cum", "-focus", `spinTwice`, "-max-diff", "0", path, path)
	if st != 0 || errs != "" || !strings.Contains(out, "value cpu/nanoseconds") {
		t.Fatalf("status %d, stderr %q\n%s", st, errs, out)
	}
	for _, fn := range []string{".spinTwice ", ".spin ", ".spinOnce "} { // the test binary's package path, not main
		if !strings.Contains(out, fn) {
			t.Errorf("no row for %s:\n%s", fn, out)
		}
	}
	t.Logf("\n%s", out)
}
