package fdt

import (
	"bytes"
	"math/rand/v2"
	"strings"
	"testing"
)

// TestRandomTrees builds random trees, writes them as blobs and checks
// every lookup against the tree itself: the tree is the reference model.
func TestRandomTrees(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	regOutcomes = map[Err]int{}
	for iter := 0; iter < 300; iter++ {
		root := randomTree(rng, 0)
		root.name = ""
		b := Blob(build(root))
		if err := b.Check(); err != OK {
			t.Fatalf("tree %d: Check %v", iter, err)
		}
		checkModel(t, b, root)
	}
	// The random trees must reach every outcome of Reg.
	for _, e := range []Err{OK, ErrCells, ErrNotFound, ErrPropLen, ErrIndex} {
		if regOutcomes[e] < 10 {
			t.Errorf("Reg gave %v only %d times", e, regOutcomes[e])
		}
	}
}

var regOutcomes map[Err]int

var (
	nodeNames = []string{"a", "a@1", "a@2", "b", "b@1", "cpu@0", "x"}
	propNames = []string{"p", "q", "reg", "#address-cells", "#size-cells", "compatible"}
)

func randomTree(rng *rand.Rand, depth int) *tnode {
	n := &tnode{name: nodeNames[rng.IntN(len(nodeNames))]}
	for range rng.IntN(5) {
		name := propNames[rng.IntN(len(propNames))]
		var p tprop
		switch name {
		case "#address-cells":
			p = pcells(name, uint32(rng.IntN(4)))
		case "#size-cells":
			p = pcells(name, uint32(rng.IntN(3)))
		case "compatible":
			p = pstr(name, []string{"v,a", "v,b"}[:1+rng.IntN(2)]...)
		default:
			v := make([]byte, 4*rng.IntN(7)+[]int{0, 0, 0, 1, 3}[rng.IntN(5)])
			for i := range v {
				v[i] = byte(rng.Uint32())
			}
			p = praw(name, v)
		}
		n.props = append(n.props, p) // names may repeat: the first one counts
	}
	if depth < 5 {
		for range rng.IntN(4 - depth/2) {
			n.kids = append(n.kids, randomTree(rng, depth+1))
		}
	}
	return n
}

// modelNode is a tree node with what the model derives for it.
type modelNode struct {
	n      *tnode
	parent *modelNode
	path   string // from the root, by full names
}

func preorder(n *tnode, parent *modelNode, out []*modelNode) []*modelNode {
	m := &modelNode{n: n, parent: parent, path: "/"}
	if parent != nil {
		m.path = strings.TrimSuffix(parent.path, "/") + "/" + n.name
	}
	out = append(out, m)
	for _, k := range n.kids {
		out = preorder(k, m, out)
	}
	return out
}

func (m *modelNode) prop(name string) ([]byte, bool) {
	for _, p := range m.n.props {
		if p.name == name {
			return p.val, true
		}
	}
	return nil, false
}

// cells is the parent's #address-cells or #size-cells, or def.
func (m *modelNode) cells(name string, def uint32) uint32 {
	if m.parent == nil {
		return def
	}
	v, ok := m.parent.prop(name)
	if !ok {
		return def
	}
	return get32(v, 0)
}

// reg is the model's Reg.
func (m *modelNode) reg(i int) (Region, Err) {
	ac, sc := m.cells("#address-cells", 2), m.cells("#size-cells", 1)
	if ac > 2 || sc > 2 || ac+sc == 0 {
		return Region{}, ErrCells
	}
	v, ok := m.prop("reg")
	if !ok {
		return Region{}, ErrNotFound
	}
	entry := int(4 * (ac + sc))
	if len(v)%entry != 0 {
		return Region{}, ErrPropLen
	}
	if i >= len(v)/entry {
		return Region{}, ErrIndex
	}
	var r Region
	for j := 0; j < int(ac); j++ {
		r.Addr = r.Addr<<32 | uint64(get32(v, i*entry+4*j))
	}
	for j := 0; j < int(sc); j++ {
		r.Size = r.Size<<32 | uint64(get32(v, i*entry+4*int(ac)+4*j))
	}
	return r, OK
}

func checkModel(t *testing.T, b Blob, root *tnode) {
	t.Helper()
	nodes := preorder(root, nil, nil)
	handles := make(map[*modelNode]Node)
	n, err := b.Root()
	for i, m := range nodes {
		if err != OK || string(b.Name(n)) != m.n.name {
			t.Fatalf("preorder %d: %q %v, want %q\n%s", i, b.Name(n), err, m.n.name, dump(b))
		}
		handles[m] = n
		n, err = b.Next(n)
	}
	if err != ErrNotFound {
		t.Fatalf("Next after the last node: %v", err)
	}
	for _, m := range nodes {
		n := handles[m]
		if p, err := b.Parent(n); m.parent == nil && err != ErrNotFound || m.parent != nil && (err != OK || p != handles[m.parent]) {
			t.Errorf("Parent of %s: %v", m.path, err)
		}
		c, err := b.FirstChild(n)
		for _, k := range m.n.kids {
			if err != OK || b.Name(c) == nil || string(b.Name(c)) != k.name {
				t.Errorf("children of %s: %q %v, want %q", m.path, b.Name(c), err, k.name)
				break
			}
			c, err = b.NextSibling(c)
		}
		if err != ErrNotFound {
			t.Errorf("children of %s end with %v", m.path, err)
		}
		for _, name := range propNames {
			want, ok := m.prop(name)
			got, err := b.PropBytes(n, name)
			if ok != (err == OK) || !bytes.Equal(got, want) {
				t.Errorf("%s: %s = %x %v, want %x", m.path, name, got, err, want)
			}
		}
		for i := 0; i < 3; i++ {
			wantR, wantErr := m.reg(i)
			regOutcomes[wantErr]++
			if r, err := b.Reg(n, i); r != wantR || err != wantErr {
				t.Errorf("%s: Reg(%d) = %x %v, want %x %v", m.path, i, r, err, wantR, wantErr)
			}
		}
		compat, _ := m.prop("compatible")
		if b.HasString(n, "compatible", "v,b") != bytes.HasSuffix(compat, []byte("\x00v,b\x00")) {
			t.Errorf("%s: HasString(v,b)", m.path)
		}
	}
	// Path finds the first node along each path under Child's rule.
	for _, m := range nodes {
		got, err := b.Path(m.path)
		if want := modelPath(root, m.path); want == nil {
			// An earlier sibling matched a component first and
			// has no such child, so Path cannot reach m.
			if err != ErrNotFound {
				t.Errorf("Path(%s): %v, want ErrNotFound", m.path, err)
			}
		} else if err != OK || got != handles[nodeOf(nodes, want)] {
			t.Errorf("Path(%s): %v", m.path, err)
		}
	}
}

// modelPath resolves an absolute path in the tree by Child's rule.
func modelPath(root *tnode, path string) *tnode {
	n := root
	for _, comp := range bytes.Split([]byte(path), []byte("/")) {
		if len(comp) == 0 {
			continue
		}
		if n == nil {
			return nil
		}
		var next *tnode
		for _, k := range n.kids {
			c := string(comp)
			if k.name == c || !strings.Contains(c, "@") && strings.HasPrefix(k.name, c+"@") {
				next = k
				break
			}
		}
		n = next
	}
	return n
}

func nodeOf(nodes []*modelNode, n *tnode) *modelNode {
	for _, m := range nodes {
		if m.n == n {
			return m
		}
	}
	return nil
}
