package vm_test

import (
	"regexp"
	"strconv"
	"testing"
)

// BenchmarkSMPThroughput boots `examples/smp parallel 4 N` with -smp 1, 2 and 4 in one run, per
// guest architecture (sub-benchmarks amd64 and arm64). The four workers' work is the same in
// all three, so elapsed(smp 1) / elapsed(smp N) is the kernel's speedup with N CPUs. Under TCG
// every vCPU is a host thread: on a two-core host about 2 is the ceiling for both -smp 2 and
// -smp 4. Rounds interleave the three CPU counts, so a burst of load on the host hits them all
// alike; it reports the median over the rounds of each CPU count's elapsed seconds and of each
// round's two speedups. Nothing is asserted.
//
//	go test ./tests/vm -run '^$' -bench SMPThroughput -benchtime 1x
func BenchmarkSMPThroughput(b *testing.B) {
	benchEachArch(b, benchmarkSMPThroughput)
}

const (
	// throughputUnits is each worker's job: with 4 workers, about 6 s (amd64) to 8 s (arm64)
	// with -smp 1 under TCG on an idle host.
	throughputUnits = 10000
	// throughputRounds is how many times each CPU count boots per benchmark iteration.
	throughputRounds = 3
)

var parallelLine = regexp.MustCompile(`parallel: (\d+) workers, (\d+) units each, elapsed_ns=(\d+)`)

func benchmarkSMPThroughput(b *testing.B, a guestArch) {
	img := a.path("smp-bench.elf")
	cpuCounts := []int{1, 2, 4}
	for i := 0; i < b.N; i++ {
		elapsed := map[int][]float64{}
		var speedup2, speedup4 []float64
		for round := 0; round < throughputRounds; round++ {
			s := map[int]float64{}
			for _, cpus := range cpuCounts {
				s[cpus] = parallelSeconds(b, a, img, cpus)
				elapsed[cpus] = append(elapsed[cpus], s[cpus])
			}
			speedup2 = append(speedup2, s[1]/s[2])
			speedup4 = append(speedup4, s[1]/s[4])
			b.Logf("round %d: %.3f s, %.3f s, %.3f s with 1, 2, 4 CPUs: speedups %.2f and %.2f",
				round+1, s[1], s[2], s[4], s[1]/s[2], s[1]/s[4])
		}
		for _, cpus := range cpuCounts {
			b.ReportMetric(median(elapsed[cpus]), "s_smp"+strconv.Itoa(cpus))
		}
		b.ReportMetric(median(speedup2), "speedup_smp2/smp1")
		b.ReportMetric(median(speedup4), "speedup_smp4/smp1")
	}
}

// parallelSeconds boots the parallel workload on cpus CPUs and returns its elapsed seconds.
func parallelSeconds(b *testing.B, a guestArch, img string, cpus int) float64 {
	b.Helper()
	stdout, stderr, status := runLauncher(b, a, "-smp", strconv.Itoa(cpus), "-timeout", vmTimeout.String(), "-image", img,
		smpApp, "--", "parallel", "4", strconv.Itoa(throughputUnits))
	if status != 0 {
		b.Fatalf("-smp %d: status %d\n%s\n%s", cpus, status, stdout, stderr)
	}
	m := parallelLine.FindStringSubmatch(stdout)
	if m == nil {
		b.Fatalf("-smp %d: no parallel line in\n%s", cpus, stdout)
	}
	ns, _ := strconv.ParseFloat(m[3], 64)
	return ns / 1e9
}
