package main

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
)

// The profilers' cost (-overhead ROUNDS): the compute workload (examples/groundtruth hash)
// switches its profiler on and off every -phase within one run (groundtruth -toggle), perf
// record -F FREQ -g in the Linux guest through perf's control FIFOs, unitrace's sampler at FREQ
// through the tracer's control call, and reports the median over its on phases of the
// throughput each lost against the off phases on either side. A round is one boot of each; the
// result is the median over the rounds. The host's speed drifts by up to a third over seconds
// on a shared machine, far more than a profiler costs: phases a fraction of a second long,
// compared with their neighbours, see the same host.

// overheadLine reads "groundtruth: toggle ... overhead=P% ..." from lines: the run's overhead
// as a fraction.
func overheadLine(lines []string) (float64, error) {
	const prefix = "groundtruth: toggle "
	for _, l := range lines {
		i := strings.Index(l, prefix)
		if i < 0 {
			continue
		}
		for _, f := range strings.Fields(l[i+len(prefix):]) {
			if v, ok := strings.CutPrefix(f, "overhead="); ok {
				p, err := strconv.ParseFloat(strings.TrimSuffix(v, "%"), 64)
				if err != nil {
					return 0, fmt.Errorf("bad line %q", l)
				}
				return p / 100, nil
			}
		}
		return 0, fmt.Errorf("no overhead in %q", l)
	}
	return 0, fmt.Errorf("no %q line", strings.TrimSpace(prefix))
}

// overheadRound is one round's overheads, per profiler.
type overheadRound struct {
	perf, sampler float64
}

func runOverhead(o *options, dir string, rounds int, w io.Writer) error {
	var rs []overheadRound
	for r := 1; r <= rounds; r++ {
		var rd overheadRound
		var err error
		if rd.perf, err = overheadLinux(o, dir, r); err != nil {
			return fmt.Errorf("round %d, linux guest: %w", r, err)
		}
		if rd.sampler, err = overheadUnitrace(o, dir, r); err != nil {
			return fmt.Errorf("round %d, unitrace: %w", r, err)
		}
		fmt.Fprintf(os.Stderr, "perfcompare: overhead round %d/%d: perf %.2f%%, unitrace %.2f%%\n", r, rounds, 100*rd.perf, 100*rd.sampler)
		rs = append(rs, rd)
	}
	writeOverhead(w, o, rs)
	return nil
}

// overheadLinux boots the Linux guest once, the workload under perf record switched on and off.
func overheadLinux(o *options, dir string, round int) (float64, error) {
	args := qemuArgs(o, fmt.Sprintf("overhead %d %v %v", o.freq, o.phase, o.duration))
	out, err := runCmd(o.timeout, filepath.Join(dir, fmt.Sprintf("linux-overhead-%d.console", round)), o.qemu, args...)
	if err != nil {
		return 0, fmt.Errorf("%s: %w%s", o.qemu, err, tail(out))
	}
	c, err := parseConsole(bytes.NewReader(out))
	if err != nil {
		return 0, err
	}
	lines, err := c.section("toggle")
	if err != nil {
		return 0, err
	}
	v, err := overheadLine(lines)
	if err != nil {
		return 0, fmt.Errorf("section toggle: %w", err)
	}
	return v, nil
}

// overheadUnitrace boots the workload under unitrace once, its sampler switched on and off. The
// sampler needs the trace ports, which -o gives the run.
func overheadUnitrace(o *options, dir string, round int) (float64, error) {
	args := append(append([]string{}, o.unitrace[1:]...), "run", "-o", filepath.Join(dir, fmt.Sprintf("unitrace-overhead-%d.utrace", round)),
		o.app, "--", "-toggle", o.phase.String(), "-toggle-hz", strconv.Itoa(o.freq), "hash", o.duration.String())
	out, err := runCmd(o.timeout, filepath.Join(dir, fmt.Sprintf("unitrace-overhead-%d.console", round)), o.unitrace[0], args...)
	if err != nil {
		return 0, fmt.Errorf("run: %w%s", err, tail(out))
	}
	return overheadLine(strings.Split(string(out), "\n"))
}

func median(v []float64) float64 {
	s := slices.Clone(v)
	slices.Sort(s)
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

func writeOverhead(w io.Writer, o *options, rs []overheadRound) {
	var perf, sampler []float64
	for _, r := range rs {
		perf, sampler = append(perf, r.perf), append(sampler, r.sampler)
	}
	fmt.Fprintf(w, "Profiling examples/groundtruth hash at %d Hz, switched on and off every %v for %v, %d rounds (one boot of each a round): the throughput each profiler took, the median over its on phases against the off phases beside them, per round and over the rounds:\n\n",
		o.freq, o.phase, o.duration, len(rs))
	fmt.Fprintf(w, "| profiler | median | rounds |\n| --- | --- | --- |\n")
	row := func(name string, v []float64) {
		fmt.Fprintf(w, "| %s | %.2f%% |", name, 100*median(v))
		for _, x := range v {
			fmt.Fprintf(w, " %.2f", 100*x)
		}
		fmt.Fprintf(w, " |\n")
	}
	row(fmt.Sprintf("perf record -F %d -g, Linux guest", o.freq), perf)
	row(fmt.Sprintf("unitrace, sampler at %d Hz", o.freq), sampler)
	if m := median(perf); m > 0 {
		fmt.Fprintf(w, "\nunitrace's overhead / perf's, medians: %.2f\n", median(sampler)/m)
	}
}
