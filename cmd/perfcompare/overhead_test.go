package main

import (
	"strings"
	"testing"
	"time"
)

// TestOverheadLine reads the workload's toggle report, among other lines.
func TestOverheadLine(t *testing.T) {
	got, err := overheadLine([]string{"noise", "groundtruth: toggle phase=250ms pairs=3 overhead=4.50% (median of the pairs; each: 4.50 3.00 6.00)"})
	if err != nil || got != 0.045 {
		t.Fatalf("overheadLine = %v, %v; want 0.045", got, err)
	}
	for _, lines := range [][]string{{"nothing"}, {"groundtruth: toggle phase=1s pairs=0"}, {"groundtruth: toggle overhead=x%"}} {
		if _, err := overheadLine(lines); err == nil {
			t.Errorf("overheadLine(%q) took it", lines)
		}
	}
}

// TestWriteOverhead: each profiler's median over the rounds, every round, and the ratio of
// unitrace's median to perf's.
func TestWriteOverhead(t *testing.T) {
	var b strings.Builder
	writeOverhead(&b, &options{freq: 1000, phase: 250 * time.Millisecond, duration: 6 * time.Second}, []overheadRound{
		{perf: 0.05, sampler: 0.04}, {perf: 0.06, sampler: 0.03}, {perf: 0.04, sampler: 0.05},
	})
	for _, want := range []string{"every 250ms for 6s, 3 rounds", "| perf record -F 1000 -g, Linux guest | 5.00% | 5.00 6.00 4.00 |",
		"| unitrace, sampler at 1000 Hz | 4.00% | 4.00 3.00 5.00 |", "unitrace's overhead / perf's, medians: 0.80"} {
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
