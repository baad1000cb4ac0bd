package profile

import (
	"bufio"
	"fmt"
	"hash/fnv"
	"html"
	"io"
	"slices"
	"strings"
)

// Flame graph geometry, in SVG pixels.
const (
	flameWidth    = 1200.0
	flamePad      = 10.0
	flameRowH     = 16.0
	flameTitleH   = 44.0
	flameFontSize = 12
	flameCharW    = 7.0 // average glyph width at flameFontSize, for cutting labels
	flameMinW     = 0.1 // narrower frames are left out
)

// WriteFlame writes a flame graph of the profile as one self-contained SVG
// (no script, no external references): the root at the bottom, callees
// above their callers, each frame as wide as its samples, children in name
// order as flamegraph.pl does, colors from a hash of the name (a cool
// palette for kernel frames, a warm one for the rest), so the same profile
// always gives the same file. Hovering a frame shows its <title>: name,
// "[kernel]" for a kernel frame, samples and share. A graph with kernel
// frames has a legend for their color.
func WriteFlame(w io.Writer, p *Profile, opt FoldOptions, title string) error {
	root := &Node{Name: "all"}
	for _, f := range foldStacks(p, opt) {
		root.add(f.path, f.n)
	}
	sortByName(root)
	depth := treeDepth(root)
	height := flameTitleH + float64(depth+1)*flameRowH + flamePad
	bw := bufio.NewWriter(w)
	fmt.Fprintf(bw, `<?xml version="1.0" encoding="UTF-8" standalone="no"?>
<svg version="1.1" xmlns="http://www.w3.org/2000/svg" width="%.0f" height="%.0f" viewBox="0 0 %.0f %.0f">
<style>text { font-family: Verdana, sans-serif; font-size: %dpx; fill: #000; } rect { stroke: #fff; stroke-width: 0.5; } g:hover rect { stroke: #000; }</style>
<rect x="0" y="0" width="%.0f" height="%.0f" fill="#f8f8f8"/>
<text x="%.0f" y="20" text-anchor="middle" style="font-size:17px">%s</text>
<text x="%.0f" y="38" text-anchor="middle" style="fill:#555">%s</text>
`, flameWidth, height, flameWidth, height, flameFontSize, flameWidth, height,
		flameWidth/2, html.EscapeString(title), flameWidth/2, html.EscapeString(p.Summary()))
	if hasKernel(root) {
		fmt.Fprintf(bw, "<g><rect x=\"%.0f\" y=\"8\" width=\"12\" height=\"12\" fill=\"%s\"/><text x=\"%.0f\" y=\"18\">%s</text></g>\n",
			flamePad, flameColor("", true), flamePad+16, flameKernelLegend)
	}
	fw := &flameWriter{w: bw, total: max(root.Hits, 1), bottom: height - flamePad - flameRowH}
	fw.node(root, flamePad, 0)
	fmt.Fprintln(bw, "</svg>")
	return bw.Flush()
}

type flameWriter struct {
	w      *bufio.Writer
	total  int
	bottom float64 // y of the root row
}

func (fw *flameWriter) node(n *Node, x float64, level int) {
	width := float64(n.Hits) / float64(fw.total) * (flameWidth - 2*flamePad)
	if width < flameMinW {
		return
	}
	y := fw.bottom - float64(level)*flameRowH
	name := html.EscapeString(n.Name)
	if n.Kernel {
		name += " [kernel]"
	}
	fmt.Fprintf(fw.w, "<g><title>%s (%d %s, %.2f%%)</title><rect x=\"%.2f\" y=\"%.2f\" width=\"%.2f\" height=\"%.0f\" fill=\"%s\"/>",
		name, n.Hits, plural(n.Hits, "sample"), 100*float64(n.Hits)/float64(fw.total), x, y, width, flameRowH-1, flameColor(n.Name, n.Kernel))
	if label := cutLabel(n.Name, width); label != "" {
		fmt.Fprintf(fw.w, "<text x=\"%.2f\" y=\"%.2f\">%s</text>", x+3, y+flameRowH-4, html.EscapeString(label))
	}
	fmt.Fprintln(fw.w, "</g>")
	cx := x
	for _, c := range n.Children {
		fw.node(c, cx, level+1)
		cx += float64(c.Hits) / float64(fw.total) * (flameWidth - 2*flamePad)
	}
}

// cutLabel fits a frame name into width pixels, or returns "" when not even
// a few characters fit.
func cutLabel(name string, width float64) string {
	fit := int((width - 6) / flameCharW)
	if fit < 3 {
		return ""
	}
	if len(name) <= fit {
		return name
	}
	return name[:fit-2] + ".."
}

// flameKernelLegend explains the kernel frames' color.
const flameKernelLegend = "kernel (trap context)"

// flameColor picks a color from a hash of the name: a warm one
// (flamegraph.pl's "hot" palette) for the frames of threads, a cool
// blue-green for the kernel's, gray for lost samples and blue for idle and
// group roots.
func flameColor(name string, kernel bool) string {
	h := fnv.New32a()
	h.Write([]byte(name))
	v := h.Sum32()
	switch {
	case kernel:
		return fmt.Sprintf("rgb(%d,%d,%d)", 40+v%60, 170+(v>>8)%50, 170+(v>>16)%60)
	case name == FrameLost:
		return "rgb(160,160,160)"
	case name == FrameIdle:
		return "rgb(150,180,230)"
	case name == "all" || strings.HasPrefix(name, "cpu ") || strings.HasPrefix(name, "tid "):
		return "rgb(200,200,220)"
	}
	return fmt.Sprintf("rgb(%d,%d,%d)", 205+v%50, (v>>8)%230, (v>>16)%55)
}

// sortByName orders children by name at every level.
func sortByName(n *Node) {
	slices.SortFunc(n.Children, func(a, b *Node) int { return strings.Compare(a.Name, b.Name) })
	for _, c := range n.Children {
		sortByName(c)
	}
}

// hasKernel reports whether a node under n is a kernel frame.
func hasKernel(n *Node) bool {
	return slices.ContainsFunc(n.Children, func(c *Node) bool { return c.Kernel || hasKernel(c) })
}

func treeDepth(n *Node) int {
	d := 0
	for _, c := range n.Children {
		d = max(d, 1+treeDepth(c))
	}
	return d
}

func plural(n int, word string) string {
	if n == 1 {
		return word
	}
	return word + "s"
}
