package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	pprof "github.com/google/pprof/profile"

	"github.com/unitrace/unitrace/internal/profile/profiletest"
	"github.com/unitrace/unitrace/internal/tracefile"
	"github.com/unitrace/unitrace/trace/wire"
)

// sampleRecording writes the profile scenario's recording (a real amd64
// program, SAMPLE records with known stacks).
func sampleRecording(t *testing.T) (*profiletest.Scenario, string) {
	t.Helper()
	if testing.Short() {
		t.Skip("builds a Go program")
	}
	dir := t.TempDir()
	sc := profiletest.NewScenario(profiletest.Build(t, dir, "amd64"), "")
	return sc, sc.Rec.Write(t, dir, "samples.utrace")
}

func TestProfCommands(t *testing.T) {
	sc, file := sampleRecording(t)
	dir := t.TempDir()

	out, errs, st := runCLI(t, "prof", file)
	if st != 0 || !strings.Contains(out, "\\-- ") || !strings.Contains(out, "main.mid  [self 18]") || errs != "" {
		t.Errorf("prof: status %d, stderr %q\n%s", st, errs, out)
	}
	// Without the fix, the frameless leaf hangs under outer.
	out, _, st = runCLI(t, "prof", "-no-leaf-fix", file)
	if st != 0 || !strings.Contains(out, "leaf fix off") || !strings.Contains(out, "\\-- ") ||
		strings.Contains(out, "main.mid  [self") {
		t.Errorf("prof -no-leaf-fix: status %d\n%s", st, out)
	}
	out, _, st = runCLI(t, "prof", "-function", "leaf", "-g", "thread", file)
	if st != 0 || !strings.Contains(out, "leaf on the stack of 68 samples") || !strings.Contains(out, "tid 2") {
		t.Errorf("prof -function leaf -g thread: status %d\n%s", st, out)
	}
	out, _, st = runCLI(t, "prof", "--idle", "--min-hits", "2%", "--max-depth", "3", "-r", file)
	if st != 0 || !strings.Contains(out, "(3 idle)") || !strings.Contains(out, "below --min-hits") {
		t.Errorf("prof --idle --min-hits --max-depth -r: status %d\n%s", st, out)
	}

	out, _, st = runCLI(t, "folded", file)
	for stack, n := range sc.Want {
		if !strings.Contains(out, stack+" "+strconv.Itoa(n)+"\n") {
			t.Errorf("folded lacks %q %d:\n%s", stack, n, out)
		}
	}
	if st != 0 || !strings.Contains(out, "[lost samples] 4\n") {
		t.Errorf("folded: status %d", st)
	}

	svg := filepath.Join(dir, "flame.svg")
	if _, errs, st := runCLI(t, "flame", file, "-o", svg, "-g", "cpu"); st != 0 {
		t.Errorf("flame: status %d: %s", st, errs)
	}
	if b, err := os.ReadFile(svg); err != nil || !bytes.HasPrefix(b, []byte("<?xml")) || !bytes.Contains(b, []byte("<title>cpu 1")) {
		t.Errorf("flame.svg: %v\n%.300s", err, b)
	}

	pb := filepath.Join(dir, "cpu.pb.gz")
	if _, errs, st := runCLI(t, "pprof", file, "-o", pb); st != 0 {
		t.Fatalf("pprof: status %d: %s", st, errs)
	}
	f, err := os.Open(pb)
	if err != nil {
		t.Fatal(err)
	}
	pp, err := pprof.Parse(f)
	f.Close()
	if err != nil || len(pp.Sample) == 0 || pp.Period != 1e6 {
		t.Fatalf("cpu.pb.gz: %v", err)
	}
	top, err := exec.Command("go", "tool", "pprof", "-top", pb).CombinedOutput()
	if err != nil || !bytes.Contains(top, []byte("main.leaf")) || !bytes.Contains(top, []byte("main.mid")) {
		t.Errorf("go tool pprof -top: %v\n%s", err, top)
	}

	out, _, st = runCLI(t, "annotate", "-func", "main.leaf", file)
	if st != 0 || !strings.HasPrefix(out, "warning: recorded under TCG") || !strings.Contains(out, "ROUTINE main.leaf") {
		t.Errorf("annotate: status %d\n%s", st, out)
	}
}

func TestProfCommandErrors(t *testing.T) {
	sc, file := sampleRecording(t)
	for _, c := range []struct {
		args   []string
		status int
		msg    string
	}{
		{[]string{"prof", "-g", "goid", file}, 2, "unknown grouping"},
		{[]string{"prof", "-min-hits", "lots", file}, 2, "bad --min-hits"},
		{[]string{"prof", "-max-depth", "-1", file}, 2, "must not be negative"},
		{[]string{"prof", "-function", "nosuch", file}, 1, "no sample has the function on its stack"},
		{[]string{"prof", file, file}, 2, "exactly one recording"},
		{[]string{"pprof", file}, 2, "-o is required"},
		{[]string{"flame", file}, 2, "-o is required"},
		{[]string{"annotate", file}, 2, "-func is required"},
		{[]string{"annotate", "-func", "nosuch", file}, 1, "no such function"},
		{[]string{"prof", "-elf", filepath.Join(t.TempDir(), "none.elf"), file}, 1, "no such file"},
	} {
		_, errs, st := runCLI(t, c.args...)
		if st != c.status || !strings.Contains(errs, c.msg) {
			t.Errorf("%v: status %d, want %d; stderr %q, want %q", c.args, st, c.status, errs, c.msg)
		}
	}

	dir := t.TempDir()
	// A recording of tracepoints only.
	none := profiletest.Recording{Image: sc.Prog.Path, BuildID: profiletest.BuildID, Arch: wire.ArchAMD64,
		Others: []tracefile.SynthRecord{{TPID: 16, TS: 5, Args: []uint64{1}}}}
	p := none.Write(t, dir, "none.utrace")
	x := filepath.Join(dir, "x")
	for _, args := range [][]string{{"prof"}, {"folded"}, {"pprof", "-o", x}, {"flame", "-o", x}, {"annotate", "-func", "leaf"}} {
		_, errs, st := runCLI(t, append(args, p)...)
		if st != 1 || !strings.Contains(errs, "has no SAMPLE records") {
			t.Errorf("%s without samples: status %d, %q", args[0], st, errs)
		}
	}
	// Only idle samples.
	idle := sc.Rec
	idle.Samples = nil
	for _, s := range sc.Rec.Samples {
		if s.Idle {
			idle.Samples = append(idle.Samples, s)
		}
	}
	if _, errs, st := runCLI(t, "prof", idle.Write(t, dir, "idle.utrace")); st != 1 || !strings.Contains(errs, "-idle shows them") {
		t.Errorf("all idle: status %d, %q", st, errs)
	}
	// Another build's recording: refused unless -force.
	other := sc.Rec
	other.BuildID = []byte{1, 2, 3}
	po := other.Write(t, dir, "other.utrace")
	if _, errs, st := runCLI(t, "prof", po); st != 1 || !strings.Contains(errs, "build id") {
		t.Errorf("build id mismatch: status %d, %q", st, errs)
	}
	if out, _, st := runCLI(t, "prof", "-force", po); st != 0 || !strings.Contains(out, "main.leaf") {
		t.Errorf("-force: status %d\n%s", st, out)
	}
}

// TestKernelProfCommands: a recording whose samples cross the kernel boundary, in every view,
// with and without -fold-kernel, and the per-CPU split.
func TestKernelProfCommands(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a Go program")
	}
	dir := t.TempDir()
	ks := profiletest.NewKernelScenario(profiletest.Build(t, dir, "amd64"))
	file := ks.Rec.Write(t, dir, "kernel.utrace")

	out, errs, st := runCLI(t, "prof", file)
	if st != 0 || errs != "" || !strings.Contains(out, "28 samples for 37 deadlines") ||
		!strings.Contains(out, "  prog/kernel.lockKernel [k]\n") || !strings.Contains(out, "leaf fix at the thread's pc: fixed 17") {
		t.Errorf("prof: status %d, stderr %q\n%s", st, errs, out)
	}
	out, _, st = runCLI(t, "prof", "-function", "kernel.lockKernel", file)
	if st != 0 || !strings.Contains(out, "kernel.lockKernel on the stack of 27 samples") || !strings.Contains(out, "runtime.futexsleep") {
		t.Errorf("prof -function kernel.lockKernel: status %d\n%s", st, out)
	}
	out, _, st = runCLI(t, "prof", "-split", file)
	if st != 0 || !strings.Contains(out, "  all         39   69.23%   25.64%    5.13%\n") {
		t.Errorf("prof -split: status %d\n%s", st, out)
	}
	out, _, st = runCLI(t, "folded", file)
	if st != 0 || !strings.Contains(out, profiletest.KStackLock+" 24\n") {
		t.Errorf("folded: status %d\n%s", st, out)
	}
	out, _, st = runCLI(t, "folded", "-fold-kernel", file)
	if st != 0 || strings.Contains(out, "_[k]") || !strings.Contains(out, profiletest.KStackFutex+" 26\n") {
		t.Errorf("folded -fold-kernel: status %d\n%s", st, out)
	}
	if _, errs, st := runCLI(t, "prof", "-fold-kernel", "-function", "lockKernel", file); st != 1 || !strings.Contains(errs, "no sample has the function on its stack") {
		t.Errorf("prof -fold-kernel -function lockKernel: status %d, %q", st, errs)
	}
	svg := filepath.Join(dir, "kernel.svg")
	if _, errs, st := runCLI(t, "flame", "-fold-kernel", file, "-o", svg); st != 0 {
		t.Errorf("flame -fold-kernel: status %d: %s", st, errs)
	}
	out, _, st = runCLI(t, "annotate", "-func", "runtime.futex", "-fold-kernel", file)
	if st != 0 || !strings.Contains(out, "27 samples with an exact pc in this function") {
		t.Errorf("annotate -fold-kernel: status %d\n%s", st, out)
	}
	pb := filepath.Join(dir, "kernel.pb.gz")
	if _, errs, st := runCLI(t, "pprof", file, "-o", pb); st != 0 {
		t.Fatalf("pprof: status %d: %s", st, errs)
	}
	top, err := exec.Command("go", "tool", "pprof", "-top", pb).CombinedOutput()
	if err != nil || !bytes.Contains(top, []byte("prog/kernel.lockKernel")) {
		t.Errorf("go tool pprof -top: %v\n%s", err, top)
	}
	if _, errs, st := runCLI(t, "prof", "-split", "-function", "leaf", file); st != 2 || !strings.Contains(errs, "pick one") {
		t.Errorf("prof -split -function: status %d, %q", st, errs)
	}
}
