package vm_test

import (
	"fmt"
	"math"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/unitrace/unitrace/internal/pprofcmp"
)

// The program's own profiler beside unitrace's sampler: examples/groundtruth profiles its
// shares workload with runtime/pprof (100 Hz, SIGPROF from the kernel's CPU-time timers) and
// writes the profile to a shared host directory, while the sampler records the same run at the
// same rate.

// selfProfileRate is the sampling rate of both profilers: runtime/pprof's fixed 100 Hz, and
// the sampler's -sample.
const selfProfileRate = 100

// selfProfileWorkload is how long the shares workload runs: 400 samples at 100 Hz on its one
// goroutine, and under TCG on two cores four boots stay within a few minutes.
const selfProfileWorkload = 8 * time.Second

// cputimeLine is the groundtruth line with the CPU time the workload took, by getrusage.
var cputimeLine = regexp.MustCompile(`^groundtruth: cputime user=(\S+) sys=(\S+) wall=(\S+)$`)

// selfProfileOptions select the samples both profilers see alike: the workload's own stacks
// (main.main in them: no runtime background work, idle CPUs or lost samples), with the
// kernel's frames, which only the sampler records, folded into the thread's pc that entered
// the kernel, where the runtime's profiling signal finds the thread.
var selfProfileOptions = pprofcmp.Options{Focus: regexp.MustCompile(`^main\.main$`), FoldKernel: true}

var shareTruth = []struct {
	fn   string
	want float64
}{{"main.share60", 60}, {"main.share30", 30}, {"main.share10", 10}}

// TestSelfProfile boots `groundtruth -cpuprofile /out/cpu.pprof shares 8s` with 1 and 2 CPUs,
// the sampler at 100 Hz writing its own pprof profile. The program's profile must parse and
// hold at least 90% of the samples its CPU time calls for (100 Hz × user+sys, as the program
// measured it with getrusage), and its flat shares of share60, share30 and share10 within the
// tolerance (shareTolerance) of 60, 30 and 10, and runtime.asyncPreempt's at most
// maxAsyncPreempt; the sampler's shares must agree with the program's within the tolerance of
// their difference; a boot that misses a share boots again (three times at most), as the
// ground truths do. The 2-CPU run also writes the execution
// trace and the heap, block, mutex and goroutine profiles, which `go tool trace` and `go tool
// pprof` must read.
func TestSelfProfile(t *testing.T) {
	forEachArch(t, func(t *testing.T, a guestArch) {
		for _, cpus := range []int{1, 2} {
			t.Run(fmt.Sprintf("smp%d", cpus), func(t *testing.T) {
				// The shares are sampled: a boot that misses them boots again, three times at
				// most, as the ground truths do.
				var errs []string
				for attempt := 1; attempt <= 3; attempt++ {
					if errs = testSelfProfile(t, a, cpus, cpus == 2 && attempt == 1); len(errs) == 0 {
						return
					}
					t.Logf("attempt %d missed the shares:\n%s", attempt, strings.Join(errs, "\n"))
				}
				t.Errorf("three boots missed the shares; the last:\n%s", strings.Join(errs, "\n"))
			})
		}
	})
}

// testSelfProfile boots the run once and checks it; it returns the share checks it missed,
// which a noisy boot can miss.
func testSelfProfile(t *testing.T, a guestArch, cpus int, allProfiles bool) (shareErrs []string) {
	dir := t.TempDir()
	sampler := filepath.Join(dir, "sampler.pprof")
	progArgs := []string{"-cpuprofile", "/out/cpu.pprof"}
	others := []string{"heap", "block", "mutex", "goroutine"}
	if allProfiles {
		progArgs = append(progArgs, "-trace", "/out/trace.out", "-memprofile", "/out/heap.pprof", "-blockprofile", "/out/block.pprof",
			"-mutexprofile", "/out/mutex.pprof", "-goroutineprofile", "/out/goroutine.pprof")
	}
	progArgs = append(progArgs, "shares", selfProfileWorkload.String())
	args := append([]string{"-smp", strconv.Itoa(cpus), "-image", a.path("gt-selfprofile.elf"),
		"-share", dir + ":/out", "-sample", strconv.Itoa(selfProfileRate), "-pprof", sampler,
		"-o", filepath.Join(dir, "run.utrace"), groundtruthApp, "--"}, progArgs...)
	stdout, stderr, status := runLauncher(t, a, args...)
	if status != 0 {
		t.Fatalf("status %d\n%s\n%s", status, stdout, stderr)
	}
	logSamplerReport(t, stdout)

	// The samples the program's CPU time calls for.
	var cpuTime time.Duration
	found := false
	for _, l := range programLines(consoleLines(stdout)) {
		if strings.HasPrefix(l, "groundtruth: ") {
			t.Log(l)
		}
		m := cputimeLine.FindStringSubmatch(l)
		if m == nil {
			continue
		}
		user, err1 := time.ParseDuration(m[1])
		sys, err2 := time.ParseDuration(m[2])
		if err1 != nil || err2 != nil {
			t.Errorf("unreadable cputime line %q", l)
		}
		cpuTime, found = user+sys, true
	}
	if !found {
		t.Errorf("the program printed no CPU time (groundtruth: cputime user=... sys=...)")
	}
	expected := cpuTime.Seconds() * selfProfileRate

	prog := selfProfileShares(t, filepath.Join(dir, "cpu.pprof"))
	samp := selfProfileShares(t, sampler)
	t.Logf("program's profile: %d samples, expected %.0f (%d Hz × %v of CPU time): %.1f%%; %d of them in main.main's stacks",
		prog.Samples, expected, selfProfileRate, cpuTime, pct(int(prog.Samples), int(expected)), prog.Kept)
	t.Logf("sampler's profile: %d samples, %d of them in main.main's stacks", samp.Samples, samp.Kept)
	if found && float64(prog.Samples) < 0.9*expected {
		t.Errorf("the program's profile has %d samples, want at least 90%% of %.0f", prog.Samples, expected)
	}
	var table strings.Builder
	pprofcmp.Format(&table, pprofcmp.Named{Name: "program", Shares: prog}, pprofcmp.Named{Name: "sampler", Shares: samp},
		pprofcmp.Top(prog, samp, 6), selfProfileOptions)
	t.Logf("unitrace compare -fold-kernel -focus '^main\\.main$' cpu.pprof sampler.pprof:\n%s", table.String())
	checkAsyncPreempt(t, prog)
	for _, f := range shareTruth {
		p, _ := prog.Share(f.fn)
		s, _ := samp.Share(f.fn)
		tolTruth := shareTolerance(f.want, prog.Kept)
		tolDiff := shareTolerance(f.want, prog.Kept, samp.Kept)
		t.Logf("%s: program %.1f%%, sampler %.1f%%, truth %.0f%%: the program %+.1f points off (tolerance %.1f), the sampler %+.1f points from the program (tolerance %.1f)",
			f.fn, p, s, f.want, p-f.want, tolTruth, s-p, tolDiff)
		if math.Abs(p-f.want) > tolTruth {
			shareErrs = append(shareErrs, fmt.Sprintf("%s has %.1f%% of the program's profile, want %.0f±%.1f", f.fn, p, f.want, tolTruth))
		}
		if math.Abs(s-p) > tolDiff {
			shareErrs = append(shareErrs, fmt.Sprintf("%s has %.1f%% of the sampler's profile and %.1f%% of the program's, want them within %.1f points", f.fn, s, p, tolDiff))
		}
	}

	if !allProfiles {
		return shareErrs
	}
	if out, err := exec.Command("go", "tool", "trace", "-d=parsed", filepath.Join(dir, "trace.out")).CombinedOutput(); err != nil {
		t.Errorf("go tool trace -d=parsed trace.out: %v\n%s", err, lastLines(string(out), 10))
	} else {
		t.Logf("go tool trace parsed the execution trace: %d lines of events", strings.Count(string(out), "\n"))
	}
	for _, name := range others {
		file := filepath.Join(dir, name+".pprof")
		out, err := exec.Command("go", "tool", "pprof", "-top", file).CombinedOutput()
		if err != nil {
			t.Errorf("go tool pprof -top %s.pprof: %v\n%s", name, err, out)
			continue
		}
		t.Logf("go tool pprof -top %s.pprof:\n%s", name, topRows(string(out), 5))
		// The goroutine profile is written from main.main, after the workload.
		if name == "goroutine" && !strings.Contains(string(out), " main.main\n") {
			t.Errorf("the goroutine profile has no main.main:\n%s", out)
		}
	}
	return shareErrs
}

// selfProfileShares reads a CPU profile and shares it out by selfProfileOptions; a profile
// that does not parse fails the test, and one without samples has none to share.
func selfProfileShares(t *testing.T, file string) *pprofcmp.Shares {
	t.Helper()
	p, err := pprofcmp.ReadFile(file)
	if err != nil {
		t.Errorf("%v", err)
		return &pprofcmp.Shares{}
	}
	s, err := pprofcmp.Compute(p, selfProfileOptions)
	if err != nil {
		t.Errorf("%s: %v", file, err)
		return &pprofcmp.Shares{}
	}
	return s
}

// shareTolerance is how far a share measured from samples may be from the truth want (one
// count: the profile's samples) or two measured shares from each other (two counts): 5
// percentage points, or three standard errors of the binomial sampling when that is more.
// At 100 Hz an 8 s workload has about 800 samples, and a 60% share's standard error is then
// 1.7 points: 5 points is 2.9 of them against the truth, but a difference of two profiles
// (2.4 points) would fail one run in twenty by chance.
func shareTolerance(want float64, counts ...int64) float64 {
	p := want / 100
	variance := 0.0
	for _, n := range counts {
		if n <= 0 {
			return 5
		}
		variance += p * (1 - p) / float64(n)
	}
	return max(5, 3*100*math.Sqrt(variance))
}

// lastLines is the last n lines of s.
func lastLines(s string, n int) string {
	lines := strings.Split(strings.TrimSuffix(s, "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}

// topRows is the part of `go tool pprof -top` output up to n rows after the table's header.
func topRows(s string, n int) string {
	lines := strings.Split(strings.TrimSuffix(s, "\n"), "\n")
	for i, l := range lines {
		if strings.Contains(l, "flat%") {
			return strings.Join(lines[:min(len(lines), i+1+n)], "\n")
		}
	}
	return s
}

// maxAsyncPreempt is the most of a profile's samples that runtime.asyncPreempt may have, in
// percent: the runtime's asynchronous preemption costs a fraction of a percent of a CPU, and
// more is the kernel's doing (a SIGPROF delivered after a SIGURG's handler moved the pc there).
const maxAsyncPreempt = 2

// checkAsyncPreempt fails t if runtime.asyncPreempt has more than maxAsyncPreempt of the
// program's profile s.
func checkAsyncPreempt(t *testing.T, s *pprofcmp.Shares) {
	t.Helper()
	if p, _ := s.Share("runtime.asyncPreempt"); p > maxAsyncPreempt {
		t.Errorf("runtime.asyncPreempt has %.1f%% of the program's profile, want at most %d%%", p, maxAsyncPreempt)
	}
}

// preemptTruthLine is the preempt workload's line of true shares (examples/groundtruth's
// preemptTruth).
var preemptTruthLine = regexp.MustCompile(`^groundtruth: preempt truth preempt60=(\S+) preempt30=(\S+) preempt10=(\S+)$`)

// preemptTolerance is how far, in points, a share of the program's profile of the preempt
// workload may be from the truth the workload measured: about 2.3 standard errors at 800
// samples and 60%, so a run fails by chance about once in thirty and is booted again.
const preemptTolerance = 4

// TestSelfProfilePreempt boots `groundtruth -cpuprofile /out/cpu.pprof preempt 8s` with 1 and
// 2 CPUs: the shares workload's 60/30/10 in Go loops that never yield, so that the runtime's
// sysmon preempts them asynchronously (SIGURG, runtime.asyncPreempt) about a hundred times a
// second while runtime/pprof's SIGPROF samples them. Each function's share of the program's
// profile must be within preemptTolerance points of the share of the time its calls took (the
// workload's own measurement), and runtime.asyncPreempt's at most maxAsyncPreempt. A boot that
// misses a check is booted again (three boots at most, the last one's failures reported): a
// sampled share is noisy, and the host's load moves it further.
func TestSelfProfilePreempt(t *testing.T) {
	forEachArch(t, func(t *testing.T, a guestArch) {
		for _, cpus := range []int{1, 2} {
			t.Run(fmt.Sprintf("smp%d", cpus), func(t *testing.T) {
				for attempt := 1; ; attempt++ {
					failures := testSelfProfilePreempt(t, a, cpus)
					if len(failures) == 0 {
						return
					}
					if attempt == 3 {
						for _, f := range failures {
							t.Error(f)
						}
						return
					}
					t.Logf("attempt %d: %s; booting again", attempt, strings.Join(failures, "; "))
				}
			})
		}
	})
}

// testSelfProfilePreempt boots the preempt workload once and returns the checks it missed.
func testSelfProfilePreempt(t *testing.T, a guestArch, cpus int) (failures []string) {
	dir := t.TempDir()
	stdout, stderr, status := runLauncher(t, a, "-smp", strconv.Itoa(cpus), "-image", a.path("gt-selfprofile.elf"),
		"-share", dir+":/out", groundtruthApp, "--", "-cpuprofile", "/out/cpu.pprof", "preempt", selfProfileWorkload.String())
	if status != 0 {
		t.Fatalf("status %d\n%s\n%s", status, stdout, stderr)
	}
	var truth []float64
	for _, l := range programLines(consoleLines(stdout)) {
		if strings.HasPrefix(l, "groundtruth: ") {
			t.Log(l)
		}
		if m := preemptTruthLine.FindStringSubmatch(l); m != nil {
			for _, v := range m[1:] {
				f, err := strconv.ParseFloat(v, 64)
				if err != nil {
					t.Fatalf("unreadable truth line %q", l)
				}
				truth = append(truth, f)
			}
		}
	}
	if truth == nil {
		t.Fatalf("the program printed no truth line (groundtruth: preempt truth ...)\n%s", stdout)
	}
	prog := selfProfileShares(t, filepath.Join(dir, "cpu.pprof"))
	t.Logf("program's profile: %d samples, %d of them in main.main's stacks", prog.Samples, prog.Kept)
	if prog.Kept == 0 {
		return []string{"the program's profile has no samples in main.main's stacks"}
	}
	for i, fn := range []string{"main.preempt60", "main.preempt30", "main.preempt10"} {
		p, _ := prog.Share(fn)
		t.Logf("%s: program %.1f%%, truth %.1f%% (%+.1f points)", fn, p, truth[i], p-truth[i])
		if math.Abs(p-truth[i]) > preemptTolerance {
			failures = append(failures, fmt.Sprintf("%s has %.1f%% of the program's profile, want %.1f±%d", fn, p, truth[i], preemptTolerance))
		}
	}
	ap, _ := prog.Share("runtime.asyncPreempt")
	t.Logf("runtime.asyncPreempt: %.1f%% of the program's profile", ap)
	if ap > maxAsyncPreempt {
		failures = append(failures, fmt.Sprintf("runtime.asyncPreempt has %.1f%% of the program's profile, want at most %d%%", ap, maxAsyncPreempt))
	}
	return failures
}
