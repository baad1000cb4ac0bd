package main

import (
	"flag"
	"fmt"
	"io"
	"maps"
	"math"
	"slices"
	"strings"

	"github.com/unitrace/unitrace/internal/tracefile"
	"github.com/unitrace/unitrace/trace/record"
	"github.com/unitrace/unitrace/trace/wire"
)

const checkDoc = `Check a recording: transport errors (CRC, magic, truncation) with their
offsets, each CPU's sequence numbers against the LOST records and frames
(produced = received + lost + missing), clock sanity (per-CPU timestamps
never go back, CLOCK pairs agree with HELLO's tick rate) and how the session
ended. Exit status 1 when something is wrong.
`

var checkCommand = command{
	name:     "check",
	synopsis: "FILE",
	summary:  "check a recording: transport errors, sequence gaps against LOST counts, clock sanity",
	doc:      checkDoc,
	setup:    checkSetup,
}

func checkSetup(fs *flag.FlagSet) func(std stdio, args []string) error {
	return func(std stdio, args []string) error {
		file, err := traceFlags(fs, args)
		if err != nil {
			return flagError(err)
		}
		tr, err := tracefile.LoadFile(file)
		if err != nil {
			return err
		}
		if problems := checkTrace(std.out, file, tr); problems > 0 {
			return exitStatus(1)
		}
		return nil
	}
}

// clockTolerance is how far (relative) a CLOCK pair's implied tick rate may
// stray from HELLO's before check complains.
const clockTolerance = 0.02

// checkTrace prints the report and returns the number of problems.
func checkTrace(w io.Writer, file string, tr *tracefile.Trace) int {
	problems := 0
	bad := func(format string, a ...any) {
		problems++
		fmt.Fprintf(w, "  PROBLEM: "+format+"\n", a...)
	}
	c := tr.Counts
	fmt.Fprintf(w, "%s: %d bytes, %d frames, %d records\n", file, c.Bytes, c.Frames, c.Records)
	if h := tr.Host; h != nil {
		fmt.Fprintf(w, "host: image %s (build id %s), accel %s, started %s\n", h.Image, h.BuildID, h.Accel, h.Start.Format("2006-01-02 15:04:05Z07:00"))
	}
	mode := wire.ModeUnknown
	if h := tr.Hello; h != nil {
		mode = h.RingMode
		fmt.Fprintf(w, "hello: protocol %d.%d, %s, %d CPUs, %s at %d Hz, %s rings of %d bytes, build id %s, accel %s\n",
			h.ProtoMajor, h.ProtoMinor, h.Arch, h.NCPU, h.TickSource, h.TickHz, h.RingMode, h.RingSize, tracefile.BuildIDHex(h.BuildID), h.Accel)
	} else {
		fmt.Fprintln(w, "hello: none")
		bad("no HELLO frame")
	}
	if tr.Dict == nil {
		fmt.Fprintln(w, "dict: none")
	} else {
		fmt.Fprintf(w, "dict: %d tracepoints\n", len(tr.Dict.Entries))
	}

	fmt.Fprintf(w, "transport: %d frame errors (%d bytes skipped), %d other errors\n", c.FrameErrors, c.SkippedBytes, c.OtherErrors)
	for _, p := range tr.Errors {
		bad("%v", p.Err)
	}

	overwritten := map[uint16]uint64{}
	final := map[uint16]wire.CPUStats{} // the counters after the last record, when the guest said goodbye
	if n := len(tr.Stats); n > 0 {
		for _, s := range tr.Stats[n-1].CPUs {
			overwritten[s.CPU] = s.Overwritten
			if tr.End != nil {
				final[s.CPU] = s
			}
		}
	}
	fmt.Fprintln(w, "sequence:")
	for _, a := range tr.Account.CPUs() {
		fmt.Fprintf(w, "  cpu %d: produced %d = received %d + lost %d (LOST records %d, LOST frames %d) + missing %d\n",
			a.CPU, a.Produced, a.Received, a.LostRecords+a.LostFrames, a.LostRecords, a.LostFrames, a.Missing)
		if len(a.Gaps) > 0 {
			fmt.Fprintf(w, "    gaps: %s\n", gapList(a.Gaps))
		}
		if a.Overlaps > 0 {
			bad("cpu %d: %d seqs accounted twice", a.CPU, a.Overlaps)
		}
		if st, ok := final[a.CPU]; ok {
			// The guest's own count of what it produced must be what the seqs say: every record
			// written or dropped took one.
			fmt.Fprintf(w, "    final STATS: written %d + dropped %d = %d produced", st.Written, st.Dropped(), st.Produced())
			if st.Discarded > 0 || st.Pending > 0 {
				fmt.Fprintf(w, " (%d discarded by a mode change, %d never reported)", st.Discarded, st.Pending)
			}
			fmt.Fprintln(w)
			if st.Produced() != a.Produced {
				bad("cpu %d: the guest counted %d records produced, the sequence numbers say %d", a.CPU, st.Produced(), a.Produced)
			}
		}
		switch {
		case a.Missing == 0:
		case a.Missing <= final[a.CPU].Discarded:
			fmt.Fprintf(w, "    %d missing, within the %d a mode change discarded\n", a.Missing, final[a.CPU].Discarded)
		case mode == wire.ModeFlight && a.Missing <= overwritten[a.CPU]:
			fmt.Fprintf(w, "    %d missing, within the %d the flight recorder overwrote\n", a.Missing, overwritten[a.CPU])
		case mode == wire.ModeFlight:
			bad("cpu %d: %d seqs missing, but STATS says only %d were overwritten", a.CPU, a.Missing, overwritten[a.CPU])
		default:
			bad("cpu %d: %d seqs missing that no LOST record or frame covers", a.CPU, a.Missing)
		}
	}
	checkClock(w, tr, bad)
	switch e := tr.End; {
	case e == nil:
		fmt.Fprintln(w, "end: none (the recording was cut before the guest said goodbye)")
	case e.Reason == wire.EndPanic:
		fmt.Fprintf(w, "end: panic: %s\n", e.Message)
	default:
		fmt.Fprintf(w, "end: %s, status %d\n", e.Reason, e.Status)
	}
	if problems == 0 {
		fmt.Fprintln(w, "OK")
	} else {
		fmt.Fprintf(w, "%d problems\n", problems)
	}
	return problems
}

func gapList(gaps []tracefile.Gap) string {
	var parts []string
	for i, g := range gaps {
		if i == 8 {
			parts = append(parts, fmt.Sprintf("... (%d more)", len(gaps)-i))
			break
		}
		if g.To-g.From == 1 {
			parts = append(parts, fmt.Sprint(g.From))
		} else {
			parts = append(parts, fmt.Sprintf("%d-%d", g.From, g.To-1))
		}
	}
	return strings.Join(parts, ", ")
}

// checkClock checks that each CPU's timestamps never go back and that each
// CPU's CLOCK pairs agree with HELLO's rate. Problems go through bad.
func checkClock(w io.Writer, tr *tracefile.Trace, bad func(string, ...any)) {
	type pair struct{ ticks, ns uint64 }
	lastTS := map[uint16]uint64{}
	backwards := map[uint16]int{}
	pairs := map[uint16][]pair{}
	for _, r := range tr.Records {
		if prev, ok := lastTS[r.CPU]; ok && r.TS < prev {
			if backwards[r.CPU] == 0 {
				bad("cpu %d: timestamp goes back at offset %d (ts %d after %d)", r.CPU, r.Offset, r.TS, prev)
			}
			backwards[r.CPU]++
		}
		lastTS[r.CPU] = r.TS
		if r.TPID == record.TPClock {
			if t, ns, ok := r.Clock(); ok {
				pairs[r.CPU] = append(pairs[r.CPU], pair{t, ns})
			}
		}
	}
	for _, c := range tr.Clocks {
		pairs[c.CPU] = append(pairs[c.CPU], pair{c.Ticks, c.Ns})
	}
	n := 0
	hz := uint64(0)
	if tr.Hello != nil {
		hz = tr.Hello.TickHz
	}
	for _, cpu := range slices.Sorted(maps.Keys(pairs)) {
		ps := pairs[cpu]
		prev := pair{}
		if tr.Hello != nil {
			prev = pair{tr.Hello.RefTicks, tr.Hello.RefNs}
		}
		for _, p := range ps {
			n++
			if p.ticks < prev.ticks || p.ns < prev.ns {
				bad("cpu %d: CLOCK pair (%d ticks, %d ns) goes back from (%d, %d)", cpu, p.ticks, p.ns, prev.ticks, prev.ns)
			} else if dns := p.ns - prev.ns; hz != 0 && dns != 0 {
				rate := float64(p.ticks-prev.ticks) / float64(dns) * 1e9
				if math.Abs(rate-float64(hz)) > clockTolerance*float64(hz) {
					bad("cpu %d: CLOCK pair (%d ticks, %d ns) implies %.0f Hz, HELLO says %d Hz", cpu, p.ticks, p.ns, rate, hz)
				}
			}
			prev = p
		}
	}
	total := 0
	for _, v := range backwards {
		total += v
	}
	fmt.Fprintf(w, "clock: %d CLOCK pairs checked, %d timestamps going back\n", n, total)
}
