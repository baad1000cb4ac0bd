package vm_test

import (
	"regexp"
	"strconv"
	"testing"
	"time"

	"github.com/unitrace/unitrace/internal/tracefile"
	"github.com/unitrace/unitrace/trace/record"
)

// BenchmarkSamplerOverhead boots examples/groundtruth hash (3 s of innerHash) four times in one
// run: without the tracer, with the tracer recording but the sampler off, and sampling at 1 kHz
// and at 10 kHz. It reports the workload's throughput at each rate against both runs without
// the sampler, the in-guest handler cost (median and p99 TSC cycles, from the kernel's exit
// report), the samples taken per second and the bytes a sample takes in the recording. It runs
// once per guest architecture (sub-benchmarks amd64 and arm64); arm64's "cycles" are ticks of
// its generic timer, not CPU cycles.
//
//	go test ./tests/vm -run '^$' -bench SamplerOverhead -benchtime 1x
func BenchmarkSamplerOverhead(b *testing.B) {
	benchEachArch(b, benchmarkSamplerOverhead)
}

func benchmarkSamplerOverhead(b *testing.B, a guestArch) {
	configs := []string{"", "traced", "1000", "10000"}
	for i := 0; i < b.N; i++ {
		// Rounds interleave the configurations, so a burst of load on the host hits them all
		// alike; each metric is the median over the rounds.
		runs := map[string][]samplerResult{}
		for round := 0; round < samplerRounds; round++ {
			for _, c := range configs {
				runs[c] = append(runs[c], samplerRun(b, a, c))
			}
		}
		med := func(c string, f func(samplerResult) float64) float64 {
			var v []float64
			for _, r := range runs[c] {
				v = append(v, f(r))
			}
			return median(v)
		}
		tput := func(r samplerResult) float64 { return r.unitsPerSec }
		off, traced := med("", tput), med("traced", tput)
		b.ReportMetric(traced/off, "throughput_traced/off")
		for _, hz := range []string{"1000", "10000"} {
			b.ReportMetric(med(hz, tput)/off, "throughput_"+hz+"Hz/off")
			b.ReportMetric(med(hz, tput)/traced, "throughput_"+hz+"Hz/traced")
			b.ReportMetric(med(hz, func(r samplerResult) float64 { return r.p50 }), "cycles_p50_"+hz+"Hz")
			b.ReportMetric(med(hz, func(r samplerResult) float64 { return r.p99 }), "cycles_p99_"+hz+"Hz")
			b.ReportMetric(med(hz, func(r samplerResult) float64 { return r.bytesPerSample }), "bytes/sample_"+hz+"Hz")
			b.ReportMetric(med(hz, func(r samplerResult) float64 { return r.samplesPerSec }), "samples/s_"+hz+"Hz")
		}
	}
}

// samplerRounds is how many times BenchmarkSamplerOverhead boots each configuration.
const samplerRounds = 3

type samplerResult struct {
	unitsPerSec, p50, p99, bytesPerSample, samplesPerSec float64
}

var (
	workloadLine = regexp.MustCompile(`groundtruth: hash elapsed=(\S+) calls=\d+ units=(\d+)`)
	costLine     = regexp.MustCompile(`sampler: (\d+) samples.*median (\d+) cycles.*p99 (\d+) cycles`)
)

// samplerRun boots the hash workload with the sampler at hz ("" for no tracer at all, "traced"
// for the tracer recording with the sampler off).
func samplerRun(b *testing.B, a guestArch, hz string) samplerResult {
	b.Helper()
	name := "bench-off"
	args := []string{"-image", a.path("gt-bench.elf")}
	file := a.path("gt-bench-" + hz + ".utrace")
	switch hz {
	case "":
	case "traced":
		name = "bench-traced"
		args = append(args, "-o", file)
	default:
		name = "bench-" + hz
		args = append(args, "-sample", hz, "-o", file)
	}
	args = append(args, groundtruthApp, "--", "hash", "3s")
	stdout, stderr, status := runLauncher(b, a, args...)
	if status != 0 {
		b.Fatalf("%s: status %d\n%s", name, status, stderr)
	}
	var r samplerResult
	m := workloadLine.FindStringSubmatch(stdout)
	if m == nil {
		b.Fatalf("%s: no workload line in\n%s", name, stdout)
	}
	d, err1 := time.ParseDuration(m[1])
	units, err2 := strconv.ParseFloat(m[2], 64)
	if err1 != nil || err2 != nil {
		b.Fatalf("%s: bad workload line %q", name, m[0])
	}
	r.unitsPerSec = units / d.Seconds()
	if hz == "" || hz == "traced" {
		return r
	}
	c := costLine.FindStringSubmatch(stdout + stderr)
	if c == nil {
		b.Fatalf("%s: no sampler report in\n%s", name, stdout)
	}
	n, _ := strconv.ParseFloat(c[1], 64)
	r.p50, _ = strconv.ParseFloat(c[2], 64)
	r.p99, _ = strconv.ParseFloat(c[3], 64)
	r.samplesPerSec = n / d.Seconds()
	tr, err := tracefile.LoadFile(file)
	if err != nil {
		b.Fatal(err)
	}
	var bytes, count float64
	for _, rec := range tr.Records {
		if rec.TPID == record.TPSample {
			bytes += float64(len(rec.Raw))
			count++
		}
	}
	r.bytesPerSample = bytes / max(count, 1)
	return r
}
