package threadsnap

import (
	"bufio"
	"fmt"
	"io"
	"strings"

	"github.com/unitrace/unitrace/trace/record"
)

// Format prints the snapshot: one line per CPU, then one block per thread (a header line and
// its stack, innermost first, one line per logical frame), then the CPUs that did not answer.
//
//	cpu 0: running tid 1 gen 1
//	cpu 1: idle
//	cpu 2: running tid 9 gen 1 (captured by IPI)
//	thread 9 gen 1: running on cpu 2 (captured by IPI)
//	  0x4a1b20 main.spin+0x10  /x/main.go:40
//	  0x4a1c00 main.worker+0x44  /x/main.go:52
//	thread 12 gen 1: never-run (created, not yet scheduled; no stack)
//
// Without Symbolize the stack lines hold the addresses only.
func Format(w io.Writer, s *Snapshot) error {
	bw := bufio.NewWriter(w)
	threads := make(map[[2]uint32]bool, len(s.Threads))
	for _, t := range s.Threads {
		threads[[2]uint32{uint32(t.TID), t.Gen}] = true
	}
	for i := range s.CPUs {
		c := &s.CPUs[i]
		fmt.Fprintf(bw, "cpu %d: %s\n", c.CPU, cpuLine(c))
		// A CPU's own context matters only when no thread entry shows it.
		if c.TID == 0 || !threads[[2]uint32{uint32(c.TID), c.Gen}] {
			writeStack(bw, s, c, false)
		}
	}
	for i := range s.Threads {
		t := &s.Threads[i]
		fmt.Fprintf(bw, "thread %d gen %d: %s\n", t.TID, t.Gen, threadLine(t))
		writeStack(bw, s, t, t.State != "never-run")
	}
	if len(s.Unanswered) > 0 {
		cpus := make([]string, len(s.Unanswered))
		for i, c := range s.Unanswered {
			cpus[i] = fmt.Sprint(c)
		}
		fmt.Fprintf(bw, "did not answer the capture IPI: cpu %s\n", strings.Join(cpus, ", "))
	}
	return bw.Flush()
}

func cpuLine(c *Entry) string {
	who := fmt.Sprintf("tid %d gen %d", c.TID, c.Gen)
	var line string
	switch c.State {
	case "idle", "halted":
		line = c.State
	case "running":
		line = "running " + who
	case "in-kernel":
		line = "in the kernel for " + who
	case "no-answer":
		line = "did not answer the capture IPI"
		if c.TID != 0 {
			line += " (was running " + who + ")"
		}
	default:
		line = c.State
		if c.TID != 0 {
			line += " " + who
		}
	}
	return line + captured(c)
}

func threadLine(t *Entry) string {
	on := ""
	if t.CPU >= 0 {
		on = fmt.Sprintf(" on cpu %d", t.CPU)
	}
	var line string
	switch t.State {
	case "never-run":
		return "never-run (created, not yet scheduled; no stack)"
	case "running":
		line = "running" + on
	case "in-kernel":
		line = "in the kernel" + on
	case "no-answer":
		line = "running" + on + ", which did not answer the capture IPI"
	case "runnable", "blocked":
		line = t.State
		if t.Wait != "" {
			line += " (" + t.Wait + ")"
		}
		if t.CPU >= 0 {
			line += fmt.Sprintf(", last ran on cpu %d", t.CPU)
		}
	default:
		line = t.State + on
		if t.Wait != "" {
			line += " (" + t.Wait + ")"
		}
	}
	return line + captured(t)
}

func captured(e *Entry) string {
	if e.ByIPI {
		return " (captured by IPI)"
	}
	return ""
}

// writeStack prints an entry's stack and how its walk ended; want says an entry without one
// is worth a line saying so.
func writeStack(w io.Writer, s *Snapshot, e *Entry, want bool) {
	if e.PC == 0 && len(e.Frames) == 0 {
		if want {
			fmt.Fprintf(w, "  (no stack captured)\n")
		}
		return
	}
	if s.Symbolized {
		for _, wd := range e.Stack {
			if wd.Signal {
				fmt.Fprintf(w, "  %s\n", signalLine)
			}
			for _, f := range wd.Frames {
				mark := ""
				if wd.Kernel {
					mark = "  [kernel]"
				}
				fmt.Fprintf(w, "  %#x %s%s\n", wd.PC, frameText(f, wd), mark)
			}
		}
	} else {
		for _, pc := range e.KernelFrames {
			fmt.Fprintf(w, "  %#x  [kernel]\n", pc)
		}
		if e.PC != 0 {
			fmt.Fprintf(w, "  %#x\n", e.PC)
		}
		for _, pc := range e.Frames {
			switch pc {
			case record.StackMarkSignal:
				fmt.Fprintf(w, "  %s\n", signalLine)
				continue
			case record.StackMarkTable:
				continue // (the raw view shows addresses only)
			}
			fmt.Fprintf(w, "  %#x\n", pc)
		}
	}
	var notes []string
	if e.Truncated {
		notes = append(notes, "truncated at the depth cap")
	}
	if e.WalkStop {
		notes = append(notes, "walk stopped by a failed frame check")
	}
	if e.NoWalk {
		notes = append(notes, "no frame-pointer walk")
	}
	if len(notes) > 0 {
		fmt.Fprintf(w, "  [%s]\n", strings.Join(notes, "; "))
	}
}

// signalLine stands between a signal handler's frames and those of the code it interrupted.
const signalLine = "(interrupted by a signal:)"

// frameText is "func+0xoff  file:line", "func (inlined)  file:line" or "?".
func frameText(f Frame, wd Word) string {
	var b strings.Builder
	b.WriteString(f.Func)
	switch {
	case f.Inlined:
		b.WriteString(" (inlined)")
	case f.Known:
		fmt.Fprintf(&b, "+%#x", f.Offset)
	}
	switch {
	case wd.Recovered:
		b.WriteString(" (caller of a frameless leaf, from the pclntab)")
	case wd.Table:
		b.WriteString(" (from the SP-delta tables)")
	}
	if f.File != "" {
		fmt.Fprintf(&b, "  %s:%d", f.File, f.Line)
	}
	return b.String()
}
