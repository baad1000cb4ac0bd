package pprofcmp

import (
	"cmp"
	"fmt"
	"io"
	"maps"
	"math"
	"slices"
	"strings"
)

// Row is one function's shares in two profiles, in percent; InA or InB is false when that
// profile has no kept sample with it, and its share is then 0.
type Row struct {
	Func     string
	A, B     float64
	InA, InB bool
}

// Diff is B's share less A's, in percentage points.
func (r Row) Diff() float64 { return r.B - r.A }

// Top returns the n functions with the largest share in either profile (the larger of their
// two shares), largest first, ties in name order; n <= 0: all of them.
func Top(a, b *Shares, n int) []Row {
	names := map[string]bool{}
	for fn := range a.ByFunc {
		names[fn] = true
	}
	for fn := range b.ByFunc {
		names[fn] = true
	}
	rows := make([]Row, 0, len(names))
	for _, fn := range slices.Sorted(maps.Keys(names)) {
		r := Row{Func: fn}
		r.A, r.InA = a.Share(fn)
		r.B, r.InB = b.Share(fn)
		rows = append(rows, r)
	}
	slices.SortStableFunc(rows, func(x, y Row) int { return cmp.Compare(max(y.A, y.B), max(x.A, x.B)) })
	if n > 0 && len(rows) > n {
		rows = rows[:n]
	}
	return rows
}

// MaxDiff is the row whose shares differ the most, and by how many points (0 and false for no
// rows).
func MaxDiff(rows []Row) (Row, float64, bool) {
	var worst Row
	d, found := -1.0, false
	for _, r := range rows {
		if ad := math.Abs(r.Diff()); ad > d {
			worst, d, found = r, ad, true
		}
	}
	return worst, max(d, 0), found
}

// Named is a profile's shares and the name it goes by in the table (its file).
type Named struct {
	Name string
	*Shares
}

// Format writes the comparison: one line for each profile (its name, samples, duration, the
// value shared out, how many samples the options kept), then the table of rows.
func Format(out io.Writer, a, b Named, rows []Row, opt Options) error {
	var w strings.Builder
	kind := "flat"
	if opt.Cum {
		kind = "cumulative"
	}
	var sel []string
	if opt.FoldKernel {
		sel = append(sel, "kernel frames folded into the thread's")
	}
	if opt.Focus != nil {
		sel = append(sel, "focus '"+opt.Focus.String()+"'")
	}
	if opt.Ignore != nil {
		sel = append(sel, "ignore '"+opt.Ignore.String()+"'")
	}
	if len(sel) == 0 {
		sel = append(sel, "all samples")
	}
	fmt.Fprintf(&w, "%s shares of each profile's value, in percent (%s)\n", kind, strings.Join(sel, ", "))
	for _, p := range []struct {
		tag string
		Named
	}{{"A", a}, {"B", b}} {
		dur := "duration unknown"
		if p.Duration > 0 {
			dur = fmt.Sprintf("%.2fs", p.Duration.Seconds())
		}
		fmt.Fprintf(&w, "%s: %s: %d samples, %s, value %s, %d samples kept\n", p.tag, p.Name, p.Samples, dur, p.Value, p.Kept)
	}
	width := len("function")
	for _, r := range rows {
		width = max(width, len(r.Func))
	}
	share := func(v float64, in bool) string {
		if !in {
			return "-"
		}
		return fmt.Sprintf("%.1f%%", v)
	}
	fmt.Fprintf(&w, "%-*s  %7s  %7s  %7s\n", width, "function", "A", "B", "B-A")
	for _, r := range rows {
		d := math.Round(r.Diff()*10) / 10
		if d == 0 {
			d = 0 // not -0.0
		}
		fmt.Fprintf(&w, "%-*s  %7s  %7s  %+7.1f\n", width, r.Func, share(r.A, r.InA), share(r.B, r.InB), d)
	}
	_, err := io.WriteString(out, w.String())
	return err
}
