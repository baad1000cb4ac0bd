package probes

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/unitrace/unitrace/internal/tracefile"
	"github.com/unitrace/unitrace/probe"
	"github.com/unitrace/unitrace/trace/record"
)

// A recording's probe hits, named from the image and paired: each return with the entry of the
// same call. A call is named by its goroutine (its thread, for kernel code with none) and its
// frame's distance from the top of its stack: Go copies a growing stack keeping that distance,
// so it names the call across a move, and it tells a recursion's calls apart. The frame is
// found from the hit's stack pointer and the image's SP delta at the site: the stack pointer
// the function was entered with, at an entry site after the prologue's pushes and at a return.

// Hit is one PROBE record, decoded and named.
type Hit struct {
	Index  int // in the records Analyze was given
	Rec    *tracefile.Rec
	P      record.Probe
	Func   string
	Return bool
	// Inlined marks a hit at the start of a body the compiler inlined into Caller: its
	// arguments are wherever the caller's code keeps them, not in the ABI's registers.
	Inlined bool
	Caller  string
	// Paired is set on a return matched with its call's entry, and on that entry; Latency is
	// the time between them (on both).
	Paired  bool
	Latency time.Duration
	Entry   int // a paired return's entry, in the hits Analyze returns
}

// Stats sums the hits of one function's entries or returns.
type Stats struct {
	Func   string
	Return bool
	Hits   int
	// Latencies are the paired returns' (sorted). For returns, NoEntry counts those with no
	// entry (a call that began before the probe was armed, or a function whose entry could not
	// be probed) and NoReturn the calls seen entering whose return was not seen (a panic, a
	// return after the probe was removed, or a call still running at the end).
	Latencies []time.Duration
	NoEntry   int
	NoReturn  int
}

// Name is the probe's name as a spec writes it.
func (s *Stats) Name() string {
	if s.Return {
		return s.Func + ReturnSuffix
	}
	return s.Func
}

// callKey names a call's frame.
type callKey struct {
	entry uint64 // the function
	who   uint64 // goroutine id, or 1<<63 | thread id
}

type openCall struct {
	depth uint64 // stack top minus entry stack pointer (the entry stack pointer, stack unknown)
	hit   int    // index in hits
}

// Analyze decodes the PROBE records among recs, names them from im, pairs returns with
// entries and sums them per function and kind (sorted by name, entries first).
func Analyze(recs []tracefile.Rec, im *Image) ([]Hit, []*Stats) {
	var hits []Hit
	open := map[callKey][]openCall{}
	stats := map[string]*Stats{}
	stat := func(name string, ret bool) *Stats {
		k := name
		if ret {
			k += ReturnSuffix
		}
		s := stats[k]
		if s == nil {
			s = &Stats{Func: name, Return: ret}
			stats[k] = s
		}
		return s
	}
	for i := range recs {
		p, ok := recs[i].Probe()
		if !ok {
			continue
		}
		h := Hit{Index: i, Rec: &recs[i], P: p, Return: p.Kind == uint8(probe.KindReturn), Func: fmt.Sprintf("%#x", p.PC)}
		f, known := im.FuncAt(p.PC)
		inlined := false
		if name, inl, ok := im.NameAt(p.PC); ok {
			h.Func, inlined = name, inl
		} else if known {
			h.Func = f.Name
		}
		if inlined {
			h.Inlined, h.Caller = true, f.Name
		}
		hits = append(hits, h)
		hi := len(hits) - 1
		s := stat(h.Func, h.Return)
		if probe.Kind(p.Kind) != probe.KindCallEntry {
			s.Hits++ // a return probe's entry is no entry probe's hit
		}
		delta, ok := im.SPDelta(p.PC)
		if !known || !ok || inlined {
			continue // an inlined body has no return to pair with
		}
		sp0 := p.SP + uint64(delta)
		key := callKey{entry: f.Entry, who: p.Goid}
		if p.Goid == 0 {
			key.who = 1<<63 | uint64(recs[i].TID)
		}
		depth := ^sp0 // deeper calls have lower stack pointers: larger depths
		if p.StackHi != 0 {
			depth = p.StackHi - sp0
		}
		stack := open[key]
		if !h.Return {
			// A call at this depth means that the calls seen at it or deeper have ended, their
			// returns unseen (a panic, or a return before the probe was armed).
			for len(stack) > 0 && stack[len(stack)-1].depth >= depth {
				stack = stack[:len(stack)-1]
			}
			open[key] = append(stack, openCall{depth: depth, hit: hi})
			continue
		}
		// Calls deeper than this one that are still open never returned (a panic unwound
		// them); a call at this depth is the one returning.
		for len(stack) > 0 && stack[len(stack)-1].depth > depth {
			stack = stack[:len(stack)-1]
		}
		if n := len(stack); n > 0 && stack[n-1].depth == depth {
			e := &hits[stack[n-1].hit]
			lat := time.Duration(recs[i].Ns - e.Rec.Ns)
			hits[hi].Paired, hits[hi].Latency, hits[hi].Entry = true, lat, stack[n-1].hit
			e.Paired, e.Latency = true, lat
			s.Latencies = append(s.Latencies, lat)
			stack = stack[:n-1]
		} else {
			s.NoEntry++
		}
		open[key] = stack
	}
	for i := range hits {
		if r := stats[hits[i].Func+ReturnSuffix]; r != nil && !hits[i].Return && !hits[i].Paired {
			r.NoReturn++ // its returns were probed, and this call's never came
		}
	}
	out := make([]*Stats, 0, len(stats))
	for _, s := range stats {
		if !s.Return && s.Hits == 0 {
			continue // the entries of return probes alone
		}
		slices.Sort(s.Latencies)
		out = append(out, s)
	}
	slices.SortFunc(out, func(a, b *Stats) int { return strings.Compare(a.Name(), b.Name()) })
	return hits, out
}

// Format renders hit i of hits as a call: main.target(i=5, s="abc") for an entry,
// main.target(i=5, s="abc") = 17 in 3.2µs for a return (its entry's arguments when it was
// paired, else "(...)").
func (im *Image) Format(hits []Hit, i int) string {
	h := &hits[i]
	var entry *Hit
	if h.Return && h.Paired {
		entry = &hits[h.Entry]
	}
	if h.Inlined {
		return fmt.Sprintf("%s(...) inlined into %s", h.Func, h.Caller)
	}
	ps := im.Params(h.Func, len(h.P.Ints), len(h.P.Float))
	var b strings.Builder
	b.WriteString(h.Func)
	args := h
	if h.Return {
		args = entry
	}
	if args != nil && ps != nil {
		b.WriteByte('(')
		n := 0
		for _, p := range ps {
			if p.Result {
				continue
			}
			if n > 0 {
				b.WriteString(", ")
			}
			n++
			fmt.Fprintf(&b, "%s=%s", displayName(p.Name, n), im.FormatValue(p, args.P.Ints, args.P.Float, args.P.Strings))
		}
		b.WriteByte(')')
	} else {
		b.WriteString("(...)")
	}
	if !h.Return {
		return b.String()
	}
	var res []string
	for _, p := range ps {
		if p.Result {
			res = append(res, im.FormatValue(p, h.P.Ints, h.P.Float, h.P.Strings))
		}
	}
	switch {
	case ps == nil && len(h.P.Ints) > 0:
		fmt.Fprintf(&b, " = %#x", h.P.Ints[0])
	case len(res) == 1:
		b.WriteString(" = " + res[0])
	case len(res) > 1:
		b.WriteString(" = (" + strings.Join(res, ", ") + ")")
	}
	if h.Paired {
		fmt.Fprintf(&b, " in %v", h.Latency)
	}
	return b.String()
}

// displayName is a parameter's name, or argN for an unnamed one.
func displayName(name string, n int) string {
	if name == "" || name == "_" {
		return fmt.Sprintf("arg%d", n)
	}
	return name
}
