package profile

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	pprof "github.com/google/pprof/profile"

	"github.com/unitrace/unitrace/internal/profile/profiletest"
	"github.com/unitrace/unitrace/trace/wire"
)

// writePProf writes p's pprof profile to a file and reads it back.
func writePProf(t *testing.T, p *Profile) (*pprof.Profile, string) {
	t.Helper()
	var buf bytes.Buffer
	if err := WritePProf(&buf, p); err != nil {
		t.Fatal(err)
	}
	pp, err := pprof.Parse(bytes.NewReader(buf.Bytes()))
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "cpu.pb.gz")
	if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return pp, path
}

func goToolPProf(t *testing.T, args ...string) string {
	t.Helper()
	out, err := exec.Command("go", append([]string{"tool", "pprof"}, args...)...).CombinedOutput()
	if err != nil {
		t.Fatalf("go tool pprof %v: %v\n%s", args, err, out)
	}
	return string(out)
}

// TestPProfKernel: the kernel's locations refer to the [kernel] mapping, values count weights,
// and go tool pprof reads the file: its regular expressions select by the mapping.
func TestPProfKernel(t *testing.T) {
	ks, p := kernelProfile(t, Options{})
	pp, path := writePProf(t, p)
	if len(pp.Mapping) != 2 || pp.Mapping[1].File != KernelMapping || pp.Mapping[1].BuildID != "" ||
		pp.Mapping[0].File != ks.Prog.Path || !pp.Mapping[1].Unsymbolizable() {
		t.Fatalf("mappings %+v", pp.Mapping)
	}
	for _, l := range pp.Location {
		kernel := strings.HasPrefix(l.Line[0].Function.Name, "prog/kernel.")
		if kernel != (l.Mapping == pp.Mapping[1]) {
			t.Errorf("location %#x (%s) in mapping %s", l.Address, l.Line[0].Function.Name, l.Mapping.File)
		}
	}
	var count, ns, wantNs int64
	for _, s := range pp.Sample {
		count += s.Value[0]
		ns += s.Value[1]
	}
	for _, s := range p.Samples {
		wantNs += int64(s.Weight) * s.Period
	}
	if count != int64(ks.Deadlines) || ns != wantNs {
		t.Errorf("pprof values: %d samples, %d ns; want %d, %d", count, ns, ks.Deadlines, wantNs)
	}

	top := goToolPProf(t, "-top", path)
	if !strings.Contains(top, "prog/kernel.lockKernel") || !strings.Contains(top, "main.leaf") {
		t.Errorf("go tool pprof -top:\n%s", top)
	}
	traces := goToolPProf(t, "-traces", path)
	if !strings.Contains(traces, "prog/kernel.lockKernel\n") || !strings.Contains(traces, "runtime.futexsleep") {
		t.Errorf("go tool pprof -traces:\n%s", traces)
	}
	// -hide on the mapping folds the kernel's frames away as -fold-kernel does.
	hidden := goToolPProf(t, "-hide", `\[kernel\]`, "-traces", path)
	if strings.Contains(hidden, "prog/kernel") || !strings.Contains(hidden, "runtime.futex") {
		t.Errorf("go tool pprof -hide [kernel] -traces:\n%s", hidden)
	}
	focus := goToolPProf(t, "-focus", `\[kernel\]`, "-top", path)
	if !strings.Contains(focus, "Showing nodes accounting for 27ms, 72.97% of 37ms total") {
		t.Errorf("go tool pprof -focus [kernel] -top: not the 27 samples in the kernel:\n%s", focus)
	}

	// Folded, the profile has no kernel mapping at all.
	_, folded := kernelProfile(t, Options{FoldKernel: true})
	fp, _ := writePProf(t, folded)
	if len(fp.Mapping) != 1 {
		t.Errorf("-fold-kernel: mappings %+v", fp.Mapping)
	}
}

// TestPProfAggregates: samples with the same locations and labels are one pprof sample, as
// runtime/pprof writes them; a sample on another CPU or of another goroutine stays apart.
func TestPProfAggregates(t *testing.T) {
	prog := program(t, "amd64")
	pc := prog.Func("main.leaf").Entry + 4
	ra := prog.ReturnAddress("main.outer", "main.mid")
	rec := profiletest.Recording{Image: prog.Path, BuildID: profiletest.BuildID, Arch: wire.ArchAMD64}
	same := profiletest.Sample{CPU: 0, TID: 7, Task: 7, Stack: []uint64{pc, ra}}
	for i, s := range []profiletest.Sample{same, same, same, same} {
		switch i {
		case 2:
			s.CPU = 1
		case 3:
			s.Task, s.Weight = 99, 3
		}
		s.Ns = uint64(i+1) * 1_000_000
		rec.Samples = append(rec.Samples, s)
	}
	p := recordingProfile(t, &rec, Options{NoLeafFix: true})
	pp, _ := writePProf(t, p)
	if len(pp.Sample) != 3 {
		t.Fatalf("%d pprof samples, want 3: %v", len(pp.Sample), pp.Sample)
	}
	for i, want := range []struct {
		count    int64
		cpu      int64
		hasTask  bool
		taskWant int64
	}{{2, 0, false, 0}, {1, 1, false, 0}, {3, 0, true, 99}} {
		s := pp.Sample[i]
		task, hasTask := s.NumLabel["task"]
		if s.Value[0] != want.count || s.Value[1] != want.count*p.PeriodNs() || s.NumLabel["cpu"][0] != want.cpu ||
			s.NumLabel["tid"][0] != 7 || hasTask != want.hasTask || hasTask && task[0] != want.taskWant {
			t.Errorf("pprof sample %d: values %v, labels %v", i, s.Value, s.NumLabel)
		}
	}
	// The scenario's 113 samples (lost ones apart) are fewer pprof samples, summing to the same.
	_, sp := scenarioProfile(t, Options{})
	spp, _ := writePProf(t, sp)
	var n int64
	for _, s := range spp.Sample {
		if s.Location[0].Line[0].Function.Name != FrameLost {
			n += s.Value[0]
		}
	}
	if n != int64(sp.Deadlines) || len(spp.Sample) >= len(sp.Samples) {
		t.Errorf("the scenario's %d samples became %d pprof samples of %d", len(sp.Samples), len(spp.Sample), n)
	}
	t.Logf("the profile scenario's %d samples are %d pprof samples (lost ones included)", len(sp.Samples), len(spp.Sample))
}
