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
	GroupNone   Group = iota // one tree
	GroupThread              // a root per kernel thread ("tid N")
	GroupCPU                 // a root per CPU ("cpu N")
)

// ParseGroup reads the -g flag: thread, cpu or none.
func ParseGroup(s string) (Group, error) {
	switch s {
	case "none", "":
		return GroupNone, nil
	case "thread":
		return GroupThread, nil
	case "cpu":
		return GroupCPU, nil
	}
	return 0, fmt.Errorf("unknown grouping %q: want thread, cpu or none", s)
}

// label is the root a sample goes under, "" for GroupNone.
func (g Group) label(s *Sample) string {
	switch g {
	case GroupThread:
		return fmt.Sprintf("tid %d", s.TID)
	case GroupCPU:
		return fmt.Sprintf("cpu %d", s.CPU)
	}
	return ""
}

// Node is one node of a call tree: a function reached by one path.
type Node struct {
	Name     string
	Hits     int // samples in this subtree
	Self     int // samples whose path ends here
	Children []*Node
	index    map[string]*Node
}

func (n *Node) child(name string) *Node {
	if c := n.index[name]; c != nil {
		return c
	}
	if n.index == nil {
		n.index = map[string]*Node{}
	}
	c := &Node{Name: name}
	n.index[name] = c
	n.Children = append(n.Children, c)
	return c
}

// add counts one sample along path, root first.
func (n *Node) add(path []string, hits int) {
	n.Hits += hits
	for _, name := range path {
		n = n.child(name)
		n.Hits += hits
	}
	n.Self += hits
}

// sort orders every node's children by hits, then name, so output is
// deterministic.
func (n *Node) sort() {
	slices.SortFunc(n.Children, func(a, b *Node) int {
		return cmp.Or(cmp.Compare(b.Hits, a.Hits), cmp.Compare(a.Name, b.Name))
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

// rootFirst returns the path of a sample from its outermost frame to the
// leaf, under its group label.
func rootFirst(s *Sample, g Group) []string {
	fr := s.Names()
	slices.Reverse(fr)
	if l := g.label(s); l != "" {
		fr = append([]string{l}, fr...)
	}
	return fr
}

// Tree builds the call tree of samples: from the outermost frames down to
// the leaves, or with reverse from the leaves out to their callers. The
// root is synthetic (Name "") and holds every sample.
func Tree(samples []Sample, g Group, reverse bool) *Node {
	root := &Node{}
	for i := range samples {
		s := &samples[i]
		var path []string
		if reverse {
			path = s.Names()
			if l := g.label(s); l != "" {
				path = append([]string{l}, path...)
			}
		} else {
			path = rootFirst(s, g)
		}
		root.add(path, 1)
	}
	root.sort()
	return root
}

// FunctionTrees builds the two views of one function: callees, rooted at
// the function and going down to the leaves (from its outermost frame in
// each stack, so recursion shows below it), and callers, rooted at the
// function and going out to the stack's root (from its innermost frame).
// A sample where the function is the leaf counts in both, as self time.
// name selects functions as FuncsNamed does. matched is the number of
// samples with the function on their stack.
func FunctionTrees(samples []Sample, name string, g Group) (callees, callers *Node, matched int) {
	callees, callers = &Node{}, &Node{}
	for i := range samples {
		s := &samples[i]
		fr := s.Names() // leaf first
		inner, outer := -1, -1
		for k, f := range fr {
			if nameMatches(f, name) {
				if inner < 0 {
					inner = k
				}
				outer = k
			}
		}
		if inner < 0 {
			continue
		}
		matched++
		var down []string
		for k := outer; k >= 0; k-- {
			down = append(down, fr[k])
		}
		up := slices.Clone(fr[inner:])
		if l := g.label(s); l != "" {
			down = append([]string{l}, down...)
			up = append([]string{l}, up...)
		}
		callees.add(down, 1)
		callers.add(up, 1)
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
// percentage of Total, hits, name, and the self hits of inner nodes.
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
		tw.printf("%s%s%s %6d  %s%s\n", prefix, branch, tw.pct(c.Hits), c.Hits, c.Name, self)
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
