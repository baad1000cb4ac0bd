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

// FoldedKernelSuffix marks a kernel frame in folded stacks, as perf's
// stackcollapse scripts do and flamegraph.pl expects.
const FoldedKernelSuffix = "_[k]"

// Folded returns the folded stacks of samples, root first, with their
// counts (each sample counts as its weight): the input of flamegraph.pl,
// speedscope and WriteFlame. Kernel frames end in FoldedKernelSuffix. Lost
// samples appear as a FrameLost stack (under "cpu N" with GroupCPU).
func Folded(p *Profile, opt FoldOptions) map[string]int {
	out := map[string]int{}
	for k, f := range foldStacks(p, opt) {
		out[k] = f.n
	}
	return out
}

// foldedStack is one line of the folded stacks: its frames, root first, and its count.
type foldedStack struct {
	path []step
	n    int
}

// foldStacks merges the samples' paths by their folded lines.
func foldStacks(p *Profile, opt FoldOptions) map[string]*foldedStack {
	out := map[string]*foldedStack{}
	add := func(path []step, n int) {
		if opt.MaxDepth > 0 && len(path) > opt.MaxDepth {
			path = path[:opt.MaxDepth]
		}
		names := make([]string, len(path))
		for j, f := range path {
			names[j] = foldName(f.name)
			if f.kernel {
				names[j] += FoldedKernelSuffix
			}
		}
		k := strings.Join(names, ";")
		if out[k] == nil {
			out[k] = &foldedStack{path: path}
		}
		out[k].n += n
	}
	for i := range p.Samples {
		add(rootFirst(&p.Samples[i], opt.Group), p.Samples[i].Weight)
	}
	for cpu, n := range p.Lost {
		path := []step{{name: FrameLost}}
		if opt.Group == GroupCPU {
			path = []step{{name: fmt.Sprintf("cpu %d", cpu)}, {name: FrameLost}}
		}
		add(path, n)
	}
	for k, f := range out {
		if f.n < opt.MinHits {
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
