// Command smp runs the multiprocessor workloads of the SMP VM tests (tests/vm/smp_test.go) and
// the throughput benchmark (tests/vm/smpbench_test.go). The first argument picks the mode:
//
//	cpus                 print what the runtime sees: NumCPU and GOMAXPROCS
//	parallel W N         W goroutines each run N units of pure arithmetic (main.crunch), started
//	                     together; prints the wall time from the start to the last one's end
//	spin [DURATION]      a thread pinned to the last CPU as SCHED_FIFO spins forever in
//	                     assembly (main.spinForever) after cloning a child that can never run;
//	                     the main goroutine sleeps DURATION (default 30s) and exits 0
//	gcstress DURATION    GOMAXPROCS goroutines allocate and drop maps, slices and strings, with
//	                     a runtime.GC now and then, for DURATION; prints the GC count
//
// Each mode prints one summary line starting with its name and exits 0; a usage error exits 2
// and a failed system call 1. DURATION is in time.ParseDuration syntax.
//
// Booted as a unitrace image the arguments follow "--" on the kernel command line
// (`unitrace run -smp 4 examples/smp -- parallel 4 2000`); on the host `go run ./examples/smp
// parallel 4 200` runs the same code, since the kernel package does nothing there.
package main

import (
	"fmt"
	"os"
	"runtime"
	"strconv"
	"time"

	_ "github.com/unitrace/unitrace/kernel"
)

const usage = `usage: smp cpus
       smp parallel WORKERS UNITS
       smp spin [DURATION]
       smp gcstress DURATION`

func main() {
	if len(os.Args) < 2 {
		fail(usage)
	}
	args := os.Args[2:]
	switch os.Args[1] {
	case "cpus":
		need(args, 0, 0)
		fmt.Printf("cpus: NumCPU=%d GOMAXPROCS=%d\n", runtime.NumCPU(), runtime.GOMAXPROCS(0))
	case "parallel":
		need(args, 2, 2)
		workers, units := count(args[0]), count(args[1])
		elapsed, sum := parallel(workers, units)
		fmt.Printf("parallel: %d workers, %d units each, elapsed_ns=%d checksum=%#x\n",
			workers, units, elapsed.Nanoseconds(), sum)
	case "spin":
		need(args, 0, 1)
		d := 30 * time.Second
		if len(args) == 1 {
			d = duration(args[0])
		}
		spin(d)
	case "gcstress":
		need(args, 1, 1)
		r := gcstress(duration(args[0]))
		fmt.Printf("gcstress: %d workers, elapsed=%v allocations=%d gcs=%d forced=%d\n",
			r.workers, r.elapsed.Round(time.Millisecond), r.allocations, r.gcs, r.forced)
	default:
		fail(fmt.Sprintf("smp: unknown mode %q\n%s", os.Args[1], usage))
	}
}

// need exits with a usage error unless args has between min and max words.
func need(args []string, min, max int) {
	if len(args) < min || len(args) > max {
		fail(usage)
	}
}

// count parses a positive integer argument.
func count(s string) int {
	n, err := strconv.Atoi(s)
	if err != nil || n <= 0 {
		fail(fmt.Sprintf("smp: %q is not a positive count\n%s", s, usage))
	}
	return n
}

// duration parses a positive duration argument.
func duration(s string) time.Duration {
	d, err := time.ParseDuration(s)
	if err != nil || d <= 0 {
		fail(fmt.Sprintf("smp: bad duration %q\n%s", s, usage))
	}
	return d
}

func fail(msg string) {
	fmt.Fprintln(os.Stderr, msg)
	os.Exit(2)
}
