package vm_test

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	pprof "github.com/google/pprof/profile"

	"github.com/unitrace/unitrace/internal/tracefile"
	"github.com/unitrace/unitrace/kernel/vdso"
	"github.com/unitrace/unitrace/trace/record"
)

// The off-CPU profiler against its ground truth: examples/waits runs goroutines that each wait
// in one known way for a share of their wall time that the program measures itself around
// every blocking call.

const waitsApp = "examples/waits"

// waitsWorkload is how long the waiters run: 400 sweeps at the default 100 Hz.
const waitsWorkload = 4 * time.Second

// waitsLine is one waiter's truth.
var waitsLine = regexp.MustCompile(`^waits: (\w+) goid=(\d+) wall=(\d+) blocked=(\d+)$`)

// partnerLine names the goroutine that ends a waiter's waits (its partner).
var partnerLine = regexp.MustCompile(`^waits: partner (\w+) goid=(\d+)$`)

// waitsTruth says, by waiter, which goroutine samples are its wait: the runtime's wait reason,
// or for the raw read(2) the state and the system call.
var waitsTruth = map[string]struct{ state, reason string }{
	"sleep":   {"waiting", "sleep"},
	"chan":    {"waiting", "chan receive"},
	"mutex":   {"waiting", "sync.Mutex.Lock"},
	"netpoll": {"waiting", "IO wait"},
	"syscall": {"syscall", "read"},
}

// Tolerances: a waiter's weight with its reason against the share of its wall time it measured
// in its blocking calls (points), and its CPU and wait weights together against its wall time.
const (
	waitsReasonPoints = 5
	waitsWallShare    = 0.10
)

// waiter is one waiter's truth and what the profile says of it.
type waiter struct {
	role                    string
	goid                    int64
	wall, blocked           float64 // ns, as the program measured them
	reasonNs, waitNs, cpuNs float64 // the profile's
	runnableNs              float64 // waits in state runnable (woken, not yet on a CPU)
}

// TestOffCPU boots examples/waits with the CPU sampler at 1 kHz and the off-CPU sweep at its
// default 100 Hz, writing one pprof profile, on 1 CPU. For each waiter the profile's wait time
// with its expected reason must be the share of its wall time it measured in its blocking
// calls within waitsReasonPoints, and its cpu and wait time together its wall time within
// waitsWallShare. A run that misses a check boots again (three times at most): under TCG on
// a shared host a stalled vCPU moves time between the states.
func TestOffCPU(t *testing.T) {
	forEachArch(t, func(t *testing.T, a guestArch) {
		var errs []string
		for attempt := 1; attempt <= 3; attempt++ {
			errs = runWaits(t, a, attempt)
			if len(errs) == 0 {
				return
			}
			t.Logf("attempt %d:\n%s", attempt, strings.Join(errs, "\n"))
		}
		t.Errorf("three boots missed the ground truth; the last:\n%s", strings.Join(errs, "\n"))
	})
}

// runWaits boots the ground truth once and returns what it got wrong.
func runWaits(t *testing.T, a guestArch, attempt int) []string {
	dir := t.TempDir()
	prof := filepath.Join(dir, "waits.pb.gz")
	rec := filepath.Join(dir, "waits.utrace")
	stdout, stderr, status := runLauncher(t, a, "-image", a.path("waits.elf"), "-sample", "1000", "-offcpu", "-wakers",
		"-pprof", prof, "-o", rec, waitsApp, "--", waitsWorkload.String())
	if status != 0 {
		t.Fatalf("status %d\n%s\n%s", status, stdout, stderr)
	}
	for _, l := range consoleLines(stdout) {
		if strings.Contains(l, "offcpu: ") || strings.Contains(l, "sampler: ") || strings.Contains(l, "wakers: ") {
			t.Log(l)
		}
	}
	waiters := map[int64]*waiter{}
	partners := map[string]int64{}
	for _, l := range programLines(consoleLines(stdout)) {
		if m := partnerLine.FindStringSubmatch(l); m != nil {
			partners[m[1]], _ = strconv.ParseInt(m[2], 10, 64)
		}
		m := waitsLine.FindStringSubmatch(l)
		if m == nil {
			continue
		}
		w := &waiter{role: m[1]}
		w.goid, _ = strconv.ParseInt(m[2], 10, 64)
		w.wall, _ = strconv.ParseFloat(m[3], 64)
		w.blocked, _ = strconv.ParseFloat(m[4], 64)
		waiters[w.goid] = w
	}
	if len(waiters) != len(waitsTruth) {
		t.Fatalf("the program printed %d waiters, want %d:\n%s", len(waiters), len(waitsTruth), stdout)
	}
	p := readPProf(t, prof)
	wi, ci := sampleIndex(p, "wait"), sampleIndex(p, "cpu")
	if wi < 0 || ci < 0 {
		t.Fatalf("the profile's sample types are %v, want cpu and wait", p.SampleType)
	}
	for _, s := range p.Sample {
		g := s.NumLabel["goroutine"]
		if len(g) != 1 || waiters[g[0]] == nil {
			continue
		}
		w := waiters[g[0]]
		w.cpuNs += float64(s.Value[ci])
		w.waitNs += float64(s.Value[wi])
		truth := waitsTruth[w.role]
		if label(s, "state") == truth.state && label(s, "reason") == truth.reason {
			w.reasonNs += float64(s.Value[wi])
		}
		if label(s, "state") == "runnable" {
			w.runnableNs += float64(s.Value[wi])
		}
	}
	errs := checkWakers(t, a, rec, waiters, partners)
	for _, w := range waiters {
		truth := waitsTruth[w.role]
		measured, profiled := 100*w.blocked/w.wall, 100*w.reasonNs/w.wall
		total := (w.cpuNs + w.waitNs) / w.wall
		t.Logf("attempt %d: %-7s goroutine %d: blocked %.1f%% of its wall time %v; the profile: %.1f%% waiting with %s/%q, %.1f%% runnable, cpu+wait %.3f of the wall time",
			attempt, w.role, w.goid, measured, time.Duration(w.wall), profiled, truth.state, truth.reason, 100*w.runnableNs/w.wall, total)
		if math.Abs(profiled-measured) > waitsReasonPoints {
			errs = append(errs, fmt.Sprintf("%s: %.1f%% of its wall time waiting with %s/%q in the profile, %.1f%% measured: want them within %d points",
				w.role, profiled, truth.state, truth.reason, measured, waitsReasonPoints))
		}
		if math.Abs(total-1) > waitsWallShare {
			errs = append(errs, fmt.Sprintf("%s: cpu+wait %.3f of its wall time, want 1±%.2f", w.role, total, waitsWallShare))
		}
	}
	return errs
}

// wakersShare is the least share of the raw read(2)'s blocked time, in the wakers profile, that
// must be charged to the goroutine that writes its pipe: the rest may be the runtime's or a
// signal's wake-ups of that thread.
const wakersShare = 0.9

// checkWakers writes the wakers profile of the recording and checks that the blocked read(2) of
// the syscall waiter is charged to its partner, the goroutine that writes the pipe.
func checkWakers(t *testing.T, a guestArch, rec string, waiters map[int64]*waiter, partners map[string]int64) []string {
	out := rec + ".wakers.pb.gz"
	if stdout, stderr, status := runTool(t, "pprof", "-wakers", "-elf", a.path("waits.elf"), "-o", out, rec); status != 0 {
		t.Fatalf("unitrace pprof -wakers: status %d\n%s\n%s", status, stdout, stderr)
	}
	p := readPProf(t, out)
	var reader int64
	for id, w := range waiters {
		if w.role == "syscall" {
			reader = id
		}
	}
	writer := partners["syscall"]
	by := map[int64]int64{}
	var all int64
	for _, s := range p.Sample {
		if g := s.NumLabel["goroutine"]; len(g) != 1 || g[0] != reader || label(s, "reason") != "read" || label(s, "kernel_wait") != "pipe" {
			continue
		}
		wg := int64(0)
		if v := s.NumLabel["waker_goroutine"]; len(v) == 1 {
			wg = v[0]
		}
		by[wg] += s.Value[1]
		all += s.Value[1]
	}
	share := float64(by[writer]) / float64(max(all, 1))
	t.Logf("wakers profile: goroutine %d's read(2) of its pipe blocked %v in all, %.1f%% of it woken by goroutine %d, which writes the pipe (by waker: %v)",
		reader, time.Duration(all), 100*share, writer, by)
	if share < wakersShare {
		return []string{fmt.Sprintf("the wakers profile charges %.1f%% of the read(2)'s blocked time to goroutine %d, which writes its pipe, want at least %.0f%%",
			100*share, writer, 100*wakersShare)}
	}
	return nil
}

func readPProf(t *testing.T, path string) *pprof.Profile {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	p, err := pprof.Parse(f)
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return p
}

func sampleIndex(p *pprof.Profile, typ string) int {
	for i, st := range p.SampleType {
		if st.Type == typ {
			return i
		}
	}
	return -1
}

func label(s *pprof.Sample, key string) string {
	if v := s.Label[key]; len(v) == 1 {
		return v[0]
	}
	return ""
}

// dumpHeader is a goroutine's first line in the runtime's own dump: its id and what is in the
// brackets (the wait reason, or the state), with the minutes a long wait adds after a comma.
var dumpHeader = regexp.MustCompile(`^goroutine (\d+) \[([^,\]]+)`)

// gHeader is the same line of `unitrace stacks -g`.
var gHeader = regexp.MustCompile(`^goroutine (\d+) \[([^\]]+)\]:`)

// TestStacksGoroutines boots `waits park 20s` (goroutines parked for good in nine known ways,
// then the runtime's own dump of every goroutine) with its ports on sockets, and runs
// `unitrace stacks -g` while they wait: it must list every goroutine the runtime's dump lists,
// each the program parked with the same wait reason, and its stack must hold the function
// that parked it.
func TestStacksGoroutines(t *testing.T) {
	forEachArch(t, func(t *testing.T, a guestArch) {
		img := buildImage(t, a, waitsApp)
		cfg := a.config(img)
		cfg.Args = []string{"park", "20s"}
		cfg.Env = []string{"unitrace.tracer=1"}
		g := startServerGuest(t, cfg)
		g.closeCtl() // the port is the tool's
		var out string
		got := map[string]string{}
		for try := 1; ; try++ {
			time.Sleep(2 * time.Second)
			stdout, stderr, status := runTool(t, "stacks", "-g", "-ctl", g.ctlPath, "-image", img)
			if status != 0 {
				t.Fatalf("unitrace stacks -g: status %d\n%s\n%s", status, stdout, stderr)
			}
			out = stdout
			got = map[string]string{}
			parkedSeen := 0
			for _, l := range strings.Split(out, "\n") {
				if m := gHeader.FindStringSubmatch(l); m != nil {
					got[m[1]] = m[2]
				}
				if strings.Contains(l, "main.park.func") {
					parkedSeen++
				}
			}
			if parkedSeen >= 9 || try == 5 {
				break
			}
		}
		t.Logf("unitrace stacks -g:\n%s", out)
		console := g.wait(0)
		var dump []string
		in := false
		for _, l := range programLines(console) {
			switch {
			case l == "waits: dump begin":
				in = true
			case l == "waits: dump end":
				in = false
			case in:
				dump = append(dump, l)
			}
		}
		if len(dump) == 0 {
			t.Fatalf("the program printed no dump:\n%s", strings.Join(console, "\n"))
		}
		// Each goroutine of the dump, with the function below its first frame's, to tell the
		// ones the program parked (main.park.funcN) from the runtime's and the tracer's.
		parked := 0
		for i, l := range dump {
			m := dumpHeader.FindStringSubmatch(l)
			if m == nil {
				continue
			}
			id, reason := m[1], m[2]
			end := i + 1
			for end < len(dump) && !dumpHeader.MatchString(dump[end]) {
				end++
			}
			mine := strings.Contains(strings.Join(dump[i:end], "\n"), "main.park.func")
			have, ok := got[id]
			switch {
			case !ok:
				t.Errorf("goroutine %s [%s] of the runtime's dump is not in unitrace stacks -g", id, reason)
			case mine && have != reason:
				t.Errorf("goroutine %s: unitrace stacks -g says [%s], the runtime's dump [%s]", id, have, reason)
			}
			if mine {
				parked++
			}
		}
		if parked != 9 {
			t.Errorf("the runtime's dump shows %d of the 9 parked goroutines:\n%s", parked, strings.Join(dump, "\n"))
		}
	})
}

// hostileSeconds is how long the hostile run churns goroutines under the sweep.
const hostileSeconds = 60

// TestOffCPUHostile boots `waits churn 60s` on 4 CPUs with the off-CPU sweep and the wake-up
// records on: goroutines created and exiting all the time, stacks grown and copied, the GC
// running every few milliseconds, all under the sweep's reads. The guest must exit cleanly,
// and every word of every goroutine sample's and wake-up's stack must be a stack mark or an
// address of code: the image's text, or the vDSO's page, where a thread the kernel preempted
// may be reading the clock. A goroutine read mid-change is skipped, never walked into garbage.
func TestOffCPUHostile(t *testing.T) {
	forEachArch(t, func(t *testing.T, a guestArch) {
		img := a.path("waits-hostile.elf")
		rec := filepath.Join(t.TempDir(), "churn.utrace")
		stdout, stderr, status := runLauncher(t, a, "-image", img, "-smp", "4", "-offcpu", "-wakers", "-o", rec,
			waitsApp, "--", "churn", fmt.Sprintf("%ds", hostileSeconds))
		if status != 0 {
			t.Fatalf("status %d\n%s\n%s", status, lastLines(stdout, 40), stderr)
		}
		for _, l := range consoleLines(stdout) {
			if strings.Contains(l, "offcpu: ") || strings.Contains(l, "wakers: ") || strings.HasPrefix(l, "waits: churn") {
				t.Log(l)
			}
		}
		text, err := textRange(img)
		if err != nil {
			t.Fatal(err)
		}
		tr, err := tracefile.LoadFile(rec)
		if err != nil {
			t.Fatal(err)
		}
		counts := map[record.TPID]int{}
		outside := 0
		for _, r := range tr.Records {
			if r.TPID != record.TPGoroutine && r.TPID != record.TPWake {
				continue
			}
			counts[r.TPID]++
			for _, w := range r.Stack {
				if !record.IsStackMark(w) && (w < text[0] || w >= text[1]) && !vdso.Contains(w) {
					if outside < 5 {
						t.Errorf("a %s record's stack holds %#x, outside the text [%#x, %#x): %x", tr.Name(&r.Record), w, text[0], text[1], r.Stack)
					}
					outside++
				}
			}
		}
		t.Logf("%d goroutine samples and %d wake-ups, %d stack words outside the text", counts[record.TPGoroutine], counts[record.TPWake], outside)
		if counts[record.TPGoroutine] == 0 || counts[record.TPWake] == 0 {
			t.Errorf("the run recorded %d goroutine samples and %d wake-ups, want both", counts[record.TPGoroutine], counts[record.TPWake])
		}
	})
}
