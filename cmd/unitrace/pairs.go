package main

import (
	"strings"

	"github.com/unitrace/unitrace/internal/tracefile"
)

// Paired tracepoints: X_enter/X_exit and X/X_ret open and close a span
// named X on one thread. Spans nest (a stack per thread and name).

// pairRole says whether a tracepoint name opens or closes a span, and the
// span's name.
func pairRole(name string, names map[string]bool) (span string, open, isPair bool) {
	if s, ok := strings.CutSuffix(name, "_enter"); ok && names[s+"_exit"] {
		return s, true, true
	}
	if s, ok := strings.CutSuffix(name, "_exit"); ok && names[s+"_enter"] {
		return s, false, true
	}
	if s, ok := strings.CutSuffix(name, "_ret"); ok && names[s] {
		return s, false, true
	}
	if names[name+"_ret"] {
		return name, true, true
	}
	return "", false, false
}

// span is one matched pair.
type span struct {
	name       string
	cpu        uint16
	tid        uint32
	start, end int64 // ns
	open, shut *tracefile.Rec
}

// matchPairs returns the spans of the records (in time order) and the
// indexes of the records that are part of one.
func matchPairs(tr *tracefile.Trace, recs []tracefile.Rec) ([]span, map[int]bool) {
	names := map[string]bool{}
	if tr.Dict != nil {
		for _, e := range tr.Dict.Entries {
			names[e.Name] = true
		}
	}
	type key struct {
		name string
		tid  uint32
	}
	stacks := map[key][]int{}
	var spans []span
	used := map[int]bool{}
	for i := range recs {
		r := &recs[i]
		s, open, ok := pairRole(tr.Name(&r.Record), names)
		if !ok {
			continue
		}
		k := key{s, r.TID}
		if open {
			stacks[k] = append(stacks[k], i)
			continue
		}
		st := stacks[k]
		if len(st) == 0 {
			continue // an exit whose enter was before the recording or lost
		}
		j := st[len(st)-1]
		stacks[k] = st[:len(st)-1]
		spans = append(spans, span{name: s, cpu: recs[j].CPU, tid: r.TID, start: recs[j].Ns, end: r.Ns, open: &recs[j], shut: r})
		used[i], used[j] = true, true
	}
	return spans, used
}
