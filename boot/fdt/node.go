package fdt

// Node is a node of a blob: the offset of its BEGIN_NODE token. The zero
// Node is no node (offset 0 is the header). A Node is only meaningful with
// the blob it came from; with another blob, calls fail or return nonsense
// but never panic.
type Node struct {
	at uint32
}

// Valid reports whether n is a node rather than the zero Node.
func (n Node) Valid() bool { return n.at != 0 }

// Offset is the node's offset in the blob, for messages.
func (n Node) Offset() uint32 { return n.at }

// begin decodes n's BEGIN_NODE token, or reports ErrBadNode.
func (b Blob) begin(n Node) (blocks, token, Err) {
	k, err := b.blocks()
	if err != OK {
		return k, token{}, err
	}
	t, err := b.token(k, int(n.at))
	if err != OK || t.kind != tokBeginNode {
		return k, t, ErrBadNode
	}
	return k, t, OK
}

// Root is the root node.
func (b Blob) Root() (Node, Err) {
	w, err := b.newWalker()
	if err != OK {
		return Node{}, err
	}
	for {
		t, err := w.step(b)
		if err != OK {
			return Node{}, err
		}
		if t.kind == tokBeginNode {
			return Node{at: uint32(t.at)}, OK
		}
	}
}

// Name is n's name with its unit address ("memory@40000000"; "" for the
// root), a view of the blob; nil if n is not a node.
func (b Blob) Name(n Node) []byte {
	_, t, err := b.begin(n)
	if err != OK {
		return nil
	}
	return t.name.Bytes(b)
}

// Next is the node after n in document order (depth first, parents before
// children); ErrNotFound after the last node.
func (b Blob) Next(n Node) (Node, Err) {
	k, t, err := b.begin(n)
	if err != OK {
		return Node{}, err
	}
	for {
		if t, err = b.token(k, t.next); err != OK {
			return Node{}, err
		}
		switch t.kind {
		case tokBeginNode:
			return Node{at: uint32(t.at)}, OK
		case tokEnd:
			return Node{}, ErrNotFound
		}
	}
}

// FirstChild is n's first subnode; ErrNotFound if it has none.
func (b Blob) FirstChild(n Node) (Node, Err) {
	k, t, err := b.begin(n)
	if err != OK {
		return Node{}, err
	}
	for {
		if t, err = b.token(k, t.next); err != OK {
			return Node{}, err
		}
		switch t.kind {
		case tokBeginNode:
			return Node{at: uint32(t.at)}, OK
		case tokEndNode:
			return Node{}, ErrNotFound
		case tokEnd:
			return Node{}, ErrUnbalanced
		}
	}
}

// NextSibling is the node after n's subtree with the same parent;
// ErrNotFound if n is its parent's last subnode (or the root).
func (b Blob) NextSibling(n Node) (Node, Err) {
	k, t, err := b.begin(n)
	if err != OK {
		return Node{}, err
	}
	depth := 1 // open nodes, counting n
	for {
		if t, err = b.token(k, t.next); err != OK {
			return Node{}, err
		}
		switch t.kind {
		case tokBeginNode:
			if depth == 0 {
				return Node{at: uint32(t.at)}, OK
			}
			if depth++; depth > MaxDepth {
				return Node{}, ErrNesting
			}
		case tokEndNode:
			if depth == 0 {
				return Node{}, ErrNotFound
			}
			depth--
		case tokProp:
			if depth == 0 {
				return Node{}, ErrPropOrder
			}
		case tokEnd:
			if depth != 0 {
				return Node{}, ErrUnbalanced
			}
			return Node{}, ErrNotFound
		}
	}
}

// Parent is n's parent; ErrNotFound for the root.
func (b Blob) Parent(n Node) (Node, Err) {
	c, err := b.context(n)
	if err != OK {
		return Node{}, err
	}
	if c.depth < 2 {
		return Node{}, ErrNotFound
	}
	return Node{at: c.parent.node}, OK
}

// Child is n's first subnode that matches name: the full name
// ("memory@40000000"), or, when name has no unit address, the node name
// before the "@" ("memory"), as libfdt's fdt_subnode_offset does.
func (b Blob) Child(n Node, name string) (Node, Err) { return child(b, n, name) }

func child[S ~string | ~[]byte](b Blob, n Node, name S) (Node, Err) {
	c, err := b.FirstChild(n)
	for err == OK {
		if nameMatches(b.Name(c), name) {
			return c, OK
		}
		c, err = b.NextSibling(c)
	}
	return Node{}, err
}

// nameMatches applies Child's rule for name to a node's full name.
func nameMatches[S ~string | ~[]byte](full []byte, name S) bool {
	if string(full) == string(name) {
		return true
	}
	for i := 0; i < len(name); i++ {
		if name[i] == '@' {
			return false
		}
	}
	return len(full) > len(name) && full[len(name)] == '@' && string(full[:len(name)]) == string(name)
}

// Path finds a node by absolute path: "/" is the root, "/chosen",
// "/memory@40000000", "/cpus/cpu@0"; each component matches as in Child.
// Empty components ("//", a trailing "/") are skipped. Aliases are not
// expanded (see Alias).
func (b Blob) Path(path string) (Node, Err) { return findPath(b, path) }

func findPath[S ~string | ~[]byte](b Blob, path S) (Node, Err) {
	if len(path) == 0 || path[0] != '/' {
		return Node{}, ErrPath
	}
	n, err := b.Root()
	for start := 1; err == OK && start < len(path); {
		end := start
		for end < len(path) && path[end] != '/' {
			end++
		}
		if end > start {
			n, err = child(b, n, path[start:end])
		}
		start = end + 1
	}
	if err != OK {
		return Node{}, err
	}
	return n, OK
}

// Named is the nth node (counting from 0, in document order) anywhere in
// the tree whose name matches name as in Child: Named("memory", 0) finds
// "memory@40000000" at any depth.
func (b Blob) Named(name string, nth int) (Node, Err) {
	return b.nth(nth, func(b Blob, n Node) bool { return nameMatches(b.Name(n), name) })
}

// Compatible is the nth node (from 0, in document order) whose compatible
// list holds compat exactly, whatever its status.
func (b Blob) Compatible(compat string, nth int) (Node, Err) {
	return b.nth(nth, func(b Blob, n Node) bool { return b.HasString(n, "compatible", compat) })
}

// ByPhandle is the node whose phandle (or legacy linux,phandle) property
// is ph. 0 and 0xffffffff are never phandles (spec 2.3.3).
func (b Blob) ByPhandle(ph uint32) (Node, Err) {
	if ph == 0 || ph == 0xffffffff {
		return Node{}, ErrNotFound
	}
	return b.nth(0, func(b Blob, n Node) bool {
		v, err := b.U32(n, "phandle")
		if err != OK {
			v, err = b.U32(n, "linux,phandle")
		}
		return err == OK && v == ph
	})
}

// nth is the nth node in document order for which match holds. match must
// not escape: it is called, never stored, so closures passed here live on
// the stack.
func (b Blob) nth(nth int, match func(Blob, Node) bool) (Node, Err) {
	if nth < 0 {
		return Node{}, ErrNotFound
	}
	n, err := b.Root()
	for err == OK {
		if match(b, n) {
			if nth == 0 {
				return n, OK
			}
			nth--
		}
		n, err = b.Next(n)
	}
	return Node{}, err
}
