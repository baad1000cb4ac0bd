package main

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"
)

// The profilers' cost (-overhead ROUNDS): the compute workload (examples/groundtruth hash) run
// plain and under each profiler at the same rate, perf record -g in the Linux guest (both runs
// in one boot) and unitrace's sampler (two boots), round after round. A run's throughput is the
// workload's own units per second; a profiler's overhead is the share of it that profiling
// took, 1 - profiled/plain, from the fastest run of each kind (the host's noise only slows runs
// down, by up to a third here, far more than a profiler costs) and from the medians.

const overheadWorkload = "hash"

// throughput reads "groundtruth: hash elapsed=D ... units=N" from lines: units per second.
func throughput(lines []string) (float64, error) {
	prefix := "groundtruth: " + overheadWorkload + " "
	for _, l := range lines {
		i := strings.Index(l, prefix)
		if i < 0 {
			continue
		}
		var elapsed time.Duration
		var units uint64
		var err1, err2 error
		for _, f := range strings.Fields(l[i+len(prefix):]) {
			k, v, _ := strings.Cut(f, "=")
			switch k {
			case "elapsed":
				elapsed, err1 = time.ParseDuration(v)
			case "units":
				units, err2 = strconv.ParseUint(v, 10, 64)
			}
		}
		if err := errors.Join(err1, err2); err != nil || elapsed <= 0 || units == 0 {
			return 0, fmt.Errorf("bad line %q", l)
		}
		return float64(units) / elapsed.Seconds(), nil
	}
	return 0, fmt.Errorf("no %q line", strings.TrimSpace(prefix))
}

// overheadRound is one round's throughputs: plain and profiled, per side.
type overheadRound struct {
	linuxPlain, linuxPerf, unitracePlain, unitraceSampled float64
}

func runOverhead(o *options, dir string, rounds int, w io.Writer) error {
	var rs []overheadRound
	for r := 1; r <= rounds; r++ {
		var rd overheadRound
		var err error
		if rd.linuxPlain, rd.linuxPerf, err = overheadLinux(o, dir, r); err != nil {
			return fmt.Errorf("round %d, linux guest: %w", r, err)
		}
		if rd.unitracePlain, err = overheadUnitrace(o, dir, r, false); err != nil {
			return fmt.Errorf("round %d, unitrace: %w", r, err)
		}
		if rd.unitraceSampled, err = overheadUnitrace(o, dir, r, true); err != nil {
			return fmt.Errorf("round %d, unitrace with the sampler: %w", r, err)
		}
		fmt.Fprintf(os.Stderr, "perfcompare: overhead round %d/%d done\n", r, rounds)
		rs = append(rs, rd)
	}
	writeOverhead(w, o, rs)
	return nil
}

// overheadLinux boots the Linux guest once: the workload plain, then under perf record.
func overheadLinux(o *options, dir string, round int) (plain, perf float64, err error) {
	args := qemuArgs(o, fmt.Sprintf("overhead %d %s %v", o.freq, overheadWorkload, o.duration))
	out, err := runCmd(o.timeout, filepath.Join(dir, fmt.Sprintf("linux-overhead-%d.console", round)), o.qemu, args...)
	if err != nil {
		return 0, 0, fmt.Errorf("%s: %w%s", o.qemu, err, tail(out))
	}
	c, err := parseConsole(bytes.NewReader(out))
	if err != nil {
		return 0, 0, err
	}
	for _, s := range []struct {
		name string
		v    *float64
	}{{"plain", &plain}, {"profiled", &perf}} {
		lines, err := c.section(s.name)
		if err != nil {
			return 0, 0, err
		}
		if *s.v, err = throughput(lines); err != nil {
			return 0, 0, fmt.Errorf("section %s: %w", s.name, err)
		}
	}
	return plain, perf, nil
}

// overheadUnitrace runs the workload under unitrace once, with the sampler or without.
func overheadUnitrace(o *options, dir string, round int, sampled bool) (float64, error) {
	args := append(append([]string{}, o.unitrace[1:]...), "run")
	name := "plain"
	if sampled {
		args = append(args, "-sample", strconv.Itoa(o.freq))
		name = "sampled"
	}
	args = append(args, o.app, "--", overheadWorkload, o.duration.String())
	out, err := runCmd(o.timeout, filepath.Join(dir, fmt.Sprintf("unitrace-%s-%d.console", name, round)), o.unitrace[0], args...)
	if err != nil {
		return 0, fmt.Errorf("run: %w%s", err, tail(out))
	}
	return throughput(strings.Split(string(out), "\n"))
}

// cost is the overhead of profiled throughput against plain.
func cost(plain, profiled float64) float64 { return 1 - profiled/plain }

func median(v []float64) float64 {
	s := slices.Clone(v)
	slices.Sort(s)
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

func writeOverhead(w io.Writer, o *options, rs []overheadRound) {
	var lp, lf, up, us []float64
	for _, r := range rs {
		lp, lf = append(lp, r.linuxPlain), append(lf, r.linuxPerf)
		up, us = append(up, r.unitracePlain), append(us, r.unitraceSampled)
	}
	perfBest, samplerBest := cost(slices.Max(lp), slices.Max(lf)), cost(slices.Max(up), slices.Max(us))
	perfMed, samplerMed := cost(median(lp), median(lf)), cost(median(up), median(us))
	fmt.Fprintf(w, "Profiling examples/groundtruth %s for %v at %d Hz, %d rounds: the throughput each profiler took, from the fastest run of each kind (the host's noise only ever slows a run) and from the medians:\n\n",
		overheadWorkload, o.duration, o.freq, len(rs))
	fmt.Fprintf(w, "| profiler | overhead, fastest runs | overhead, medians |\n| --- | --- | --- |\n")
	fmt.Fprintf(w, "| perf record -F %d -g, Linux guest | %.1f%% | %.1f%% |\n", o.freq, 100*perfBest, 100*perfMed)
	fmt.Fprintf(w, "| unitrace -sample %d | %.1f%% | %.1f%% |\n", o.freq, 100*samplerBest, 100*samplerMed)
	if perfBest > 0 {
		fmt.Fprintf(w, "\nunitrace's overhead / perf's, fastest runs: %.2f\n", samplerBest/perfBest)
	}
}
