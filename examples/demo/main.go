// Command demo is the workload `make run-sampler` boots and profiles: for about five seconds
// four goroutines do four recognisable kinds of work, each in its own named functions, so the
// profile has a few hot spots with some depth under them:
//
//	jsonWorker    encodeOrders/decodeOrders: encoding/json round trips of nested structs
//	              (reflection-heavy stacks, and garbage that keeps the GC busy)
//	sortWorker    sortRecords: slices.SortFunc over 20000 records with compareRecords
//	hashWorker    hashBlocks: SHA-256 over 64 KiB blocks (the standard library's assembly)
//	matrixWorker  multiplyMatrices: a naive 96×96 float64 matrix multiply
//
// They share the CPU through the Go scheduler (on a one-CPU guest, asynchronous preemption
// switches between them every 10 ms). Usage: demo [DURATION] (default 5s, time.ParseDuration
// syntax). At the end it prints one line per worker and one summary line, and exits with status
// 0; it exits with status 1 if a worker's self-check failed and 2 on a usage error.
//
// Booted as a unitrace image the arguments follow "--" on the kernel command line; on the host
// `go run ./examples/demo 1s` runs the same code, since the kernel package does nothing there.
package main

import (
	"fmt"
	"os"
	"sync"
	"time"

	_ "github.com/unitrace/unitrace/kernel"
)

const defaultDuration = 5 * time.Second

// A worker repeats one kind of work until its deadline and reports how many operations it did,
// in what unit, and a checksum of their results (printed so that no work can be optimised away).
type worker struct {
	name string
	run  func(deadline time.Time) report
}

type report struct {
	ops      int
	unit     string
	checksum uint64
	err      error
}

var workers = []worker{
	{"json", jsonWorker},
	{"sort", sortWorker},
	{"sha256", hashWorker},
	{"matrix", matrixWorker},
}

func main() {
	d := defaultDuration
	switch len(os.Args) {
	case 1:
	case 2:
		var err error
		d, err = time.ParseDuration(os.Args[1])
		if err != nil || d <= 0 {
			fmt.Fprintf(os.Stderr, "demo: bad duration %q\nusage: demo [DURATION]\n", os.Args[1])
			os.Exit(2)
		}
	default:
		fmt.Fprintln(os.Stderr, "usage: demo [DURATION]")
		os.Exit(2)
	}
	start := time.Now()
	reports := runWorkers(start.Add(d))
	failed := false
	for i, r := range reports {
		if r.err != nil {
			failed = true
			fmt.Printf("demo: %s: FAIL: %v\n", workers[i].name, r.err)
			continue
		}
		fmt.Printf("demo: %s: %d %s, checksum %#016x\n", workers[i].name, r.ops, r.unit, r.checksum)
	}
	elapsed := time.Since(start).Round(time.Millisecond)
	fmt.Printf("demo: %d workers ran for %v\n", len(workers), elapsed)
	if failed {
		os.Exit(1)
	}
}

// runWorkers runs every worker on its own goroutine until deadline and returns their reports in
// the order of workers.
func runWorkers(deadline time.Time) []report {
	reports := make([]report, len(workers))
	var wg sync.WaitGroup
	for i, w := range workers {
		wg.Go(func() { reports[i] = w.run(deadline) })
	}
	wg.Wait()
	return reports
}
