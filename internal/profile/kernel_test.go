package profile

import (
	"bytes"
	"fmt"
	"maps"
	"strings"
	"testing"

	"github.com/unitrace/unitrace/internal/profile/profiletest"
)

// kernelProfile builds the kernel scenario's recording and its profile.
func kernelProfile(t *testing.T, opt Options) (*profiletest.KernelScenario, *Profile) {
	t.Helper()
	ks := profiletest.NewKernelScenario(program(t, "amd64"))
	return ks, recordingProfile(t, &ks.Rec, opt)
}

// TestKernelStacks: stacks that cross the kernel boundary lose their marks, keep the kernel's
// frames (marked) above the thread's, and get the leaf fix at both exact pcs.
func TestKernelStacks(t *testing.T) {
	ks, p := kernelProfile(t, Options{})
	if got := Folded(p, FoldOptions{}); !maps.Equal(got, ks.Want) {
		t.Errorf("folded:\n got %v\nwant %v", got, ks.Want)
	}
	if len(p.Samples) != ks.Records || p.Deadlines != ks.Deadlines {
		t.Errorf("%d samples for %d deadlines, want %d for %d", len(p.Samples), p.Deadlines, ks.Records, ks.Deadlines)
	}
	if want := fmt.Sprintf("%d samples for %d deadlines (%d idle hidden", ks.Records, ks.Deadlines, profiletest.KIdle); !strings.HasPrefix(p.Summary(), want) {
		t.Errorf("summary %q, want it to start %q", p.Summary(), want)
	}
	if p.ThreadFix[FixApplied] != ks.ThreadFixed || p.ThreadFix[FixNoTrapFrame] != ks.ThreadNoRegs {
		t.Errorf("thread fix %v, want %d fixed, %d without registers", p.ThreadFix, ks.ThreadFixed, ks.ThreadNoRegs)
	}
	kernelSamples := profiletest.KLock + profiletest.KWeighted + profiletest.KNested + profiletest.KNoRegs
	if p.Kernel != kernelSamples || p.BadMarks != 0 {
		t.Errorf("%d samples in the kernel, %d with bad marks; want %d, 0", p.Kernel, p.BadMarks, kernelSamples)
	}
	for _, want := range []string{"leaf fix at the thread's pc: fixed 17, no exception frame 1", "18 samples in the kernel (frames marked [k])"} {
		if !strings.Contains(p.Notes(), want) {
			t.Errorf("notes %q lack %q", p.Notes(), want)
		}
	}
	for _, s := range p.Samples {
		if !s.InKernel {
			if s.Thread != -1 || s.Locs[0].Kernel {
				t.Errorf("a thread's sample with thread index %d, locs %+v", s.Thread, s.Locs)
			}
			continue
		}
		// The kernel's words come first, then the thread's exact pc, then its return addresses.
		th := s.Stack[s.Thread]
		if th.Addr != ks.FutexPC || !th.Exact || th.Kernel || !s.Stack[0].Exact || !s.Stack[0].Kernel {
			t.Fatalf("stack %+v, thread at %d", s.Stack, s.Thread)
		}
		exact, wantExact := 0, 2 // the kernel's pc and the thread's
		if len(s.Stack) > s.Thread+2 && s.Stack[s.Thread-1].Addr == ks.Prog.ReturnAddress("prog/kernel.Trap", "prog/kernel.syscall") {
			wantExact = 3 // and the pc the nested trap interrupted
		}
		for i, w := range s.Stack {
			if w.Kernel != (i < s.Thread) {
				t.Errorf("word %d of %+v: kernel %v", i, s.Stack, w.Kernel)
			}
			if w.Exact {
				exact++
			}
		}
		if exact != wantExact {
			t.Errorf("%d exact words in %+v, want %d", exact, s.Stack, wantExact)
		}
	}
}

// TestFoldKernel: -fold-kernel charges the kernel's time to the thread's pc that entered it.
func TestFoldKernel(t *testing.T) {
	ks, p := kernelProfile(t, Options{FoldKernel: true})
	if got := Folded(p, FoldOptions{}); !maps.Equal(got, ks.WantFoldKernel) {
		t.Errorf("folded:\n got %v\nwant %v", got, ks.WantFoldKernel)
	}
	for _, s := range p.Samples {
		for _, l := range s.Locs {
			if l.Kernel {
				t.Fatalf("a kernel location with -fold-kernel: %+v", s.Locs)
			}
		}
		if s.InKernel && (s.Thread != 0 || s.Stack[0].Addr != ks.FutexPC || !s.Locs[0].Exact) {
			t.Errorf("a folded sample's leaf is not the thread's exact pc: %+v", s.Stack)
		}
	}
	// The leaf fix at stack[0] counts only the samples whose leaf it still is.
	if n := p.Fix[FixApplied]; n != profiletest.KThreadLeaf {
		t.Errorf("leaf fix %v, want %d fixed", p.Fix, profiletest.KThreadLeaf)
	}
	if !strings.Contains(p.Notes(), "folded into the threads' pcs") {
		t.Errorf("notes %q", p.Notes())
	}
	// The split still sees where the samples were taken.
	if cpus, _ := p.Split(); cpus[0].Kernel != ks.Split[0][0] {
		t.Errorf("split with -fold-kernel: %+v", cpus)
	}
}

func TestSplit(t *testing.T) {
	ks, p := kernelProfile(t, Options{})
	cpus, all := p.Split()
	var want CPUSplit
	for i, c := range cpus {
		w := ks.Split[c.CPU]
		if c.CPU != uint16(i) || c.Kernel != w[0] || c.Thread != w[1] || c.Idle != w[2] {
			t.Errorf("cpu %d: %+v, want %v", c.CPU, c, w)
		}
		want.Kernel += w[0]
		want.Thread += w[1]
		want.Idle += w[2]
	}
	if len(cpus) != 2 || all != want || all.Total() != ks.Deadlines+profiletest.KIdle {
		t.Errorf("split %+v, all %+v; want %+v", cpus, all, want)
	}
	var buf bytes.Buffer
	if err := WriteSplit(&buf, p); err != nil {
		t.Fatal(err)
	}
	out := buf.String()
	t.Logf("\n%s", out)
	for _, line := range []string{
		"  cpu    samples   kernel   thread     idle\n",
		"    0         25   60.00%   40.00%    0.00%\n",
		"    1         14   85.71%    0.00%   14.29%\n",
		"  all         39   69.23%   25.64%    5.13%\n",
	} {
		if !strings.Contains(out, line) {
			t.Errorf("split lacks %q", line)
		}
	}
	// A recording without marks: nothing in the kernel.
	_, old := scenarioProfile(t, Options{})
	if _, all := old.Split(); all.Kernel != 0 || all.Idle != profiletest.NIdle {
		t.Errorf("the old scenario's split: %+v", all)
	}
}

// TestKernelFunction: a function that only runs in the kernel has callers across the boundary.
func TestKernelFunction(t *testing.T) {
	_, p := kernelProfile(t, Options{})
	callees, callers, matched := FunctionTrees(p.Samples, "kernel.lockKernel", GroupNone)
	inKernel := profiletest.KLock + profiletest.KWeighted*profiletest.KWeight + profiletest.KNested + profiletest.KNoRegs
	if matched != inKernel || len(callees.Children) != 1 || callees.Children[0].Self != inKernel || !callees.Children[0].Kernel {
		t.Errorf("callees of lockKernel: matched %d, %+v", matched, callees.Children)
	}
	lock := callers.Children[0]
	sys := lock.Children[0]
	futex := sys.Children[0]
	if !lock.Kernel || sys.Name != "prog/kernel.syscall" || !sys.Kernel || futex.Name != "runtime.futex" || futex.Kernel ||
		futex.Hits != inKernel-profiletest.KNested || futex.Children[0].Name != "runtime.futexsleep" {
		t.Errorf("callers of lockKernel: %s %v, %s %v, %s %v", lock.Name, lock.Kernel, sys.Name, sys.Kernel, futex.Name, futex.Kernel)
	}
	// A thread's function has the kernel among its callees.
	callees, _, matched = FunctionTrees(p.Samples, "futex", GroupNone)
	if matched != inKernel || callees.Children[0].Children[0].Name != "prog/kernel.syscall" {
		t.Errorf("callees of futex: matched %d, %+v", matched, callees.Children[0])
	}
	var buf bytes.Buffer
	if err := WriteProf(&buf, p, ProfOptions{Function: "kernel.lockKernel"}); err != nil {
		t.Fatal(err)
	}
	out := buf.String()
	t.Logf("\n%s", out)
	for _, want := range []string{
		fmt.Sprintf("kernel.lockKernel on the stack of %d samples (73.0%%); callees:\n", inKernel),
		" \\--  72.97%     27  prog/kernel.syscall [k]\n",
		"      |--  67.57%     25  runtime.futex\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("-function kernel.lockKernel lacks %q", want)
		}
	}
}

// TestKernelTree: the call tree marks kernel frames and counts weights.
func TestKernelTree(t *testing.T) {
	_, p := kernelProfile(t, Options{})
	var buf bytes.Buffer
	if err := WriteProf(&buf, p, ProfOptions{}); err != nil {
		t.Fatal(err)
	}
	out := buf.String()
	for _, want := range []string{
		" 72.97%     27  runtime.notesleep\n",
		" |         |--  64.86%     24  prog/kernel.syscall [k]\n",
		" |         |    \\--  64.86%     24  prog/kernel.lockKernel [k]\n",
		" 27.03%     10  main.main\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("prof lacks %q:\n%s", want, out)
		}
	}
	// Reversed, the kernel's leaf is a root.
	rev := Tree(p.Samples, GroupNone, true)
	if r := rev.Children[0]; r.Name != "prog/kernel.lockKernel" || !r.Kernel || r.Hits != 27 {
		t.Errorf("reversed roots: %+v", r)
	}
	// -min-hits counts weights: the weighted CPU 1 samples (12 deadlines) pass 12.
	byCPU := Folded(p, FoldOptions{Group: GroupCPU, MinHits: 12})
	if len(byCPU) != 2 || byCPU["cpu 1;"+profiletest.KStackLock] != profiletest.KWeighted*profiletest.KWeight {
		t.Errorf("-g cpu -min-hits 12: %v", byCPU)
	}
}

func TestKernelAnnotate(t *testing.T) {
	ks, p := kernelProfile(t, Options{})
	var buf bytes.Buffer
	if err := Annotate(&buf, p, "lockKernel"); err != nil {
		t.Fatal(err)
	}
	out := buf.String()
	total := 0
	for pc, n := range ks.LockPCs {
		total += n
		if !strings.Contains(out, fmt.Sprintf("%7d %7s  %#-12x", n, pct(n, 27), pc)) {
			t.Errorf("no line with %d samples at %#x:\n%s", n, pc, out)
		}
	}
	if !strings.Contains(out, fmt.Sprintf("%d samples with an exact pc in this function (%s of %d samples)", total, pct(total, ks.Deadlines), ks.Deadlines)) {
		t.Errorf("annotate lockKernel:\n%s", out)
	}
	// futex: no sample has its pc as the leaf, every kernel sample entered from it.
	buf.Reset()
	if err := Annotate(&buf, p, "runtime.futex"); err != nil {
		t.Fatal(err)
	}
	if out := buf.String(); !strings.Contains(out, "0 samples with an exact pc") || !strings.Contains(out, "27 samples were in the kernel, entered from this function") {
		t.Errorf("annotate futex:\n%s", out)
	}
	// Folded, they count at the instruction the system call returns to.
	_, folded := kernelProfile(t, Options{FoldKernel: true})
	buf.Reset()
	if err := Annotate(&buf, folded, "runtime.futex"); err != nil {
		t.Fatal(err)
	}
	if out := buf.String(); !strings.Contains(out, fmt.Sprintf("%7d %7s  %#-12x", 27, "100.0%", ks.FutexPC)) || strings.Contains(out, "entered from") {
		t.Errorf("annotate futex with -fold-kernel:\n%s", out)
	}
}

func TestKernelFlame(t *testing.T) {
	_, p := kernelProfile(t, Options{})
	var buf bytes.Buffer
	if err := WriteFlame(&buf, p, FoldOptions{}, "kernel"); err != nil {
		t.Fatal(err)
	}
	svg := buf.String()
	if !strings.Contains(svg, "<title>prog/kernel.lockKernel [kernel] (24 samples") || !strings.Contains(svg, flameKernelLegend) ||
		!strings.Contains(svg, `fill="`+flameColor("prog/kernel.lockKernel", true)+`"`) {
		t.Errorf("flame graph without marked kernel frames:\n%.3000s", svg)
	}
	if flameColor("x", true) == flameColor("x", false) {
		t.Error("kernel frames have the threads' colors")
	}
	_, folded := kernelProfile(t, Options{FoldKernel: true})
	buf.Reset()
	if err := WriteFlame(&buf, folded, FoldOptions{}, "folded"); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(buf.String(), flameKernelLegend) || strings.Contains(buf.String(), "[kernel]") {
		t.Error("a flame graph without kernel frames has the kernel's legend")
	}
}
