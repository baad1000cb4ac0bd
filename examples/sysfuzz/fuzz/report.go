package fuzz

import (
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"
)

// OK is the result of a call that succeeded.
const OK = "ok"

// Stat is what one system call gave over a run.
type Stat struct {
	Calls, OK uint64
	Errnos    map[string]uint64 // by errno name ("EBADF")
}

// Report holds a Stat per system call name. The zero value is empty and ready.
type Report struct {
	m map[string]*Stat
}

// Add counts one call of name with result: OK or an errno's name.
func (r *Report) Add(name, result string) {
	if r.m == nil {
		r.m = map[string]*Stat{}
	}
	s := r.m[name]
	if s == nil {
		s = &Stat{Errnos: map[string]uint64{}}
		r.m[name] = s
	}
	s.Calls++
	if result == OK {
		s.OK++
	} else {
		s.Errnos[result]++
	}
}

// Merge adds o's counts to r.
func (r *Report) Merge(o *Report) {
	for name, s := range o.m {
		for range s.OK {
			r.Add(name, OK)
		}
		for e, n := range s.Errnos {
			for range n {
				r.Add(name, e)
			}
		}
	}
}

// Get returns name's Stat, or nil.
func (r *Report) Get(name string) *Stat { return r.m[name] }

// Names returns the calls made, sorted.
func (r *Report) Names() []string {
	var ns []string
	for n := range r.m {
		ns = append(ns, n)
	}
	sort.Strings(ns)
	return ns
}

// Total is the number of calls made.
func (r *Report) Total() uint64 {
	var t uint64
	for _, s := range r.m {
		t += s.Calls
	}
	return t
}

// Lines returns the report as text, one line per call, sorted by name:
//
//	stat read calls=120 ok=40 EBADF=50 EFAULT=30
//
// errnos sorted by name.
func (r *Report) Lines() []string {
	var out []string
	for _, n := range r.Names() {
		s := r.m[n]
		l := fmt.Sprintf("stat %s calls=%d ok=%d", n, s.Calls, s.OK)
		var es []string
		for e := range s.Errnos {
			es = append(es, e)
		}
		sort.Strings(es)
		for _, e := range es {
			l += fmt.Sprintf(" %s=%d", e, s.Errnos[e])
		}
		out = append(out, l)
	}
	return out
}

// CallLine is the line the deterministic mode prints for call i: "call 12 read EBADF".
func CallLine(i uint64, name, result string) string {
	return fmt.Sprintf("call %d %s %s", i, name, result)
}

// Log is a run's output, parsed: its report and, in the deterministic mode, each call's result.
type Log struct {
	Report Report
	Calls  map[uint64]Result
}

// Result is one call's name and result.
type Result struct{ Name, Result string }

// Parse reads the stat and call lines of a run's output (other lines, such as the kernel's or
// a console prefix before "stat"/"call", are skipped).
func Parse(lines []string) (*Log, error) {
	l := &Log{Calls: map[uint64]Result{}}
	for _, line := range lines {
		line = strings.TrimRight(line, "\r")
		f := strings.Fields(line)
		if len(f) == 0 {
			continue
		}
		switch f[0] {
		case "stat":
			if len(f) < 4 {
				return nil, fmt.Errorf("short stat line %q", line)
			}
			name := f[1]
			var calls, ok uint64
			errs := map[string]uint64{}
			for _, kv := range f[2:] {
				k, v, found := strings.Cut(kv, "=")
				n, err := strconv.ParseUint(v, 10, 64)
				if !found || err != nil {
					return nil, fmt.Errorf("bad field %q in %q", kv, line)
				}
				switch k {
				case "calls":
					calls = n
				case "ok":
					ok = n
				default:
					errs[k] = n
				}
			}
			sum := ok
			for _, n := range errs {
				sum += n
			}
			if sum != calls {
				return nil, fmt.Errorf("%q: ok and errnos add up to %d, not %d", line, sum, calls)
			}
			for range ok {
				l.Report.Add(name, OK)
			}
			for e, n := range errs {
				for range n {
					l.Report.Add(name, e)
				}
			}
		case "call":
			if len(f) != 4 {
				return nil, fmt.Errorf("bad call line %q", line)
			}
			i, err := strconv.ParseUint(f[1], 10, 64)
			if err != nil {
				return nil, fmt.Errorf("bad call line %q", line)
			}
			l.Calls[i] = Result{f[2], f[3]}
		}
	}
	return l, nil
}

// Difference is, for one call, the results only one side gave, and (from the per-call lines of
// the deterministic mode) each pair of results the two sides gave for the same call index, with
// how often and the first index.
type Difference struct {
	Name      string
	OnlyA     []string // results (OK or errnos) only side A gave for this call
	OnlyB     []string
	Pairs     []Pair // same index, different results
	CallsA    uint64
	CallsB    uint64
	MatchSame uint64 // indices where both gave the same result
}

// Pair is one combination of different results at the same call index.
type Pair struct {
	A, B  string
	Count int
	First uint64
}

// Compare returns the calls on which runs a and b differ: a result only one gives, or (when
// both have per-call lines) a call index where they give different results. Sorted by name.
func Compare(a, b *Log) []Difference {
	names := map[string]bool{}
	for _, n := range a.Report.Names() {
		names[n] = true
	}
	for _, n := range b.Report.Names() {
		names[n] = true
	}
	pairs := map[string]map[[2]string]*Pair{}
	same := map[string]uint64{}
	for i, ra := range a.Calls {
		rb, ok := b.Calls[i]
		if !ok || rb.Name != ra.Name {
			continue
		}
		if ra.Result == rb.Result {
			same[ra.Name]++
			continue
		}
		m := pairs[ra.Name]
		if m == nil {
			m = map[[2]string]*Pair{}
			pairs[ra.Name] = m
		}
		k := [2]string{ra.Result, rb.Result}
		p := m[k]
		if p == nil {
			p = &Pair{A: ra.Result, B: rb.Result, First: i}
			m[k] = p
		}
		p.Count++
		p.First = min(p.First, i)
	}
	var out []Difference
	for n := range names {
		sa, sb := a.Report.Get(n), b.Report.Get(n)
		d := Difference{Name: n, OnlyA: only(sa, sb), OnlyB: only(sb, sa), MatchSame: same[n]}
		if sa != nil {
			d.CallsA = sa.Calls
		}
		if sb != nil {
			d.CallsB = sb.Calls
		}
		for _, p := range pairs[n] {
			d.Pairs = append(d.Pairs, *p)
		}
		slices.SortFunc(d.Pairs, func(x, y Pair) int { return int(x.First) - int(y.First) })
		if len(d.OnlyA)+len(d.OnlyB)+len(d.Pairs) > 0 {
			out = append(out, d)
		}
	}
	slices.SortFunc(out, func(x, y Difference) int { return strings.Compare(x.Name, y.Name) })
	return out
}

// only lists the results s gave that o never did.
func only(s, o *Stat) []string {
	if s == nil {
		return nil
	}
	var out []string
	if s.OK > 0 && (o == nil || o.OK == 0) {
		out = append(out, OK)
	}
	for e := range s.Errnos {
		if o == nil || o.Errnos[e] == 0 {
			out = append(out, e)
		}
	}
	sort.Strings(out)
	return out
}

// FormatDifferences prints ds as a table with the two sides named a and b.
func FormatDifferences(ds []Difference, a, b string) []string {
	out := []string{fmt.Sprintf("%-18s %7s %7s  %-24s %-24s %s", "call", a, b, "only "+a, "only "+b, "same index, "+a+" vs "+b+" (count, first index)")}
	for _, d := range ds {
		var ps []string
		for _, p := range d.Pairs {
			ps = append(ps, fmt.Sprintf("%s/%s (%d, #%d)", p.A, p.B, p.Count, p.First))
		}
		out = append(out, fmt.Sprintf("%-18s %7d %7d  %-24s %-24s %s", d.Name, d.CallsA, d.CallsB,
			dash(strings.Join(d.OnlyA, ",")), dash(strings.Join(d.OnlyB, ",")), dash(strings.Join(ps, " "))))
	}
	return out
}

func dash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}
