package main

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"regexp"
	"strconv"
	"strings"
)

// The Linux guest's console, as linuxinit prints it: sections between
//
//	perfcompare: begin NAME
//	perfcompare: end NAME status=N
//
// Lines outside every section (the kernel's own, perf's warnings before a section) are kept
// under the name "".
type console struct {
	sections map[string][]string
	status   map[string]int
}

var (
	beginRE = regexp.MustCompile(`^perfcompare: begin (\S+)$`)
	endRE   = regexp.MustCompile(`^perfcompare: end (\S+) status=(-?\d+)$`)
	ansiRE  = regexp.MustCompile("\x1b\\[[0-9;]*[A-Za-z]")
)

// parseConsole splits the console into its sections. Carriage returns (the serial line's
// CRLF) and terminal colour codes are removed.
func parseConsole(r io.Reader) (*console, error) {
	c := &console{sections: map[string][]string{}, status: map[string]int{}}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 16<<20)
	cur := ""
	for sc.Scan() {
		line := ansiRE.ReplaceAllString(strings.TrimRight(sc.Text(), "\r"), "")
		if m := beginRE.FindStringSubmatch(line); m != nil {
			cur = m[1]
			c.sections[cur] = []string{}
			continue
		}
		if m := endRE.FindStringSubmatch(line); m != nil && m[1] == cur {
			c.status[cur], _ = strconv.Atoi(m[2])
			cur = ""
			continue
		}
		c.sections[cur] = append(c.sections[cur], line)
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	return c, nil
}

// section returns the lines of a section that ended with status 0.
func (c *console) section(name string) ([]string, error) {
	lines, ok := c.sections[name]
	if !ok {
		return nil, fmt.Errorf("no %q section on the console", name)
	}
	st, ok := c.status[name]
	if !ok {
		return nil, fmt.Errorf("section %q did not end", name)
	}
	if st != 0 {
		return nil, fmt.Errorf("section %q ended with status %d", name, st)
	}
	return lines, nil
}

// kernelBase is where the x86-64 kernel's half of the address space starts: an address at or
// above it is kernel code.
const kernelBase = 0xffff800000000000

// parsePerfScript reads `perf script -F comm,tid,period,ip,sym` output of a recording with
// call chains: a header line per sample ("comm tid period"), then one tab-indented line per
// frame ("ADDRESS SYMBOL", leaf first), then an empty line.
func parsePerfScript(lines []string) (*profile, error) {
	p := &profile{}
	counts := map[string]int{}
	var order []string
	var cur []frame
	in := false
	flush := func() {
		if !in {
			return
		}
		k := stackKey(cur)
		if _, ok := counts[k]; !ok {
			order = append(order, k)
			p.stacks = append(p.stacks, stack{frames: cur})
		}
		counts[k]++
		cur, in = nil, false
	}
	for i, line := range lines {
		switch {
		case strings.TrimSpace(line) == "":
			flush()
		case line[0] == '\t' || line[0] == ' ':
			if !in {
				return nil, fmt.Errorf("line %d: a frame outside a sample: %q", i+1, line)
			}
			addr, sym, ok := strings.Cut(strings.TrimSpace(line), " ")
			if !ok {
				return nil, fmt.Errorf("line %d: no symbol in frame %q", i+1, line)
			}
			a, err := strconv.ParseUint(addr, 16, 64)
			if err != nil {
				return nil, fmt.Errorf("line %d: bad address in frame %q", i+1, line)
			}
			// perf adds " (DSO)" when asked for it; it is not asked, but a symbol has no space.
			sym, _, _ = strings.Cut(strings.TrimSpace(sym), " ")
			name, _ := cleanName(sym)
			cur = append(cur, frame{name: name, kernel: a >= kernelBase})
		default:
			flush()
			if len(strings.Fields(line)) < 3 {
				return nil, fmt.Errorf("line %d: not a sample header (comm tid period): %q", i+1, line)
			}
			in = true
		}
	}
	flush()
	for i, k := range order {
		p.stacks[i].count = counts[k]
	}
	if len(p.stacks) == 0 {
		return nil, errors.New("no samples")
	}
	return p, nil
}

func stackKey(fr []frame) string {
	var b strings.Builder
	for _, f := range fr {
		b.WriteString(f.name)
		if f.kernel {
			b.WriteString("[k]")
		}
		b.WriteByte(';')
	}
	return b.String()
}

// report is the header and the top-level entries of `perf report --stdio`.
type report struct {
	lost    int    // "# Total Lost Samples: N"
	event   string // "# Samples: 4K of event 'cpu-clock:ppp'"
	entries map[string]reportEntry
}

// reportEntry is one symbol's line: with --children two percentages (children, self), with
// --no-children one (self). kind is perf's '.' (user), 'k' (kernel) or another letter.
type reportEntry struct {
	children, self float64
	kind           byte
}

var (
	entryRE = regexp.MustCompile(`^\s*(\d+\.\d+)%\s+(?:(\d+\.\d+)%\s+)?\[(.)\]\s+(\S.*?)\s*$`)
	lostRE  = regexp.MustCompile(`^# Total Lost Samples: (\d+)`)
	eventRE = regexp.MustCompile(`^# Samples: \S+ of event '([^']*)'`)
)

// parsePerfReport reads one `perf report --stdio --sort sym` output. The call graphs under each
// entry are skipped. children says whether the report was made with --children.
func parsePerfReport(lines []string, children bool) (*report, error) {
	r := &report{entries: map[string]reportEntry{}}
	seenLost := false
	for _, line := range lines {
		if m := lostRE.FindStringSubmatch(line); m != nil {
			r.lost, _ = strconv.Atoi(m[1])
			seenLost = true
			continue
		}
		if m := eventRE.FindStringSubmatch(line); m != nil {
			r.event = m[1]
			continue
		}
		m := entryRE.FindStringSubmatch(line)
		if m == nil {
			continue
		}
		first, _ := strconv.ParseFloat(m[1], 64)
		e := reportEntry{self: first, kind: m[3][0]}
		if children {
			if m[2] == "" {
				return nil, fmt.Errorf("entry %q has one percentage, want children and self", strings.TrimSpace(line))
			}
			e.children = first
			e.self, _ = strconv.ParseFloat(m[2], 64)
		} else if m[2] != "" {
			return nil, fmt.Errorf("entry %q has two percentages: a --children report", strings.TrimSpace(line))
		}
		name, _ := cleanName(m[4])
		old := r.entries[name]
		// Two symbols can clean to one name (main.f and main.f.abi0): add them up.
		e.children += old.children
		e.self += old.self
		r.entries[name] = e
	}
	if !seenLost || len(r.entries) == 0 {
		return nil, errors.New("not a perf report: no \"Total Lost Samples\" header or no entries")
	}
	return r, nil
}

// kernelSelf is the share of samples (percent) whose leaf is a kernel symbol.
func (r *report) kernelSelf() float64 {
	t := 0.0
	for _, e := range r.entries {
		if e.kind == 'k' {
			t += e.self
		}
	}
	return t
}

var chunksRE = regexp.MustCompile(`Processed \d+ events and lost (\d+) chunks`)

// lostChunks returns how many ring-buffer chunks perf says it lost (its "Processed N events and
// lost M chunks!" warning), 0 when it says nothing.
func lostChunks(lines []string) int {
	n := 0
	for _, l := range lines {
		if m := chunksRE.FindStringSubmatch(l); m != nil {
			c, _ := strconv.Atoi(m[1])
			n = max(n, c)
		}
	}
	return n
}

var recordRE = regexp.MustCompile(`^\[ perf record: Captured and wrote .* \((\d+) samples\) \]`)

// recordSamples returns the sample count perf record printed when it wrote the recording, or
// -1 when it printed none.
func recordSamples(lines []string) int {
	for _, l := range lines {
		if m := recordRE.FindStringSubmatch(l); m != nil {
			n, _ := strconv.Atoi(m[1])
			return n
		}
	}
	return -1
}
