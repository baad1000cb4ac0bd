package main

import (
	"flag"
	"fmt"
	"io"
	"regexp"
	"strings"

	"github.com/unitrace/unitrace/internal/tracefile"
	"github.com/unitrace/unitrace/trace/ctl"
	"github.com/unitrace/unitrace/trace/record"
)

const listDoc = `Print a recording's records, merged across CPUs by time, one per line:
time since boot (s), CPU, thread, tracepoint and arguments. A dynamic
probe's hit is shown as the call, named from the image's DWARF:
main.target(i=5, s="abc") at an entry, main.target(i=5, s="abc") = 17 in 3.2µs
at a return paired with its entry. -b adds each
record's backtrace, symbolized with inline frames from the image that made
the recording (from the HOST frame, or -elf); the image's GNU build id must
match the recording's unless -force.
`

var listCommand = command{
	name:     "list",
	synopsis: "[-t GLOBS] [-cpu N] [-tid N] [-since D] [-until D] [-b] [-elf ELF] [-force] FILE",
	summary:  "print a recording's records in time order",
	doc:      listDoc,
	setup:    listSetup,
}

func listSetup(fs *flag.FlagSet) func(std stdio, args []string) error {
	tps := fs.String("t", "", "only tracepoints matching these globs (comma-separated)")
	cpu := fs.Int("cpu", -1, "only this CPU")
	tid := fs.Int64("tid", -1, "only this thread")
	var since, until durationFlag
	fs.Var(&since, "since", "only records at or after this time since boot (e.g. 1.5s)")
	fs.Var(&until, "until", "only records before this time since boot")
	bt := fs.Bool("b", false, "show symbolized backtraces")
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
		var im *tracefile.Image
		if *bt {
			if im, err = tracefile.OpenFor(img.elf, tr.Host, tr.Hello, img.force); err != nil {
				return err
			}
		}
		f := recordFilter{globs: globs(*tps), cpu: *cpu, tid: *tid, since: since, until: until}
		recs := tr.Merged()
		var pv *probeView
		if hasProbes(tr) {
			if pv, err = openProbeView(img, tr, recs); err != nil {
				fmt.Fprintf(std.err, "%s: probe hits shown raw: %v\n", fs.Name(), err)
			}
		}
		listTrace(std.out, tr, recs, f, im, pv)
		return nil
	}
}

// recordFilter selects records by tracepoint, CPU, thread and time.
type recordFilter struct {
	globs        []string
	cpu          int
	tid          int64
	since, until durationFlag
}

func (f *recordFilter) match(tr *tracefile.Trace, r *tracefile.Rec) bool {
	if f.cpu >= 0 && int(r.CPU) != f.cpu || f.tid >= 0 && int64(r.TID) != f.tid {
		return false
	}
	if f.since.set && r.Ns < f.since.d.Nanoseconds() || f.until.set && r.Ns >= f.until.d.Nanoseconds() {
		return false
	}
	if len(f.globs) == 0 {
		return true
	}
	name := tr.Name(&r.Record)
	for _, g := range f.globs {
		if ctl.Match([]byte(g), name) {
			return true
		}
	}
	return false
}

func listTrace(w io.Writer, tr *tracefile.Trace, recs []tracefile.Rec, f recordFilter, im *tracefile.Image, pv *probeView) {
	for i, r := range recs {
		if !f.match(tr, &r) {
			continue
		}
		args := tr.Args(&r.Record)
		if t, ok := pv.call(i); ok {
			args = t
		}
		fmt.Fprintf(w, "%s %3d %5d %-16s %s\n", formatNs(r.Ns), r.CPU, r.TID, tr.Name(&r.Record), args)
		if im != nil && len(r.Stack) > 0 {
			writeBacktrace(w, im, &r.Record)
		}
	}
}

// writeBacktrace prints a record's stack, innermost first, one logical
// frame per line (inlined frames included), with the record's walk flags.
// A stack mark, where a trap saved the context below, is a separator line
// that says whose context follows; the word after it is the instruction the
// trap interrupted, symbolized as it is.
func writeBacktrace(w io.Writer, im *tracefile.Image, r *record.Record) {
	for i, pc := range r.Stack {
		if name := record.StackMarkName(pc); name != "" {
			fmt.Fprintf(w, "    --- %s ---\n", name)
			continue
		}
		exact := record.ExactAt(r.Stack, i, r.Flags)
		frames := im.Frames(pc, exact)
		if i == 0 {
			frames = dropEmitFrames(frames)
			if len(frames) == 0 {
				continue // an Emit built without inlining: its caller is the next pc
			}
		}
		for _, fr := range frames {
			inl := ""
			if fr.Inlined {
				inl = " (inlined)"
			}
			pos := ""
			if fr.File != "" {
				pos = fmt.Sprintf(" %s:%d", fr.File, fr.Line)
			}
			fmt.Fprintf(w, "    %#x %s%s%s\n", pc, fr.Func, inl, pos)
		}
	}
	var notes []string
	if r.Flags&record.StackTrunc != 0 {
		notes = append(notes, "truncated at the depth cap")
	}
	if r.Flags&record.WalkStop != 0 {
		notes = append(notes, "walk stopped by a failed frame check")
	}
	if len(notes) > 0 {
		fmt.Fprintf(w, "    [%s]\n", strings.Join(notes, "; "))
	}
}

// emitEntry names the tracepoint entry points (trace.Point.Emit0 ... Emit4). They are inlined into
// every tracepoint site, so the first return address of a tracepoint's backtrace, in the site's
// function, also resolves to the inlined entry point: the tracepoint's own plumbing, not a
// caller, which the backtrace leaves out. Built without inlining, the entry point is a frame of
// its own, and the whole first pc goes.
var emitEntry = regexp.MustCompile(`^github\.com/unitrace/unitrace/trace\.\(\*Point\)\.Emit[0-4]$`)

// dropEmitFrames drops the tracepoint entry points that frames, one pc's logical frames innermost
// first, start with.
func dropEmitFrames(frames []tracefile.Frame) []tracefile.Frame {
	for len(frames) > 0 && emitEntry.MatchString(frames[0].Func) {
		frames = frames[1:]
	}
	return frames
}
