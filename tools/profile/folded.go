package profile

import (
	"bufio"
	"fmt"
	"io"
	"slices"
	"strings"
)

// FoldOptions shape folded stacks and the flame graph.
type FoldOptions struct {
	Group    Group
	MaxDepth int // keep at most this many frames from the root (0: all)
	MinHits  int // leave out stacks with fewer samples
}

// Folded returns the folded stacks of samples, root first, with their
// counts: the input of flamegraph.pl, speedscope and WriteFlame. Lost
// samples appear as a FrameLost stack (under "cpu N" with GroupCPU).
func Folded(p *Profile, opt FoldOptions) map[string]int {
	out := map[string]int{}
	add := func(path []string, n int) {
		if opt.MaxDepth > 0 && len(path) > opt.MaxDepth {
			path = path[:opt.MaxDepth]
		}
		for j, f := range path {
			path[j] = foldName(f)
		}
		out[strings.Join(path, ";")] += n
	}
	for i := range p.Samples {
		add(rootFirst(&p.Samples[i], opt.Group), 1)
	}
	for cpu, n := range p.Lost {
		path := []string{FrameLost}
		if opt.Group == GroupCPU {
			path = []string{fmt.Sprintf("cpu %d", cpu), FrameLost}
		}
		add(path, n)
	}
	for k, n := range out {
		if n < opt.MinHits {
			delete(out, k)
		}
	}
	return out
}

// foldName keeps a frame name from breaking the folded format, whose
// separators are ';' between frames and the last space before the count.
// Generic shapes ("go.shape.struct { a int; b int }") hold both.
func foldName(s string) string {
	return strings.ReplaceAll(s, ";", ",")
}

// WriteFolded prints folded stacks, one "root;...;leaf N" line each, in
// lexical order.
func WriteFolded(w io.Writer, p *Profile, opt FoldOptions) error {
	folded := Folded(p, opt)
	keys := make([]string, 0, len(folded))
	for k := range folded {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	bw := bufio.NewWriter(w)
	for _, k := range keys {
		fmt.Fprintf(bw, "%s %d\n", k, folded[k])
	}
	return bw.Flush()
}
