package vm_test

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	pprof "github.com/google/pprof/profile"

	"github.com/unitrace/unitrace/internal/probes"
	"github.com/unitrace/unitrace/internal/tracefile"
	"github.com/unitrace/unitrace/probe"
)

// Dynamic probes against examples/probes, whose calls, arguments, results and durations are
// known: each probe's hits must be exactly the calls the program made, with exactly its
// arguments and results, every return paired with its call, and the busy-wait's latency its
// duration.

const probesApp = "examples/probes"

// probesSpin is how long each of main.spin's calls busy-waits, and probesLatencyShare how far
// the median of its return probe's latencies may be from it.
const (
	probesSpin         = 2 * time.Millisecond
	probesLatencyShare = 0.10
	kernelProbe        = "github.com/unitrace/unitrace/kernel/syscalls.Sysinfo"
	probesStringBytes  = 16 // -probe-strings: main.greet's strings, whole
	deniedProbe        = "github.com/unitrace/unitrace/trace.emit"
)

var probesSpecs = []string{"main.target", "main.target%return", "main.spin%return", "main.classify%return",
	"main.fact%return", "main.mayPanic", "main.mayPanic%return", "main.twice", "main.greet", "main.greet%return", kernelProbe, deniedProbe}

var probesLine = regexp.MustCompile(`^(target calls=(\d+) sum=(\d+)|spin calls=(\d+) each=\S+|classify calls=(\d+)|fact calls=(\d+)|panics=(\d+)|sysinfo calls=(\d+)|twice calls=(\d+) sum=\d+|greet calls=(\d+) bytes=\d+|digest=[0-9a-f]+)$`)

// TestProbes boots examples/probes on 2 CPUs with entry and return probes on its functions, one
// on a function the compiler inlined everywhere, a probe on a kernel function (the sysinfo system call's handler) and one on the deny list. A
// boot whose only miss is the busy-wait's latency (a vCPU stalled by the host) boots again,
// three times at most.
func TestProbes(t *testing.T) {
	forEachArch(t, func(t *testing.T, a guestArch) {
		img := buildImage(t, a, probesApp)
		var errs []string
		for attempt := 1; attempt <= 3; attempt++ {
			var timing bool
			errs, timing = runProbes(t, a, img, attempt)
			if len(errs) == 0 {
				return
			}
			if !timing {
				break
			}
			t.Logf("attempt %d:\n%s", attempt, strings.Join(errs, "\n"))
		}
		t.Errorf("%s", strings.Join(errs, "\n"))
	})
}

// runProbes boots once and returns what missed, and whether the misses were all timings.
func runProbes(t *testing.T, a guestArch, img string, attempt int) (errs []string, timing bool) {
	file := a.path(fmt.Sprintf("probes-%d.utrace", attempt))
	args := []string{"-smp", "2", "-image", img, "-o", file, "-probe-strings", strconv.Itoa(probesStringBytes), "-backtrace"}
	for _, s := range probesSpecs {
		args = append(args, "-probe", s)
	}
	args = append(args, probesApp, "--", "-spin", probesSpin.String())
	stdout, stderr, status := runLauncher(t, a, args...)
	if status != 0 {
		t.Fatalf("status %d", status)
	}
	if !strings.Contains(stderr, deniedProbe+" is on the deny list") {
		t.Errorf("the probe on %s was not refused for the deny list:\n%s", deniedProbe, stderr)
	}
	truth := map[string]int64{}
	for _, l := range consoleLines(stdout) {
		m := probesLine.FindStringSubmatch(l)
		if m == nil {
			continue
		}
		for i, key := range []string{2: "target", 3: "sum", 4: "spin", 5: "classify", 6: "fact", 7: "panics", 8: "sysinfo", 9: "twice", 10: "greet"} {
			if key != "" && m[i] != "" {
				truth[key], _ = strconv.ParseInt(m[i], 10, 64)
			}
		}
	}
	if len(truth) != 9 {
		t.Fatalf("the program's counts: %v, from:\n%s", truth, stdout)
	}
	tr, err := tracefile.LoadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range tr.Account.CPUs() {
		if c.LostRecords+c.LostFrames+c.Missing != 0 {
			t.Fatalf("cpu %d: records lost or missing: %+v", c.CPU, c)
		}
	}
	im, err := probes.OpenImage(img)
	if err != nil {
		t.Fatal(err)
	}
	hits, stats := probes.Analyze(tr.Merged(), im)
	byName := map[string]*probes.Stats{}
	for _, s := range stats {
		byName[s.Name()] = s
	}
	check := func(name string, hits, paired, noReturn int64) {
		s := byName[name]
		switch {
		case s == nil:
			errs = append(errs, fmt.Sprintf("%s: no hits", name))
		case int64(s.Hits) != hits:
			errs = append(errs, fmt.Sprintf("%s: %d hits, want %d", name, s.Hits, hits))
		case s.Return && (int64(len(s.Latencies)) != paired || s.NoEntry != 0 || int64(s.NoReturn) != noReturn):
			errs = append(errs, fmt.Sprintf("%s: %d returns paired, %d without entry, %d calls without return; want %d, 0, %d",
				name, len(s.Latencies), s.NoEntry, s.NoReturn, paired, noReturn))
		}
	}
	check("main.target", truth["target"], 0, 0)
	check("main.target%return", truth["target"], truth["target"], 0)
	check("main.spin%return", truth["spin"], truth["spin"], 0)
	check("main.classify%return", truth["classify"], truth["classify"], 0)
	check("main.fact%return", truth["fact"], truth["fact"], 0)
	check("main.mayPanic", 20, 0, 0)
	check("main.mayPanic%return", 20-truth["panics"], 20-truth["panics"], truth["panics"])
	check(kernelProbe, truth["sysinfo"], 0, 0)
	check("main.twice", truth["twice"], 0, 0) // inlined into main.main: probed at its body's start
	check("main.greet", truth["greet"], 0, 0)
	check("main.greet%return", truth["greet"], truth["greet"], 0)
	errs = append(errs, checkTargetValues(hits, truth)...)
	errs = append(errs, checkGreetStrings(hits)...)
	classifyReturns := map[uint64]bool{}
	for _, h := range hits {
		if h.Func == "main.classify" && h.Return {
			classifyReturns[h.P.PC] = true
		}
	}
	if len(classifyReturns) != 3 {
		errs = append(errs, fmt.Sprintf("main.classify: %d of its 3 return paths hit", len(classifyReturns)))
	}
	errs = append(errs, checkProbeProfile(t, a, file, truth["fact"])...)
	if len(errs) > 0 {
		return errs, false
	}
	if s := byName["main.spin%return"]; s != nil {
		med := s.Latencies[len(s.Latencies)/2]
		if d := float64(med-probesSpin) / float64(probesSpin); d < -probesLatencyShare || d > probesLatencyShare {
			return []string{fmt.Sprintf("main.spin%%return: median latency %v, want %v within %.0f%%", med, probesSpin, 100*probesLatencyShare)}, true
		}
		t.Logf("main.spin%%return: median latency %v for %v", med, probesSpin)
	}
	return nil, false
}

// checkProbeProfile checks unitrace pprof -probe main.fact%return on the recording: a hit a
// return of main.fact's, each with its call's latency, and stacks that go from main.fact's
// exact pc through its recursion to main.main.
func checkProbeProfile(t *testing.T, a guestArch, file string, calls int64) []string {
	out := a.path("fact.pb.gz")
	if _, stderr, status := runTool(t, "pprof", "-probe", "main.fact%return", "-o", out, file); status != 0 {
		return []string{fmt.Sprintf("unitrace pprof -probe: status %d: %s", status, stderr)}
	}
	f, err := os.Open(out)
	if err != nil {
		return []string{err.Error()}
	}
	defer f.Close()
	p, err := pprof.Parse(f)
	if err != nil {
		return []string{fmt.Sprintf("the probe's profile: %v", err)}
	}
	if len(p.SampleType) != 2 || p.SampleType[0].Type != "hits" || p.SampleType[1].Type != "latency" {
		return []string{fmt.Sprintf("the probe's profile has sample types %v", p.SampleType)}
	}
	var hits, paired int64
	var errs []string
	for _, s := range p.Sample {
		hits += s.Value[0]
		if s.Value[1] > 0 {
			paired += s.Value[0]
		}
		var names []string
		for _, l := range s.Location {
			for _, ln := range l.Line {
				names = append(names, ln.Function.Name)
			}
		}
		if len(names) == 0 || names[0] != "main.fact" || !slices.Contains(names, "main.main") {
			errs = append(errs, fmt.Sprintf("a sample's stack: %v", names))
		}
	}
	if hits != calls || paired != calls {
		errs = append(errs, fmt.Sprintf("the probe's profile: %d hits, %d with a latency; want %d", hits, paired, calls))
	}
	return errs
}

// checkGreetStrings checks the strings main.greet's hits copied: call K gets "userK", built at
// run time (no image holds it), and returns "hello, userK".
func checkGreetStrings(hits []probes.Hit) []string {
	var errs []string
	k := 0
	for _, h := range hits {
		if h.Func != "main.greet" || !probe.Kind(h.P.Kind).IsEntry() {
			continue
		}
		if want := fmt.Sprint("user", k); len(h.P.Strings) != 1 || string(h.P.Strings[0].Bytes) != want {
			errs = append(errs, fmt.Sprintf("main.greet call %d: copied %+v, want %q", k, h.P.Strings, want))
		}
		k++
	}
	for _, h := range hits {
		if h.Func != "main.greet" || !h.Return || !h.Paired {
			continue
		}
		e := hits[h.Entry]
		if len(e.P.Strings) != 1 || len(h.P.Strings) != 1 || string(h.P.Strings[0].Bytes) != "hello, "+string(e.P.Strings[0].Bytes) {
			errs = append(errs, fmt.Sprintf("main.greet: result %+v for the call with %+v", h.P.Strings, e.P.Strings))
		}
	}
	return errs
}

// checkTargetValues checks main.target's recorded arguments and results against the program's:
// call k of goroutine w passes i = w*1000+k and s = "abc", and gets i*3+3 back. Every i must be
// seen once, each return's result must be its own call's, and the results add up to the sum
// the program printed.
func checkTargetValues(hits []probes.Hit, truth map[string]int64) []string {
	var errs []string
	seen := map[uint64]int{}
	var sum int64
	for _, h := range hits {
		if h.Func != "main.target" {
			continue
		}
		switch {
		case probe.Kind(h.P.Kind) == probe.KindEntry:
			i := h.P.Ints[0]
			seen[i]++
			if h.P.Ints[2] != 3 {
				errs = append(errs, fmt.Sprintf("main.target(i=%d): s has length %d, want 3", i, h.P.Ints[2]))
			}
		case h.Return:
			e := hits[h.Entry]
			if !h.Paired || e.P.Ints[0]*3+3 != h.P.Ints[0] {
				errs = append(errs, fmt.Sprintf("main.target: result %d for the call with i=%d (paired %v)", h.P.Ints[0], e.P.Ints[0], h.Paired))
			}
			sum += int64(h.P.Ints[0])
		}
	}
	calls := truth["target"] / 4
	for w := uint64(0); w < 4; w++ {
		for k := uint64(0); k < uint64(calls); k++ {
			if n := seen[w*1000+k]; n != 1 {
				errs = append(errs, fmt.Sprintf("main.target(i=%d) seen %d times", w*1000+k, n))
			}
		}
	}
	if sum != truth["sum"] {
		errs = append(errs, fmt.Sprintf("main.target's recorded results add up to %d, the program's to %d", sum, truth["sum"]))
	}
	if len(errs) > 10 {
		errs = append(errs[:10], fmt.Sprintf("and %d more", len(errs)-10))
	}
	return errs
}

// probeCycles is how many times TestProbeAttachDetach adds and removes its probes, and
// probeLoopRate how many calls a second each goroutine makes meanwhile: as many hits as the
// trace port carries, so that a record lost would be the probes' fault, not a full ring's.
const (
	probeCycles   = 100
	probeLoopRate = 2000
)

var (
	probeAdded   = regexp.MustCompile(`^probe (\d+): `)
	probeRemoved = regexp.MustCompile(`^probe (\d+): removed after (\d+) hits$`)
	loopLine     = regexp.MustCompile(`^loop calls=(\d+) bad=(\d+)$`)
)

// TestProbeAttachDetach adds an entry and a return probe on main.target and removes them again,
// probeCycles times, with unitrace probe on a running guest whose 4 goroutines call it on 2
// CPUs (examples/probes -loop): no fault, every result the program checks right, its digest
// that of a run without probes, and every hit the kernel counted between an add and its
// removal a record in the recording.
func TestProbeAttachDetach(t *testing.T) {
	forEachArch(t, func(t *testing.T, a guestArch) {
		img := buildImage(t, a, probesApp)
		sock := filepath.Join(t.TempDir(), "ctl.sock")
		rec := a.path("probes-cycles.utrace")
		l := startLauncher(t, "run", "-arch", a.name, "-smp", "2", "-image", img, "-timeout", "10m", "-o", rec, "-ctl", sock,
			probesApp, "--", "-loop", "-rate", strconv.Itoa(probeLoopRate))
		l.waitLine(t, "looping")
		var counted uint64
		for c := 0; c < probeCycles; c++ {
			out := probeTool(t, l, "-ctl", sock, "-elf", img, "add", "main.target", "main.target%return")
			var nums []string
			for _, line := range consoleLines(out) {
				if m := probeAdded.FindStringSubmatch(line); m != nil {
					nums = append(nums, m[1])
				}
			}
			if len(nums) != 2 {
				t.Fatalf("cycle %d: unitrace probe add printed %q", c, out)
			}
			out = probeTool(t, l, append([]string{"-ctl", sock, "del"}, nums...)...)
			for _, line := range consoleLines(out) {
				m := probeRemoved.FindStringSubmatch(line)
				if m == nil {
					t.Fatalf("cycle %d: unitrace probe del printed %q", c, out)
				}
				n, _ := strconv.ParseUint(m[2], 10, 64)
				counted += n
			}
		}
		signalTool(t, sock, "INT")
		console, stderr, status := l.wait(t)
		if status != 0 {
			t.Fatalf("status %d, stderr %s", status, stderr)
		}
		var calls, bad int64 = -1, -1
		digest := ""
		for _, line := range console {
			if m := loopLine.FindStringSubmatch(line); m != nil {
				calls, _ = strconv.ParseInt(m[1], 10, 64)
				bad, _ = strconv.ParseInt(m[2], 10, 64)
			}
			if d, ok := strings.CutPrefix(line, "digest="); ok {
				digest = d
			}
		}
		want := hostDigest(t)
		if bad != 0 || digest != want || calls < 4*1000 {
			t.Errorf("the program: calls %d, bad results %d, digest %q (without probes: %q)", calls, bad, digest, want)
		}
		tr, err := tracefile.LoadFile(rec)
		if err != nil {
			t.Fatal(err)
		}
		recorded := uint64(0)
		for i := range tr.Records {
			if _, ok := tr.Records[i].Probe(); ok {
				recorded++
			}
		}
		if recorded != counted || counted == 0 {
			t.Errorf("the kernel counted %d hits over %d cycles, the recording has %d", counted, probeCycles, recorded)
		}
		t.Logf("%d cycles: %d hits, all recorded; the program made %d calls", probeCycles, counted, calls)
	})
}

// probeTool runs unitrace probe args... and returns its output; it must succeed (else the test
// fails with the guest's console, from l).
func probeTool(t *testing.T, l *liveLauncher, args ...string) string {
	t.Helper()
	cmd := exec.Command(launcherPath(t), append([]string{"probe"}, args...)...)
	cmd.Dir = repoRoot
	out, err := cmd.Output()
	if err != nil {
		var stderr []byte
		if ee, ok := err.(*exec.ExitError); ok {
			stderr = ee.Stderr
		}
		t.Fatalf("unitrace probe %s: %v\n%s%s\nconsole:\n%s\nlauncher:\n%s", strings.Join(args, " "), err, out, stderr,
			strings.Join(l.out.all(), "\n"), l.stderr.String())
	}
	return string(out)
}

// hostDigest is examples/probes' digest without probes: its -loop digest covers each
// goroutine's first 1000 calls, which a host run with -calls 1000 makes.
func hostDigest(t *testing.T) string {
	t.Helper()
	cmd := exec.Command("go", "run", "./"+probesApp, "-calls", "1000", "-spins", "0", "-sysinfo", "0")
	cmd.Dir = repoRoot
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("%s on the host: %v", probesApp, err)
	}
	for _, line := range consoleLines(string(out)) {
		if d, ok := strings.CutPrefix(line, "digest="); ok {
			return d
		}
	}
	t.Fatalf("%s on the host printed no digest:\n%s", probesApp, out)
	return ""
}
