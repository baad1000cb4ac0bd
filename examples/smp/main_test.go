package main

import (
	"errors"
	"os"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/unitrace/unitrace/internal/selfexec"
)

// TestMain runs main instead of the tests in a child started by selfexec.Command.
func TestMain(m *testing.M) { selfexec.Main(m, main) }

// xorshift is the reference for crunch, written independently of it.
func xorshift(x uint64, n int) uint64 {
	for i := 0; i < n; i++ {
		x ^= x << 13
		x ^= x >> 7
		x ^= x << 17
	}
	return x
}

func TestCrunchMatchesReference(t *testing.T) {
	for _, x := range []uint64{1, 0x9e3779b97f4a7c15, 1 << 63} {
		for _, n := range []int{0, 1, 2, 1000} {
			if got, want := crunch(x, n), xorshift(x, n); got != want {
				t.Errorf("crunch(%#x, %d) = %#x, want %#x", x, n, got, want)
			}
		}
	}
}

// TestParallelChecksum: the checksum is the xor of the workers' results, whatever order they
// ran in, and the elapsed time is positive.
func TestParallelChecksum(t *testing.T) {
	const workers, units = 3, 4
	var want uint64
	for w := range workers {
		x := (uint64(w) + 1) * 0x9e3779b97f4a7c15
		for range units {
			x = xorshift(x, unitSteps)
		}
		want ^= x
	}
	elapsed, got := parallel(workers, units)
	if got != want || elapsed <= 0 {
		t.Errorf("parallel(%d, %d) = %v, %#x; want a positive time and %#x", workers, units, elapsed, got, want)
	}
}

// TestRawClone: the raw child exits at once and on its own, leaving the process running.
func TestRawClone(t *testing.T) {
	tid := rawClone(threadFlags, childStackTop())
	if tid <= 0 {
		t.Fatalf("rawClone: %d", tid)
	}
	task := "/proc/self/task/" + strconv.Itoa(tid)
	deadline := time.Now().Add(10 * time.Second)
	for {
		if _, err := os.Stat(task); errors.Is(err, os.ErrNotExist) {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("thread %d still exists after 10s", tid)
		}
		time.Sleep(time.Millisecond)
	}
}

func TestLastCPU(t *testing.T) {
	if c := lastCPU(); c < 0 || c >= runtime.NumCPU()*64 {
		t.Errorf("lastCPU() = %d", c)
	}
}

// TestModes runs each mode as a child process, the way the VM tests boot it, and checks its
// exit status and summary line.
func TestModes(t *testing.T) {
	for _, tc := range []struct {
		args []string
		line string
	}{
		{[]string{"cpus"}, `cpus: NumCPU=\d+ GOMAXPROCS=\d+`},
		{[]string{"parallel", "3", "2"}, `parallel: 3 workers, 2 units each, elapsed_ns=[1-9]\d* checksum=0x[0-9a-f]+`},
		{[]string{"gcstress", "300ms"}, `gcstress: \d+ workers, elapsed=\S+ allocations=[1-9]\d* gcs=[1-9]\d* forced=\d+`},
	} {
		t.Run(tc.args[0], func(t *testing.T) {
			out, err := selfexec.Output(tc.args...)
			if err != nil {
				t.Fatalf("exit: %v, output:\n%s", err, out)
			}
			if !regexp.MustCompile(`^` + tc.line + `\n$`).MatchString(out) {
				t.Errorf("output %q does not match %s", out, tc.line)
			}
		})
	}
}

// TestSpinOnHost runs the spin mode for a moment where the host lets it: making a thread
// SCHED_FIFO needs CAP_SYS_NICE (and a real-time budget in the cgroup), so the test is skipped
// when the host refuses.
func TestSpinOnHost(t *testing.T) {
	if testing.Short() {
		t.Skip("spins a host CPU at real-time priority for 300ms")
	}
	cmd := selfexec.Command("spin", "300ms")
	out, err := cmd.CombinedOutput()
	if strings.Contains(string(out), "sched_setscheduler: operation not permitted") {
		t.Skipf("the host refuses SCHED_FIFO: %s", out)
	}
	if err != nil {
		t.Fatalf("exit: %v, output:\n%s", err, out)
	}
	line := regexp.MustCompile(`^spin: child tid [1-9]\d* never runs; spinning on cpu (\d+)\n$`)
	m := line.FindStringSubmatch(string(out))
	if m == nil {
		t.Fatalf("output %q does not match %v", out, line)
	}
	if cpu, _ := strconv.Atoi(m[1]); cpu != lastCPU() {
		t.Errorf("spinning on cpu %d, want the last one, %d", cpu, lastCPU())
	}
}

func TestUsageErrors(t *testing.T) {
	selfexec.CheckUsageErrors(t, [][]string{{}, {"nope"}, {"cpus", "x"}, {"parallel", "4"}, {"parallel", "0", "1"},
		{"parallel", "4", "-1"}, {"spin", "soon"}, {"spin", "1s", "2s"}, {"gcstress"}, {"gcstress", "-1s"}})
}
