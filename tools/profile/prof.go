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
	MinHits  string // a count or a percentage ("1%") of all samples; smaller nodes are hidden
	MaxDepth int    // print at most this many levels (0: all)
}

// ErrNotOnStack is the cause of WriteProf's error when no sample has
// ProfOptions.Function on its stack.
var ErrNotOnStack = errors.New("no sample has the function on its stack")

// WriteProf prints the profile as a call tree (OSv's "trace.py prof"),
// under a header with the sample counts, the rate, the leaf fix and the
// stack walks; with Function, the callees and callers of that function.
func WriteProf(w io.Writer, p *Profile, opt ProfOptions) error {
	total := len(p.Samples)
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

// Notes says what else a reader of a view should know: the leaf fix's
// outcomes, truncated and stopped walks.
func (p *Profile) Notes() string {
	parts := []string{"leaf fix off"}
	if p.Fix[FixOff] == 0 {
		parts = nil
		var fix []string
		for r := FixApplied; r < numFixResults; r++ {
			if p.Fix[r] > 0 {
				fix = append(fix, fmt.Sprintf("%s %d", r, p.Fix[r]))
			}
		}
		if len(fix) > 0 {
			parts = append(parts, "leaf fix: "+strings.Join(fix, ", "))
		}
	}
	if p.Walk.Trunc > 0 {
		parts = append(parts, fmt.Sprintf("%d stacks cut at the depth cap", p.Walk.Trunc))
	}
	if p.Walk.Stop > 0 {
		parts = append(parts, fmt.Sprintf("%d walks stopped by a failed frame check", p.Walk.Stop))
	}
	if p.Walk.NoTrapFrame > 0 && p.Fix[FixOff] > 0 { // else the leaf fix's outcomes count them
		parts = append(parts, fmt.Sprintf("%d samples without an exception frame", p.Walk.NoTrapFrame))
	}
	if p.Throttles > 0 {
		parts = append(parts, fmt.Sprintf("rate changed by THROTTLE records: %d", p.Throttles))
	}
	return strings.Join(parts, "; ")
}
