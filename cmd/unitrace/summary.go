package main

import (
	"cmp"
	"flag"
	"fmt"
	"io"
	"slices"
	"time"

	"github.com/unitrace/unitrace/internal/tracefile"
	"github.com/unitrace/unitrace/kernel/fs/p9"
)

const summaryDoc = `Summarize a recording: records per tracepoint, each CPU's time span, lost
totals, duration percentiles of paired tracepoints (X_enter/X_exit and
X/X_ret, matched per thread), the dynamic probes' hits and, for return
probes, the latencies of the calls they paired with their entries ("probe
NAME hits N", "probe NAME%return hits N p50 D p99 D max D"), where shared directories' I/O time went
(the p9_rpc round trips, by share and request type), the socket calls'
round trips to the launcher (net_rpc, by call), and where the goroutines
waited (the off-CPU sweep's samples of run -offcpu, by state and reason).
`

var summaryCommand = command{
	name:     "summary",
	synopsis: "[-elf ELF] [-force] FILE",
	summary:  "counts per tracepoint, per-CPU spans, lost totals, durations of paired tracepoints",
	doc:      summaryDoc,
	setup:    summarySetup,
}

func summarySetup(fs *flag.FlagSet) func(std stdio, args []string) error {
	var img imageFlags
	img.register(fs)
	return func(std stdio, args []string) error {
		file, err := traceFlags(fs, args)
		if err != nil {
			return flagError(err)
		}
		tr, err := loadTrace(std, fs.Name(), file, false)
		if err != nil {
			return err
		}
		var pv *probeView
		if hasProbes(tr) {
			if pv, err = openProbeView(img, tr, tr.Merged()); err != nil {
				fmt.Fprintf(std.err, "%s: probes left out: %v\n", fs.Name(), err)
			}
		}
		summarize(std.out, tr, pv)
		return nil
	}
}

func summarize(w io.Writer, tr *tracefile.Trace, pv *probeView) {
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

	summarizeShares(w, tr, recs)
	summarizeSockets(w, tr, recs)
	summarizeWaits(w, tr, recs)
	summarizeProbes(w, pv)
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

// summarizeShares shows the shared directories' round trips (p9_rpc: share, request type,
// latency, reply bytes), by share and type: how many, their total and percentile latencies and
// the bytes that came back, busiest first.
func summarizeShares(w io.Writer, tr *tracefile.Trace, recs []tracefile.Rec) {
	type key struct {
		share uint64
		typ   p9.Type
	}
	lat := map[key][]int64{}
	bytes := map[key]uint64{}
	total := map[uint64]int64{}
	for _, r := range recs {
		if tr.Name(&r.Record) != "p9_rpc" || len(r.Args) < 4 {
			continue
		}
		k := key{r.Args[0], p9.Type(r.Args[1])}
		lat[k] = append(lat[k], int64(r.Args[2]))
		bytes[k] += r.Args[3]
		total[k.share] += int64(r.Args[2])
	}
	if len(lat) == 0 {
		return
	}
	keys := slices.SortedFunc(func(yield func(key) bool) {
		for k := range lat {
			if !yield(k) {
				return
			}
		}
	}, func(a, b key) int {
		sum := func(k key) (t int64) {
			for _, d := range lat[k] {
				t += d
			}
			return t
		}
		return cmp.Or(cmp.Compare(a.share, b.share), cmp.Compare(sum(b), sum(a)), cmp.Compare(a.typ, b.typ))
	})
	fmt.Fprintf(w, "\nshared directories (p9_rpc round trips):\n  %-5s %-10s %8s %12s %12s %12s %12s\n",
		"share", "request", "count", "total", "p50", "p99", "bytes")
	last := ^uint64(0)
	for _, k := range keys {
		if k.share != last {
			fmt.Fprintf(w, "  %-5d %-10s %8s %12v\n", k.share, "all", "", time.Duration(total[k.share]))
			last = k.share
		}
		d := lat[k]
		slices.Sort(d)
		var sum int64
		for _, v := range d {
			sum += v
		}
		name := k.typ.Name()
		if name == "" {
			name = fmt.Sprintf("type %d", k.typ)
		}
		fmt.Fprintf(w, "  %-5s %-10s %8d %12v %12v %12v %12d\n", "", name, len(d), time.Duration(sum),
			time.Duration(percentile(d, 50)), time.Duration(percentile(d, 99)), bytes[k])
	}
}

// summarizeProbes prints a line per probed function and kind: its hits, and for returns the
// percentiles of the paired calls' latencies, with the calls that could not be paired.
func summarizeProbes(w io.Writer, pv *probeView) {
	if pv == nil || len(pv.stats) == 0 {
		return
	}
	fmt.Fprintln(w, "\nprobes:")
	for _, s := range pv.stats {
		fmt.Fprintf(w, "  probe %s hits %d", s.Name(), s.Hits)
		if s.Return && len(s.Latencies) > 0 {
			d := make([]int64, len(s.Latencies))
			for i, l := range s.Latencies {
				d[i] = int64(l)
			}
			fmt.Fprintf(w, " p50 %v p99 %v max %v", time.Duration(percentile(d, 50)), time.Duration(percentile(d, 99)), time.Duration(d[len(d)-1]))
		}
		if s.NoReturn > 0 {
			fmt.Fprintf(w, " (%d calls without their return)", s.NoReturn)
		}
		if s.NoEntry > 0 {
			fmt.Fprintf(w, " (%d returns without their entry)", s.NoEntry)
		}
		fmt.Fprintln(w)
	}
}
