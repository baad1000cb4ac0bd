package main

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"
)

// table is the comparison: a row per workload, plus the boot rows.
type table struct {
	rows []row
}

type row struct {
	name, unit    string
	uni, lin      []float64 // per round
	ratios        []float64 // per round: uni/lin
	linuxRowLabel string    // for the microvm boot row: what it is compared with
}

// tabulate pairs the rounds: results[0] is unitrace on the machine, results[1] Linux on it,
// results[2] (with microvm) unitrace on microvm.
func tabulate(results [][]result, machine string, microvm bool) table {
	var t table
	uni, lin := results[0], results[1]
	boot := row{name: "boot: QEMU start to the first line, " + machine, unit: "ms"}
	for r := range uni {
		boot.add(uni[r].boot.Seconds()*1e3, lin[r].boot.Seconds()*1e3)
	}
	t.rows = append(t.rows, boot)
	if microvm {
		mv := row{name: "boot: the same, unitrace on microvm", unit: "ms", linuxRowLabel: machine}
		for r := range uni {
			mv.add(results[2][r].boot.Seconds()*1e3, lin[r].boot.Seconds()*1e3)
		}
		t.rows = append(t.rows, mv)
	}
	for _, name := range uni[0].names {
		w := row{name: name, unit: uni[0].units[name]}
		for r := range uni {
			u, ok1 := uni[r].values[name]
			l, ok2 := lin[r].values[name]
			if ok1 && ok2 {
				w.add(u, l)
			}
		}
		t.rows = append(t.rows, w)
	}
	return t
}

func (r *row) add(u, l float64) {
	r.uni = append(r.uni, u)
	r.lin = append(r.lin, l)
	if l > 0 {
		r.ratios = append(r.ratios, u/l)
	}
}

func (t table) write(b *strings.Builder, rounds, batches int) {
	fmt.Fprintf(b, "| work | unit | unitrace: median (min-max) | Linux: median (min-max) | unitrace / Linux |\n")
	fmt.Fprintf(b, "| --- | --- | --- | --- | --- |\n")
	for _, r := range t.rows {
		lin := spread(r.lin)
		if r.linuxRowLabel != "" {
			lin = "(" + r.linuxRowLabel + ", above)"
		}
		fmt.Fprintf(b, "| %s | %s | %s | %s | %s |\n", r.name, r.unit, spread(r.uni), lin, ratio(r.ratios))
	}
	fmt.Fprintf(b, "\n%d rounds, each booting both guests; a workload's %d batches alternate between the guests, a round's value is the fastest of them in each guest, and the ratio is the median of the rounds' ratios (below 1: unitrace is faster).\n", rounds, batches)
}

func spread(v []float64) string {
	if len(v) == 0 {
		return "-"
	}
	s := slices.Sorted(slices.Values(v))
	return fmt.Sprintf("%s (%s-%s)", num(median(s)), num(s[0]), num(s[len(s)-1]))
}

func ratio(v []float64) string {
	if len(v) == 0 {
		return "-"
	}
	return fmt.Sprintf("%.2f", median(slices.Sorted(slices.Values(v))))
}

// median of sorted values (the mean of the middle two for an even count).
func median(s []float64) float64 {
	n := len(s)
	if n%2 == 1 {
		return s[n/2]
	}
	return (s[n/2-1] + s[n/2]) / 2
}

// num prints a value with three significant digits, without an exponent.
func num(v float64) string {
	switch {
	case v >= 100:
		return fmt.Sprintf("%.0f", v)
	case v >= 10:
		return fmt.Sprintf("%.1f", v)
	}
	return fmt.Sprintf("%.2f", v)
}

// markers are the lines -doc replaces the text between, for arch.
func markers(arch string) (begin, end string) {
	if arch == "amd64" {
		return "<!-- bench: begin -->", "<!-- bench: end -->"
	}
	return "<!-- bench " + arch + ": begin -->", "<!-- bench " + arch + ": end -->"
}

// writeDoc replaces what lies between arch's markers in file with text.
func writeDoc(file, arch, text string) error {
	doc, err := os.ReadFile(file)
	if err != nil {
		return err
	}
	beginMarker, endMarker := markers(arch)
	begin := bytes.Index(doc, []byte(beginMarker))
	end := bytes.Index(doc, []byte(endMarker))
	if begin < 0 || end < begin {
		return errors.New("no " + beginMarker + " ... " + endMarker + " lines")
	}
	var b bytes.Buffer
	b.Write(doc[:begin+len(beginMarker)])
	fmt.Fprintf(&b, "\n%s", text)
	b.Write(doc[end:])
	return os.WriteFile(file, b.Bytes(), 0o644)
}
