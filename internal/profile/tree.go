package profile

import (
	"cmp"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"
)

// Group says how the views split samples at their root.
type Group uint8

const (
	GroupNone      Group = iota // one tree
	GroupThread                 // a root per kernel thread ("tid N")
	GroupCPU                    // a root per CPU ("cpu N")
	GroupGoroutine              // a root per goroutine ("goroutine N", "no goroutine" for samples without one)
)

// ParseGroup reads the -g flag: thread, cpu, goroutine or none.
func ParseGroup(s string) (Group, error) {
	switch s {
	case "none", "":
		return GroupNone, nil
	case "thread":
		return GroupThread, nil
	case "cpu":
		return GroupCPU, nil
	case "goroutine":
		return GroupGoroutine, nil
	}
	return 0, fmt.Errorf("unknown grouping %q: want thread, cpu, goroutine or none", s)
}

// label is the root a sample goes under, "" for GroupNone.
func (g Group) label(s *Sample) string {
	switch g {
	case GroupThread:
		return fmt.Sprintf("tid %d", s.TID)
	case GroupCPU:
		return fmt.Sprintf("cpu %d", s.CPU)
	case GroupGoroutine:
		if s.Goroutine == 0 {
			return "no goroutine"
		}
		return fmt.Sprintf("goroutine %d", s.Goroutine)
	}
	return ""
}

// Node is one node of a call tree: a function reached by one path.
type Node struct {
	Name     string
	Kernel   bool // the function ran in the kernel's trap context
	Hits     int  // samples in this subtree, weighted
	Self     int  // samples whose path ends here, weighted
	Children []*Node
	index    map[step]*Node
}

// step is one logical frame on a sample's path, as the trees tell frames apart: the same
// function in the kernel's trap context and in a thread are two nodes.
type step struct {
	name   string
	kernel bool
}

func (n *Node) child(s step) *Node {
	if c := n.index[s]; c != nil {
		return c
	}
	if n.index == nil {
		n.index = map[step]*Node{}
	}
	c := &Node{Name: s.name, Kernel: s.kernel}
	n.index[s] = c
	n.Children = append(n.Children, c)
	return c
}

// add counts one sample along path, root first.
func (n *Node) add(path []step, hits int) {
	n.Hits += hits
	for _, s := range path {
		n = n.child(s)
		n.Hits += hits
	}
	n.Self += hits
}

// sort orders every node's children by hits, then name, so output is
// deterministic.
func (n *Node) sort() {
	slices.SortFunc(n.Children, func(a, b *Node) int {
		return cmp.Or(cmp.Compare(b.Hits, a.Hits), cmp.Compare(a.Name, b.Name), compareBool(a.Kernel, b.Kernel))
	})
	for _, c := range n.Children {
		c.sort()
	}
}

// Names returns the function names of the sample's logical frames, leaf
// first: Names()[1] is the caller of the leaf.
func (s *Sample) Names() []string {
	var out []string
	for _, l := range s.Locs {
		for _, f := range l.Frames {
			out = append(out, f.Func)
		}
	}
	return out
}

func compareBool(a, b bool) int {
	switch {
	case a == b:
		return 0
	case a:
		return 1
	}
	return -1
}

// steps returns the sample's logical frames, leaf first.
func (s *Sample) steps() []step {
	var out []step
	for _, l := range s.Locs {
		for _, f := range l.Frames {
			out = append(out, step{f.Func, l.Kernel})
		}
	}
	return out
}

// underLabel puts path under the sample's group label, if it has one.
func underLabel(path []step, s *Sample, g Group) []step {
	if l := g.label(s); l != "" {
		return append([]step{{name: l}}, path...)
	}
	return path
}

// rootFirst returns the path of a sample from its outermost frame to the
// leaf, under its group label.
func rootFirst(s *Sample, g Group) []step {
	fr := s.steps()
	slices.Reverse(fr)
	return underLabel(fr, s, g)
}

// Tree builds the call tree of samples: from the outermost frames down to
// the leaves, or with reverse from the leaves out to their callers. The
// root is synthetic (Name "") and holds every sample; each sample counts
// as its weight.
func Tree(samples []Sample, g Group, reverse bool) *Node {
	root := &Node{}
	for i := range samples {
		s := &samples[i]
		path := rootFirst(s, g)
		if reverse {
			path = underLabel(s.steps(), s, g)
		}
		root.add(path, s.Weight)
	}
	root.sort()
	return root
}

// FunctionTrees builds the two views of one function: callees, rooted at
// the function and going down to the leaves (from its outermost frame in
// each stack, so recursion shows below it), and callers, rooted at the
// function and going out to the stack's root (from its innermost frame).
// A sample where the function is the leaf counts in both, as self time.
// name selects functions as FuncsNamed does, in the kernel's frames as in
// the threads', and the trees go on across the boundary: the callers of a
// kernel function reach the thread's frames that entered the kernel.
// matched is the number of samples (weighted) with the function on their
// stack.
func FunctionTrees(samples []Sample, name string, g Group) (callees, callers *Node, matched int) {
	callees, callers = &Node{}, &Node{}
	for i := range samples {
		s := &samples[i]
		fr := s.steps() // leaf first
		inner, outer := -1, -1
		for k, f := range fr {
			if nameMatches(f.name, name) {
				if inner < 0 {
					inner = k
				}
				outer = k
			}
		}
		if inner < 0 {
			continue
		}
		matched += s.Weight
		var down []step
		for k := outer; k >= 0; k-- {
			down = append(down, fr[k])
		}
		callees.add(underLabel(down, s, g), s.Weight)
		callers.add(underLabel(slices.Clone(fr[inner:]), s, g), s.Weight)
	}
	callees.sort()
	callers.sort()
	return callees, callers, matched
}

// TreeOptions limit what WriteTree prints.
type TreeOptions struct {
	Total    int // the 100% for percentages (0: the root's hits)
	MinHits  int // hide nodes with fewer hits
	MaxDepth int // print at most this many levels (0: all)
}

// WriteTree prints the tree under root as ASCII art, one node a line:
// percentage of Total, hits, name (KernelSuffix after a kernel frame's),
// and the self hits of inner nodes.
func WriteTree(w io.Writer, root *Node, opt TreeOptions) error {
	if opt.Total <= 0 {
		opt.Total = root.Hits
	}
	tw := &treeWriter{w: w, opt: opt}
	tw.children(root, "", 1)
	return tw.err
}

type treeWriter struct {
	w   io.Writer
	opt TreeOptions
	err error
}

func (tw *treeWriter) printf(format string, args ...any) {
	if tw.err == nil {
		_, tw.err = fmt.Fprintf(tw.w, format, args...)
	}
}

func (tw *treeWriter) pct(n int) string {
	return fmt.Sprintf("%6.2f%%", 100*float64(n)/float64(max(tw.opt.Total, 1)))
}

// children prints the children of n that pass MinHits, and one line for
// those that do not.
func (tw *treeWriter) children(n *Node, prefix string, depth int) {
	if tw.opt.MaxDepth > 0 && depth > tw.opt.MaxDepth {
		return
	}
	var shown []*Node
	hidden, hiddenHits := 0, 0
	for _, c := range n.Children {
		if c.Hits >= tw.opt.MinHits {
			shown = append(shown, c)
		} else {
			hidden++
			hiddenHits += c.Hits
		}
	}
	top := n.Name == "" && prefix == ""
	for i, c := range shown {
		last := i == len(shown)-1 && hidden == 0
		branch, next := " |-- ", " |   "
		if last {
			branch, next = " \\-- ", "     "
		}
		if top {
			branch, next = "", ""
		}
		self := ""
		if c.Self > 0 && len(c.Children) > 0 {
			self = fmt.Sprintf("  [self %d]", c.Self)
		}
		tw.printf("%s%s%s %6d  %s%s\n", prefix, branch, tw.pct(c.Hits), c.Hits, c.label(), self)
		tw.children(c, prefix+next, depth+1)
	}
	if hidden > 0 {
		branch := " \\-- "
		if top {
			branch = ""
		}
		tw.printf("%s%s%s %6d  (%d more below --min-hits)\n", prefix, branch, tw.pct(hiddenHits), hiddenHits, hidden)
	}
}

// KernelSuffix marks a kernel frame's name in the call trees.
const KernelSuffix = " [k]"

// label is the node's name as the trees print it.
func (n *Node) label() string {
	if n.Kernel {
		return n.Name + KernelSuffix
	}
	return n.Name
}

// ParseMinHits reads --min-hits: a count ("5") or a percentage of total
// ("1%", "0.5%", rounded up).
func ParseMinHits(s string, total int) (int, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return 0, nil
	}
	bad := fmt.Errorf("bad --min-hits %q: want a count or a percentage like 1%%", s)
	if p, ok := strings.CutSuffix(s, "%"); ok {
		f, err := strconv.ParseFloat(p, 64)
		if err != nil || !(f >= 0 && f <= 100) {
			return 0, bad
		}
		return int(math.Ceil(f * float64(total) / 100)), nil
	}
	n, err := strconv.Atoi(s)
	if err != nil || n < 0 {
		return 0, bad
	}
	return n, nil
}
