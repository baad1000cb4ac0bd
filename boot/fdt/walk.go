package fdt

// MaxDepth caps node nesting, the root counting as 1. QEMU virt nests 4
// deep (/cpus/cpu-map/socket0/cluster0/core0 is 5 with the root); Linux's
// own flat-tree walker allows 64. Deeper trees are ErrNesting.
const MaxDepth = 32

// badCells marks a #address-cells/#size-cells property that is not one
// cell long, so the first use of it reports ErrCells.
const badCells = 1<<32 - 1

// irqRef names an interrupt parent: a node known to have #interrupt-cells,
// or a phandle not yet looked up, or neither (none found).
type irqRef struct {
	node    uint32 // offset of the controller's BEGIN_NODE, or 0
	phandle uint32 // interrupt-parent value to look up when node is 0, or 0
}

// frame is what the walker knows about one open node.
type frame struct {
	node      uint32 // offset of its BEGIN_NODE
	addrCells uint32 // #address-cells it declares for its children (default 2)
	sizeCells uint32 // #size-cells it declares for its children (default 1)
	inherited irqRef // its interrupt parent unless it names its own
	ownParent uint32 // its interrupt-parent phandle, or 0
	intCells  bool   // it has #interrupt-cells (an interrupt controller or nexus)
	sawChild  bool   // a subnode has begun, so no property may follow
	seen      uint8  // which of the properties below have been met
}

// A property named twice in one node is malformed (dtc refuses it); like
// Prop, which returns the first, the walker heeds only the first.
const (
	seenAddrCells = 1 << iota
	seenSizeCells
	seenParent
)

// irqParentForChildren is where a child's search for its interrupt parent
// ends when the child names none (spec 2.4.1; Linux of_irq_find_parent):
// the node itself if it has #interrupt-cells, else its own
// interrupt-parent, else whatever it inherited.
func (f *frame) irqParentForChildren() irqRef {
	switch {
	case f.intCells:
		return irqRef{node: f.node}
	case f.ownParent != 0:
		return irqRef{phandle: f.ownParent}
	}
	return f.inherited
}

// walker steps through the structure block in order and keeps a stack of
// the open nodes, so that at a node's BEGIN_NODE its parent's cell sizes
// and interrupt parent are known. It enforces the block's grammar: NOPs,
// one root node, END; within a node its properties, then its subnodes.
type walker struct {
	k        blocks
	off      int
	depth    int  // open nodes
	rootDone bool // the root's END_NODE has passed
	done     bool // END has passed
	stack    [MaxDepth]frame
}

func (b Blob) newWalker() (walker, Err) {
	k, err := b.blocks()
	return walker{k: k, off: k.structStart}, err
}

// top is the innermost open node's frame, or nil outside the root.
func (w *walker) top() *frame {
	if w.depth <= 0 || w.depth > MaxDepth {
		return nil
	}
	return &w.stack[w.depth-1]
}

// step decodes the next token and applies it to the stack. After END, or
// after an error, it returns ErrToken or the error again.
func (w *walker) step(b Blob) (token, Err) {
	if w.done {
		return token{at: w.off}, ErrToken
	}
	t, err := b.token(w.k, w.off)
	if err != OK {
		return t, err
	}
	switch t.kind {
	case tokBeginNode:
		if w.rootDone {
			return t, ErrUnbalanced
		}
		if w.depth == MaxDepth {
			return t, ErrNesting
		}
		f := frame{node: uint32(t.at), addrCells: 2, sizeCells: 1}
		if parent := w.top(); parent != nil {
			parent.sawChild = true
			f.inherited = parent.irqParentForChildren()
		}
		w.stack[w.depth] = f
		w.depth++
	case tokEndNode:
		if w.depth == 0 {
			return t, ErrUnbalanced
		}
		w.depth--
		if w.depth == 0 {
			w.rootDone = true
		}
	case tokProp:
		f := w.top()
		if f == nil {
			return t, ErrUnbalanced
		}
		if f.sawChild {
			return t, ErrPropOrder
		}
		w.noteProp(b, f, t)
	case tokEnd:
		if w.depth != 0 || !w.rootDone {
			return t, ErrUnbalanced
		}
		w.done = true
	}
	w.off = t.next
	return t, OK
}

// noteProp records the properties that shape how children are read.
func (w *walker) noteProp(b Blob, f *frame, t token) {
	cell, ok := be32(t.value.Bytes(b), 0)
	if t.value.Len != 4 {
		ok = false
	}
	switch {
	case b.equal(t.name, "#address-cells") && f.seen&seenAddrCells == 0:
		f.addrCells = cellsOr(cell, ok)
		f.seen |= seenAddrCells
	case b.equal(t.name, "#size-cells") && f.seen&seenSizeCells == 0:
		f.sizeCells = cellsOr(cell, ok)
		f.seen |= seenSizeCells
	case b.equal(t.name, "#interrupt-cells"):
		f.intCells = true
	case b.equal(t.name, "interrupt-parent") && f.seen&seenParent == 0:
		// 0xffffffff is not a valid phandle, so a malformed value
		// resolves to nothing and reports ErrNoInterruptParent.
		f.ownParent = 0xffffffff
		if ok && cell != 0 {
			f.ownParent = cell
		}
		f.seen |= seenParent
	}
}

func cellsOr(v uint32, ok bool) uint32 {
	if !ok {
		return badCells
	}
	return v
}

// context is what a node's BEGIN_NODE sees: its parent's frame (complete,
// since properties come before subnodes) and its own fresh frame.
type context struct {
	parent frame // for the root: no node, default cells
	self   frame
	depth  int // 1 for the root
}

// context walks from the root to n. A handle that is not the offset of a
// BEGIN_NODE met on the way is ErrBadNode.
func (b Blob) context(n Node) (context, Err) {
	w, err := b.newWalker()
	if err != OK {
		return context{}, err
	}
	for {
		t, err := w.step(b)
		if err != OK {
			return context{}, err
		}
		if t.kind == tokBeginNode && uint32(t.at) == n.at {
			return w.context(), OK
		}
		if t.kind == tokEnd || t.at > int(n.at) {
			return context{}, ErrBadNode
		}
	}
}

// context is the current node's context, just after its BEGIN_NODE.
func (w *walker) context() context {
	// The root has no parent; the spec's defaults stand in for one.
	c := context{depth: w.depth, parent: frame{addrCells: 2, sizeCells: 1}}
	if f := w.top(); f != nil {
		c.self = *f
	}
	if w.depth >= 2 && w.depth <= MaxDepth {
		c.parent = w.stack[w.depth-2]
	}
	return c
}
