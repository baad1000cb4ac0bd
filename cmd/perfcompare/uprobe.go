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

// A dynamic probe's cost per hit (-uprobe ROUNDS): examples/probes -bench calls main.target
// from one goroutine for the run's duration and prints the time per call; it runs plain, with
// an entry probe and with a return probe (an entry and a return: two hits a call), under perf
// probe's uprobes and perf record in the Linux guest (the three in one boot) and under unitrace's
// probes (three boots). A hit's cost is the time a probe adds to a call, over its hits.

// benchNs reads "bench calls=N ns_per_call=T ..." from lines.
func benchNs(lines []string) (float64, error) {
	for _, l := range lines {
		i := strings.Index(l, "bench calls=")
		if i < 0 {
			continue
		}
		for _, f := range strings.Fields(l[i:]) {
			if v, ok := strings.CutPrefix(f, "ns_per_call="); ok {
				ns, err := strconv.ParseFloat(v, 64)
				if err != nil || ns <= 0 {
					return 0, fmt.Errorf("bad line %q", l)
				}
				return ns, nil
			}
		}
	}
	return 0, fmt.Errorf("no bench line")
}

// probeRun is one side's times per call: plain, with an entry probe, with a return probe.
type probeRun struct{ plain, entry, ret float64 }

// perHit is the cost of one hit: the entry probe's one a call, the return probe's two.
func (r probeRun) perHit() (entry, ret float64) { return r.entry - r.plain, (r.ret - r.plain) / 2 }

func runUprobe(o *options, dir string, rounds int, w io.Writer) error {
	var lin, uni []probeRun
	for r := 1; r <= rounds; r++ {
		l, err := uprobeLinux(o, dir, r)
		if err != nil {
			return fmt.Errorf("round %d, linux guest: %w", r, err)
		}
		u, err := uprobeUnitrace(o, dir, r)
		if err != nil {
			return fmt.Errorf("round %d, unitrace: %w", r, err)
		}
		lin, uni = append(lin, l), append(uni, u)
		fmt.Fprintf(os.Stderr, "perfcompare: uprobe round %d/%d done\n", r, rounds)
	}
	writeUprobe(w, o, lin, uni)
	return nil
}

// uprobeLinux boots the Linux guest once: /probes plain, under an entry uprobe, and under an
// entry and a return uprobe.
func uprobeLinux(o *options, dir string, round int) (probeRun, error) {
	args := qemuArgs(o, "uprobe -bench "+o.duration.String())
	out, err := runCmd(o.timeout, filepath.Join(dir, fmt.Sprintf("linux-uprobe-%d.console", round)), o.qemu, args...)
	if err != nil {
		return probeRun{}, fmt.Errorf("%s: %w%s", o.qemu, err, tail(out))
	}
	c, err := parseConsole(bytes.NewReader(out))
	if err != nil {
		return probeRun{}, err
	}
	if lines, err := c.section("probe-add"); err != nil {
		return probeRun{}, fmt.Errorf("perf probe: %w: %s", err, strings.Join(lines, "\n"))
	}
	var r probeRun
	for _, s := range []struct {
		name string
		v    *float64
	}{{"plain", &r.plain}, {"entry", &r.entry}, {"return", &r.ret}} {
		lines, err := c.section(s.name)
		if err != nil {
			return probeRun{}, err
		}
		if *s.v, err = benchNs(lines); err != nil {
			return probeRun{}, fmt.Errorf("section %s: %w", s.name, err)
		}
	}
	return r, nil
}

// uprobeUnitrace boots examples/probes three times: plain, -probe main.target and -probe
// main.target%return, the launcher recording each.
func uprobeUnitrace(o *options, dir string, round int) (probeRun, error) {
	var r probeRun
	for _, s := range []struct {
		name  string
		probe string
		v     *float64
	}{{"plain", "", &r.plain}, {"entry", "main.target", &r.entry}, {"return", "main.target%return", &r.ret}} {
		args := append(append([]string{}, o.unitrace[1:]...), "run", "-o", filepath.Join(dir, "probes.utrace"))
		if s.probe != "" {
			args = append(args, "-probe", s.probe)
		}
		args = append(args, "examples/probes", "--", "-bench", o.duration.String())
		out, err := runCmd(o.timeout, filepath.Join(dir, fmt.Sprintf("unitrace-probe-%s-%d.console", s.name, round)), o.unitrace[0], args...)
		if err != nil {
			return probeRun{}, fmt.Errorf("run %s: %w%s", s.name, err, tail(out))
		}
		if *s.v, err = benchNs(strings.Split(string(out), "\n")); err != nil {
			return probeRun{}, fmt.Errorf("run %s: %w", s.name, err)
		}
	}
	return r, nil
}

func writeUprobe(w io.Writer, o *options, lin, uni []probeRun) {
	fmt.Fprintf(w, "Probing examples/probes' main.target (-bench %v: one goroutine calling it), %d rounds, medians (fastest in brackets), ns:\n\n", o.duration, len(lin))
	fmt.Fprintf(w, "| side | call, plain | with an entry probe | with a return probe | a hit, entry | a hit, return |\n| --- | --- | --- | --- | --- | --- |\n")
	row := func(name string, rs []probeRun) (float64, float64) {
		var p, e, r, he, hr []float64
		for _, x := range rs {
			a, b := x.perHit()
			p, e, r, he, hr = append(p, x.plain), append(e, x.entry), append(r, x.ret), append(he, a), append(hr, b)
		}
		fmt.Fprintf(w, "| %s | %.1f (%.1f) | %.0f (%.0f) | %.0f (%.0f) | %.0f (%.0f) | %.0f (%.0f) |\n", name,
			median(p), slices.Min(p), median(e), slices.Min(e), median(r), slices.Min(r), median(he), slices.Min(he), median(hr), slices.Min(hr))
		return median(he), median(hr)
	}
	le, lr := row("perf probe uprobes + perf record, Linux guest", lin)
	ue, ur := row("unitrace -probe", uni)
	if le > 0 && lr > 0 {
		fmt.Fprintf(w, "\nunitrace's cost of a hit / perf's, medians: entry %.2f, return %.2f\n", ue/le, ur/lr)
	}
}
