// Command groundtruth runs one profiling workload whose true profile is known by construction,
// so that the VM tests can sample it and compare what the sampler and the host tool report with
// the truth:
//
//	hash     innerHash (a Go leaf with a frame) ← outerWorkload ← main.main, ~99% in innerHash
//	asmleaf  spinLeaf (a frameless assembly leaf) ← middle ← main.main, ~99% in spinLeaf
//	badfp    assembly that spins with garbage in the frame-pointer register (0x4, a
//	         non-canonical address, an unaligned stack address, frame records on its own stack
//	         that loop back), restoring it before it returns
//	clobber  assembly with a 512-byte frame that keeps data in the frame-pointer register
//	         (spinClobbered) ← clobberCaller ← clobberedFramePointer ← main.main, half of the
//	         time; the other half in spinInner, whose frame record holds that data as its
//	         caller's frame pointer, ← spinUnderClobbered (the same kind) ← clobberCaller
//	recurse  recurse 200 frames deep (more than a walk's 64), spinning at the bottom
//	shares   share60, share30, share10 doing the same unit of work 6:3:1 times, interleaved
//	syscall  half of the time in getrandom(2) on a 256 KiB buffer (kernel work, reached
//	         through fill ← sysPhase ← main.main), half in the frameless leaf spinLeaf ←
//	         userPhase ← main.main; it prints the split it measured (syscall.go)
//	preempt  shares' 6:3:1 rounds with the work in Go (preempt60, preempt30, preempt10) and no
//	         yields, so that the runtime preempts them asynchronously every 10 ms; it prints
//	         the shares of the time it measured around the calls (preempt.go)
//
// Usage: groundtruth [PROFILE FLAGS] WORKLOAD [DURATION]. DURATION is in time.ParseDuration
// syntax (default 3s of wall time). Every workload runs on the main goroutine, in calls of under a millisecond to
// its hot function, and reads the clock and yields only every few milliseconds (see
// checkEvery), so that nearly all of its time is in the hot function. On a one-CPU guest the
// main goroutine normally stays on the first thread, but the runtime may move it to another one
// when it hands its P off (the kernel's trace agent blocking in a system call can cause that),
// so a test should find the workload's samples by main.main in their stacks, not by thread id.
// At the end a workload prints one line,
//
//	groundtruth: WORKLOAD elapsed=DURATION calls=N units=N checksum=0xHEX
//
// (calls: calls of the hot function, or for recurse of the bottom frame's spin loop; units:
// the loop iterations they ran in total; checksum: the result the work computed, printed so
// that no work can be optimised away), then the CPU time the process took while the workload
// ran, by getrusage(RUSAGE_SELF), and the wall time,
//
//	groundtruth: cputime user=DURATION sys=DURATION wall=DURATION
//
// ("groundtruth: cputime unknown (ERROR) wall=DURATION" if getrusage fails), so that a test can
// work out how many samples a profiler at a given rate should have taken, and exits with
// status 0. A usage error exits with status 2; a profile it cannot write, with status 1.
//
// The program profiles itself when asked, with the flags before the workload (selfprofile.go):
// -cpuprofile FILE (runtime/pprof, 100 Hz) and -trace FILE (runtime/trace) record the workload
// as it runs; -memprofile, -blockprofile, -mutexprofile and -goroutineprofile FILE are written
// after it (-blockprofile and -mutexprofile record every event). Booted with
// "unitrace run -share HOSTDIR:/out", FILE under /out reaches the host.
//
// Booted as a unitrace image the arguments follow "--" on the kernel command line (QEMU's
// -append '-- hash 2s'); on the host `go run ./examples/groundtruth hash 1s` runs the same code,
// since the kernel package does nothing there.
package main

import (
	"flag"
	"fmt"
	"os"
	"slices"
	"time"

	_ "github.com/unitrace/unitrace/kernel"
)

// defaultDuration is long enough for ~3000 samples at 1 kHz, under TCG as much as natively.
const defaultDuration = 3 * time.Second

// result is what a workload reports: how often it called its hot function, how many loop
// iterations those calls ran, and the value they computed.
type result struct {
	calls, units, checksum uint64
}

const usage = "usage: groundtruth [-cpuprofile FILE] [-trace FILE] [-memprofile FILE] [-blockprofile FILE] " +
	"[-mutexprofile FILE] [-goroutineprofile FILE] [-toggle PHASE [-toggle-hz N] [-perf-control CTL,ACK]] " +
	"hash|asmleaf|badfp|clobber|recurse|shares|syscall|preempt [DURATION]"

func main() {
	fs := flag.NewFlagSet("groundtruth", flag.ExitOnError) // a bad flag exits 2, -h 0
	fs.Usage = func() {
		fmt.Fprintln(fs.Output(), usage)
		fs.PrintDefaults()
	}
	var prof selfProfiles
	prof.register(fs)
	var toggle toggleOpts
	toggle.register(fs)
	fs.Parse(os.Args[1:])
	args := fs.Args()
	if len(args) < 1 || len(args) > 2 {
		fail(usage)
	}
	d := defaultDuration
	if len(args) == 2 {
		var err error
		d, err = time.ParseDuration(args[1])
		if err != nil || d <= 0 {
			fail(fmt.Sprintf("groundtruth: bad duration %q\n%s", args[1], usage))
		}
	}
	workload := args[0]
	if toggle.phase < 0 || (toggle.phase > 0 && workload != "hash") {
		fail("groundtruth: -toggle takes a positive phase and the hash workload\n" + usage)
	}
	if !slices.Contains(workloads, workload) {
		fail(fmt.Sprintf("groundtruth: unknown workload %q\n%s", workload, usage))
	}
	if err := prof.start(); err != nil {
		fmt.Fprintln(os.Stderr, "groundtruth:", err)
		os.Exit(1)
	}
	user0, sys0, rusageErr := cpuTime()
	start := time.Now()
	var r result
	var preemptSpent [3]time.Duration
	var toggleRates []float64
	// Each workload is called from here directly, so main.main is the known caller of its top
	// function in every sample.
	switch workload {
	case "hash":
		if toggle.phase > 0 {
			sw, err := toggle.profilerFor()
			if err == nil {
				r, toggleRates, err = toggleHash(d, toggle.phase, sw)
			}
			if err != nil {
				fmt.Fprintln(os.Stderr, "groundtruth: -toggle:", err)
				os.Exit(1)
			}
			break
		}
		r = outerWorkload(d)
	case "asmleaf":
		r = middle(d)
	case "badfp":
		r = badFramePointers(d)
	case "clobber":
		r = clobberedFramePointer(d)
	case "recurse":
		r = recurse(recursionDepth, d)
	case "shares":
		r = shares(d)
	case "syscall":
		r = syscallWorkload(d)
	case "preempt":
		r, preemptSpent = preemptShares(d)
	}
	elapsed := time.Since(start)
	cputime := cpuTimeLine(user0, sys0, rusageErr, elapsed)
	if err := prof.stop(); err != nil {
		fmt.Fprintln(os.Stderr, "groundtruth:", err)
		os.Exit(1)
	}
	fmt.Printf("groundtruth: %s elapsed=%v calls=%d units=%d checksum=%#x\n",
		workload, elapsed.Round(time.Millisecond), r.calls, r.units, r.checksum)
	fmt.Println(cputime)
	if workload == "preempt" {
		fmt.Println(preemptTruth(preemptSpent))
	}
	if toggle.phase > 0 {
		fmt.Println(toggleLine(toggle.phase, pairOverheads(toggleRates)))
	}
}

// workloads are the workloads main knows.
var workloads = []string{"hash", "asmleaf", "badfp", "clobber", "recurse", "shares", "syscall", "preempt"}

func fail(msg string) {
	fmt.Fprintln(os.Stderr, msg)
	os.Exit(2)
}
