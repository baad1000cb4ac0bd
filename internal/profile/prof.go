package profile

import (
	"errors"
	"fmt"
	"io"
	"strings"
)

// ProfOptions are the choices of the prof view.
type ProfOptions struct {
	Group    Group
	Reverse  bool   // trees start at the leaves and go out to the callers
	Function string // print the callees and callers of this function instead
	MinHits  string // a count or a percentage ("1%") of all samples (weighted); smaller nodes are hidden
	MaxDepth int    // print at most this many levels (0: all)
}

// ErrNotOnStack is the cause of WriteProf's error when no sample has
// ProfOptions.Function on its stack.
var ErrNotOnStack = errors.New("no sample has the function on its stack")

// WriteProf prints the profile as a call tree (OSv's "trace.py prof"),
// under a header with the sample counts, the rate, the leaf fix and the
// stack walks; with Function, the callees and callers of that function.
func WriteProf(w io.Writer, p *Profile, opt ProfOptions) error {
	total := p.Deadlines
	minHits, err := ParseMinHits(opt.MinHits, total)
	if err != nil {
		return err
	}
	topt := TreeOptions{Total: total, MinHits: minHits, MaxDepth: opt.MaxDepth}
	if opt.Function != "" {
		callees, callers, matched := FunctionTrees(p.Samples, opt.Function, opt.Group)
		if matched == 0 {
			return fmt.Errorf("%q: %w (names match whole, or after the last '.' or '/')", opt.Function, ErrNotOnStack)
		}
		fmt.Fprintf(w, "%s\n%s\n\n", p.Summary(), p.Notes())
		fmt.Fprintf(w, "%s on the stack of %d samples (%s); callees:\n", opt.Function, matched, pct(matched, total))
		if err := WriteTree(w, callees, topt); err != nil {
			return err
		}
		fmt.Fprintf(w, "\ncallers:\n")
		return WriteTree(w, callers, topt)
	}
	fmt.Fprintf(w, "%s\n%s\n\n", p.Summary(), p.Notes())
	return WriteTree(w, Tree(p.Samples, opt.Group, opt.Reverse), topt)
}

// Notes says what else a reader of a view should know: the leaf fixes'
// outcomes (at stack[0], and at the thread's pc of samples taken in the
// kernel), the samples taken in the kernel, truncated and stopped walks,
// stack marks out of place.
func (p *Profile) Notes() string {
	parts := []string{"leaf fix off"}
	if !p.NoLeafFix {
		parts = nil
		if fix := fixCounts(&p.Fix); fix != "" {
			parts = append(parts, "leaf fix: "+fix)
		}
		if fix := fixCounts(&p.ThreadFix); fix != "" {
			parts = append(parts, "leaf fix at the thread's pc: "+fix)
		}
	}
	if p.Kernel > 0 {
		how := "frames marked [k]"
		if p.FoldKernel {
			how = "folded into the threads' pcs"
		}
		parts = append(parts, fmt.Sprintf("%d samples in the kernel (%s)", p.Kernel, how))
	}
	if p.Walk.Trunc > 0 {
		parts = append(parts, fmt.Sprintf("%d stacks cut at the depth cap", p.Walk.Trunc))
	}
	if p.Walk.Stop > 0 {
		parts = append(parts, fmt.Sprintf("%d walks stopped by a failed frame check", p.Walk.Stop))
	}
	if p.Walk.NoTrapFrame > 0 && p.NoLeafFix { // else the leaf fix's outcomes count them
		parts = append(parts, fmt.Sprintf("%d samples without an exception frame", p.Walk.NoTrapFrame))
	}
	if p.BadMarks > 0 {
		parts = append(parts, fmt.Sprintf("%d stacks with stack marks out of place", p.BadMarks))
	}
	if p.Throttles > 0 {
		parts = append(parts, fmt.Sprintf("rate changed by THROTTLE records: %d", p.Throttles))
	}
	return strings.Join(parts, "; ")
}

// fixCounts lists the outcomes that happened, "fixed 3, frame linked 2".
func fixCounts(counts *[numFixResults]int) string {
	var fix []string
	for r := FixApplied; r < numFixResults; r++ {
		if counts[r] > 0 {
			fix = append(fix, fmt.Sprintf("%s %d", r, counts[r]))
		}
	}
	return strings.Join(fix, ", ")
}
