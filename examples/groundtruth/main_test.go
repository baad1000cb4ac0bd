package main

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"runtime/trace"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/pprof/profile"

	"github.com/unitrace/unitrace/internal/selfexec"
)

// TestMain runs main instead of the tests in a child started by selfexec.Command.
func TestMain(m *testing.M) { selfexec.Main(m, main) }

// xorshift is the reference for every spin loop in the package: n steps of xorshift64 (13, 7, 17).
func xorshift(x, n uint64) uint64 {
	for range n {
		x ^= x << 13
		x ^= x >> 7
		x ^= x << 17
	}
	return x
}

// TestSpinsMatchReference checks that the assembly loops and the share functions compute what
// their doc says, whatever garbage the frame-pointer register holds meanwhile, and that they
// return at all (a garbage frame pointer they did not restore would crash the caller).
func TestSpinsMatchReference(t *testing.T) {
	for _, x := range []uint64{1, 0x9e3779b97f4a7c15, 1 << 63} {
		for _, n := range []uint64{0, 1, 2, 1000} {
			want := xorshift(x, n)
			check := func(name string, got uint64) {
				t.Helper()
				if got != want {
					t.Errorf("%s(%#x, %d) = %#x, want %#x", name, x, n, got, want)
				}
			}
			check("spinLeaf", spinLeaf(x, n))
			for _, fp := range absoluteGarbage {
				check(fmt.Sprintf("spinWithFramePointer/%#x", fp), spinWithFramePointer(x, n, fp))
			}
			for shape := range stackShapes + 1 { // one past the last: taken as stackCycle
				check(fmt.Sprintf("spinOnFakeFrames/%d", shape), spinOnFakeFrames(x, n, shape))
			}
			check("share60", share60(x, int(n)))
			check("share30", share30(x, int(n)))
			check("share10", share10(x, int(n)))
			check("preempt60", preempt60(x, n))
			check("preempt30", preempt30(x, n))
			check("preempt10", preempt10(x, n))
		}
	}
}

// TestBadFramePointersUnderExecutionTracer runs the badfp workload while the execution tracer
// records, on one P next to a goroutine that keeps blocking. The tracer unwinds stacks with
// frame pointers and without validation (runtime.fpTracebackPCs), among them the badfp
// goroutine's stack each time it is preempted between two assembly calls, so a frame pointer
// the assembly failed to restore would crash the test.
func TestBadFramePointersUnderExecutionTracer(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))
	if err := trace.Start(io.Discard); err != nil {
		t.Skipf("execution tracer unavailable: %v", err)
	}
	defer trace.Stop()
	stop := make(chan struct{})
	ping := make(chan int)
	go func() {
		for {
			select {
			case <-stop:
				return
			case ping <- 1:
			}
		}
	}()
	done := make(chan result)
	go func() { done <- badFramePointers(200 * time.Millisecond) }()
	var r result
	for waiting := true; waiting; {
		select {
		case r = <-done:
			waiting = false
		case <-ping:
		}
	}
	close(stop)
	if r.calls == 0 {
		t.Errorf("badFramePointers made no calls")
	}
}

// TestWorkloads runs each workload as a child process, the way the VM tests boot it, and checks
// its exit status and summary line.
func TestWorkloads(t *testing.T) {
	for _, name := range []string{"hash", "asmleaf", "badfp", "clobber", "recurse", "shares"} {
		t.Run(name, func(t *testing.T) {
			out, err := selfexec.Output(name, "100ms")
			if err != nil {
				t.Fatalf("exit: %v, output:\n%s", err, out)
			}
			line := regexp.MustCompile(`^groundtruth: ` + name +
				` elapsed=([0-9.]+m?s) calls=([1-9][0-9]*) units=([1-9][0-9]*) checksum=0x[0-9a-f]+\n` +
				`groundtruth: cputime user=([0-9.]+m?s) sys=([0-9.]+[mµ]?s) wall=([0-9.]+m?s)\n$`)
			m := line.FindStringSubmatch(out)
			if m == nil {
				t.Fatalf("output %q does not match %v", out, line)
			}
			d, err := time.ParseDuration(m[1])
			if err != nil || d < 100*time.Millisecond || d > 10*time.Second {
				t.Errorf("elapsed %s, want at least 100ms and not far over", m[1])
			}
			user, _ := time.ParseDuration(m[4])
			wall, _ := time.ParseDuration(m[6])
			if wall != d || user < 50*time.Millisecond || user > 2*wall {
				t.Errorf("cputime user=%s wall=%s, want wall the same as elapsed and user at least 50ms", m[4], m[6])
			}
		})
	}
}

// TestPreemptWorkload runs the preempt workload as a child process and checks its lines: the
// summary, the CPU time and the true shares, which add up to 100 and put preempt60 first.
func TestPreemptWorkload(t *testing.T) {
	out, err := selfexec.Output("preempt", "200ms")
	if err != nil {
		t.Fatalf("exit: %v, output:\n%s", err, out)
	}
	line := regexp.MustCompile(`^groundtruth: preempt elapsed=[0-9.]+m?s calls=[1-9][0-9]* units=[1-9][0-9]* checksum=0x[0-9a-f]+\n` +
		`groundtruth: cputime user=[0-9.]+m?s sys=[0-9.]+[mµ]?s wall=[0-9.]+m?s\n` +
		`groundtruth: preempt truth preempt60=([0-9.]+) preempt30=([0-9.]+) preempt10=([0-9.]+)\n$`)
	m := line.FindStringSubmatch(out)
	if m == nil {
		t.Fatalf("output %q does not match %v", out, line)
	}
	var shares [3]float64
	for i := range shares {
		shares[i], _ = strconv.ParseFloat(m[i+1], 64)
	}
	if sum := shares[0] + shares[1] + shares[2]; sum < 99.5 || sum > 100.5 || shares[0] < shares[1] || shares[1] < shares[2] {
		t.Errorf("true shares %v: want them to add up to 100, in 6:3:1 order", shares)
	}
}

func TestUsageErrors(t *testing.T) {
	selfexec.CheckUsageErrors(t, [][]string{{}, {"nope"}, {"hash", "soon"}, {"hash", "-1s"}, {"hash", "1s", "extra"},
		{"-cpuprofile"}, {"-no-such-flag", "hash"}, {"-trace", "t.out"}})
	selfexec.CheckHelp(t, [][]string{{"-h"}})
}

// TestSelfProfiles runs the shares workload with every profile flag: the CPU profile must
// parse and have most of its samples in the three share functions, the other profiles must
// parse, and the execution trace must begin with the trace format's header.
func TestSelfProfiles(t *testing.T) {
	dir := t.TempDir()
	file := func(name string) string { return filepath.Join(dir, name) }
	out, err := selfexec.Output("-cpuprofile", file("cpu.pprof"), "-trace", file("trace.out"),
		"-memprofile", file("heap.pprof"), "-blockprofile", file("block.pprof"), "-mutexprofile", file("mutex.pprof"),
		"-goroutineprofile", file("goroutine.pprof"), "shares", "500ms")
	if err != nil {
		t.Fatalf("exit: %v, output:\n%s", err, out)
	}
	if !strings.Contains(out, "groundtruth: cputime user=") {
		t.Errorf("no cputime line:\n%s", out)
	}
	read := func(name string) *profile.Profile {
		f, err := os.Open(file(name))
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		p, err := profile.Parse(f)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		return p
	}
	cpu := read("cpu.pprof")
	var all, shares int64
	for _, s := range cpu.Sample {
		all += s.Value[0]
		// In the test binary the package is named by its path, not main.
		if fn := s.Location[0].Line[0].Function.Name; strings.Contains(fn, "groundtruth.share") {
			shares += s.Value[0]
		}
	}
	t.Logf("CPU profile: %d samples, %d in the share functions", all, shares)
	if all < 20 || shares < all*3/4 {
		t.Errorf("CPU profile: %d samples, %d of them in the share functions", all, shares)
	}
	for _, name := range []string{"heap.pprof", "block.pprof", "mutex.pprof", "goroutine.pprof"} {
		read(name)
	}
	tr, err := os.ReadFile(file("trace.out"))
	if err != nil || !bytes.HasPrefix(tr, []byte("go 1.")) {
		t.Errorf("trace.out: %v, %d bytes beginning %.12q", err, len(tr), tr)
	}
}
