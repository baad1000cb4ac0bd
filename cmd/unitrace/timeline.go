package main

import (
	"bufio"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"

	"github.com/unitrace/unitrace/internal/tracefile"
)

const timelineDoc = `Write a recording as Chrome trace-event JSON, which Perfetto
(ui.perfetto.dev) and chrome://tracing load: one process per CPU, one thread
per guest thread, paired tracepoints as duration events, every other record
as an instant with its arguments.
`

var timelineCommand = command{
	name:     "timeline",
	synopsis: "FILE -o trace.json",
	summary:  "write Chrome trace-event JSON for Perfetto",
	doc:      timelineDoc,
	setup:    timelineSetup,
}

func timelineSetup(fs *flag.FlagSet) func(std stdio, args []string) error {
	out := fs.String("o", "", "output file (- for standard output)")
	return func(std stdio, args []string) error {
		file, err := traceFlags(fs, args)
		if err != nil {
			return flagError(err)
		}
		if *out == "" {
			return usageError{"-o is required"}
		}
		tr, err := loadTrace(std, fs.Name(), file, false)
		if err != nil {
			return err
		}
		if *out == "-" {
			return writeTimeline(std.out, tr)
		}
		f, err := os.Create(*out)
		if err != nil {
			return err
		}
		if err := writeTimeline(f, tr); err != nil {
			f.Close()
			return err
		}
		return f.Close()
	}
}

// traceEvent is one Chrome trace event. Times are in microseconds.
type traceEvent struct {
	Name  string         `json:"name"`
	Phase string         `json:"ph"`
	TS    float64        `json:"ts"`
	Dur   *float64       `json:"dur,omitempty"`
	PID   int            `json:"pid"`
	TID   int64          `json:"tid"`
	Scope string         `json:"s,omitempty"`
	Args  map[string]any `json:"args,omitempty"`
}

type traceFile struct {
	TraceEvents     []traceEvent `json:"traceEvents"`
	DisplayTimeUnit string       `json:"displayTimeUnit"`
}

func writeTimeline(w io.Writer, tr *tracefile.Trace) error {
	recs := tr.Merged()
	spans, used := matchPairs(tr, recs)
	var tf traceFile
	tf.DisplayTimeUnit = "ns"
	type thread struct {
		cpu uint16
		tid uint32
	}
	seenCPU := map[uint16]bool{}
	seenThread := map[thread]bool{}
	meta := func(cpu uint16, tid uint32) {
		if !seenCPU[cpu] {
			seenCPU[cpu] = true
			tf.TraceEvents = append(tf.TraceEvents, traceEvent{Name: "process_name", Phase: "M", PID: int(cpu),
				Args: map[string]any{"name": fmt.Sprintf("cpu %d", cpu)}})
		}
		if t := (thread{cpu, tid}); !seenThread[t] {
			seenThread[t] = true
			tf.TraceEvents = append(tf.TraceEvents, traceEvent{Name: "thread_name", Phase: "M", PID: int(cpu), TID: int64(tid),
				Args: map[string]any{"name": fmt.Sprintf("tid %d", tid)}})
		}
	}
	us := func(ns int64) float64 { return float64(ns) / 1e3 }
	for i := range recs {
		r := &recs[i]
		meta(r.CPU, r.TID)
		if used[i] {
			continue
		}
		tf.TraceEvents = append(tf.TraceEvents, traceEvent{Name: tr.Name(&r.Record), Phase: "i", Scope: "t", TS: us(r.Ns),
			PID: int(r.CPU), TID: int64(r.TID), Args: map[string]any{"args": tr.Args(&r.Record), "seq": r.Seq}})
	}
	for _, s := range spans {
		d := us(max(0, s.end-s.start)) // cross-CPU skew must not make it negative
		tf.TraceEvents = append(tf.TraceEvents, traceEvent{Name: s.name, Phase: "X", TS: us(s.start), Dur: &d,
			PID: int(s.cpu), TID: int64(s.tid),
			Args: map[string]any{"enter": tr.Args(&s.open.Record), "exit": tr.Args(&s.shut.Record)}})
	}
	bw := bufio.NewWriter(w)
	enc := json.NewEncoder(bw)
	enc.SetIndent("", " ")
	if err := enc.Encode(&tf); err != nil {
		return err
	}
	return bw.Flush()
}
