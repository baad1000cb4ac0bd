package main

import (
	"cmp"
	"flag"
	"fmt"
	"io"
	"slices"
	"time"

	"github.com/unitrace/unitrace/internal/tracefile"
)

const summaryDoc = `Summarize a recording: records per tracepoint, each CPU's time span, lost
totals, and duration percentiles of paired tracepoints (X_enter/X_exit and
X/X_ret, matched per thread).
`

var summaryCommand = command{
	name:     "summary",
	synopsis: "FILE",
	summary:  "counts per tracepoint, per-CPU spans, lost totals, durations of paired tracepoints",
	doc:      summaryDoc,
	setup:    summarySetup,
}

func summarySetup(fs *flag.FlagSet) func(std stdio, args []string) error {
	return func(std stdio, args []string) error {
		file, err := traceFlags(fs, args)
		if err != nil {
			return flagError(err)
		}
		tr, err := loadTrace(std, fs.Name(), file, false)
		if err != nil {
			return err
		}
		summarize(std.out, tr)
		return nil
	}
}

func summarize(w io.Writer, tr *tracefile.Trace) {
	recs := tr.Merged()
	if len(recs) == 0 {
		fmt.Fprintln(w, "no records")
	} else {
		first, last := recs[0].Ns, recs[len(recs)-1].Ns
		fmt.Fprintf(w, "%d records from %s to %s (%v)\n", len(recs), formatNs(first), formatNs(last), time.Duration(last-first))
	}

	type cpuSpan struct {
		n           int
		first, last int64
	}
	cpus := map[uint16]*cpuSpan{}
	counts := map[string]int{}
	for _, r := range recs {
		counts[tr.Name(&r.Record)]++
		c := cpus[r.CPU]
		if c == nil {
			c = &cpuSpan{first: r.Ns}
			cpus[r.CPU] = c
		}
		c.n++
		c.last = r.Ns
	}
	fmt.Fprintln(w, "\nper CPU:")
	for _, a := range tr.Account.CPUs() {
		c := cpus[a.CPU]
		if c == nil {
			c = &cpuSpan{}
		}
		fmt.Fprintf(w, "  cpu %d: %d records, %s to %s, produced %d, lost %d, missing %d\n",
			a.CPU, c.n, formatNs(c.first), formatNs(c.last), a.Produced, a.LostRecords+a.LostFrames, a.Missing)
	}
	var lostRec, lostFrame, missing uint64
	for _, a := range tr.Account.CPUs() {
		lostRec += a.LostRecords
		lostFrame += a.LostFrames
		missing += a.Missing
	}
	fmt.Fprintf(w, "lost: %d (LOST records %d, LOST frames %d), missing %d, transport errors %d\n",
		lostRec+lostFrame, lostRec, lostFrame, missing, tr.Counts.FrameErrors)

	fmt.Fprintln(w, "\ntracepoints:")
	names := slices.SortedFunc(func(yield func(string) bool) {
		for k := range counts {
			if !yield(k) {
				return
			}
		}
	}, func(a, b string) int {
		return cmp.Or(cmp.Compare(counts[b], counts[a]), cmp.Compare(a, b))
	})
	for _, n := range names {
		fmt.Fprintf(w, "  %-24s %8d\n", n, counts[n])
	}

	spans, _ := matchPairs(tr, recs)
	if len(spans) == 0 {
		return
	}
	durs := map[string][]int64{}
	for _, s := range spans {
		durs[s.name] = append(durs[s.name], s.end-s.start)
	}
	fmt.Fprintf(w, "\npairs:\n  %-24s %8s %12s %12s %12s %12s\n", "name", "count", "p50", "p90", "p99", "max")
	for _, n := range slices.Sorted(func(yield func(string) bool) {
		for k := range durs {
			if !yield(k) {
				return
			}
		}
	}) {
		d := durs[n]
		slices.Sort(d)
		fmt.Fprintf(w, "  %-24s %8d %12v %12v %12v %12v\n", n, len(d),
			time.Duration(percentile(d, 50)), time.Duration(percentile(d, 90)), time.Duration(percentile(d, 99)), time.Duration(d[len(d)-1]))
	}
}

// percentile returns the nearest-rank p-th percentile of sorted values.
func percentile(sorted []int64, p int) int64 {
	if len(sorted) == 0 {
		return 0
	}
	rank := (p*len(sorted) + 99) / 100 // ceil(p/100 * n)
	return sorted[max(rank, 1)-1]
}
