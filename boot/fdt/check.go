package fdt

// Check validates the whole blob: the header, the memory reservation map,
// and every token of the structure block (names terminated inside their
// blocks, property values inside the structure block, nodes balanced and at
// most MaxDepth deep, one root, properties before subnodes, END last). The
// walk advances at least 4 bytes a token, so it ends on any input.
func (b Blob) Check() Err {
	h, err := b.Header()
	if err != OK {
		return err
	}
	if _, err := b.reservations(h); err != OK {
		return err
	}
	w, err := b.newWalker()
	if err != OK {
		return err
	}
	for !w.done {
		if _, err := w.step(b); err != OK {
			return err
		}
	}
	return OK
}
