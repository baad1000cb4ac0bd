package main

import (
	"strings"
	"testing"
)

// TestThroughput reads the workload's units per second from its line, among others.
func TestThroughput(t *testing.T) {
	got, err := throughput([]string{"noise", "groundtruth: hash elapsed=2s calls=10 units=500 checksum=0x1"})
	if err != nil || got != 250 {
		t.Fatalf("throughput = %v, %v; want 250", got, err)
	}
	for _, lines := range [][]string{{"nothing"}, {"groundtruth: hash elapsed=0s units=5"}, {"groundtruth: hash elapsed=1s units=x"}} {
		if _, err := throughput(lines); err == nil {
			t.Errorf("throughput(%q) took it", lines)
		}
	}
}

// TestWriteOverhead: overheads are the throughput lost, from the fastest runs and the medians,
// and the ratio is unitrace's over perf's.
func TestWriteOverhead(t *testing.T) {
	var b strings.Builder
	writeOverhead(&b, &options{freq: 1000}, []overheadRound{
		{linuxPlain: 100, linuxPerf: 80, unitracePlain: 100, unitraceSampled: 95},
		{linuxPlain: 90, linuxPerf: 70, unitracePlain: 80, unitraceSampled: 78},
		{linuxPlain: 60, linuxPerf: 50, unitracePlain: 90, unitraceSampled: 85},
	})
	for _, want := range []string{"| perf record -F 1000 -g, Linux guest | 20.0% | 22.2% |", "| unitrace -sample 1000 | 5.0% | 5.6% |", "unitrace's overhead / perf's, fastest runs: 0.25"} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("missing %q in\n%s", want, b.String())
		}
	}
}

func TestBenchNs(t *testing.T) {
	ns, err := benchNs([]string{"noise", "bench calls=517000 ns_per_call=3868.6 sink=776275500"})
	if err != nil || ns != 3868.6 {
		t.Errorf("%v, %v", ns, err)
	}
	for _, bad := range [][]string{nil, {"bench calls=1 ns_per_call=x"}, {"bench calls=1 ns_per_call=0"}} {
		if _, err := benchNs(bad); err == nil {
			t.Errorf("%q read", bad)
		}
	}
	e, r := probeRun{plain: 25, entry: 3825, ret: 7625}.perHit()
	if e != 3800 || r != 3800 {
		t.Errorf("per hit %v, %v", e, r)
	}
}
