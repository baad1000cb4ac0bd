package fdt

// MaxCells is the largest #address-cells or #size-cells that Reg reads:
// addresses and sizes up to 64 bits. PCI's 3-cell child addresses are
// ErrCells.
const MaxCells = 2

// Reg is entry i of n's reg property, as an address and size in n's
// parent's address space, read with the parent's #address-cells and
// #size-cells (2 and 1 when the parent does not say, spec 2.3.5). It does
// not translate through the parent's ranges; on QEMU virt every device this
// package reads is a child of the root, where bus and CPU addresses agree.
// ErrIndex means i is past the last entry.
func (b Blob) Reg(n Node, i int) (Region, Err) {
	c, err := b.context(n)
	if err != OK {
		return Region{}, err
	}
	return b.regWith(n, c.parent, i)
}

// regWith is Reg with the parent's frame already known.
func (b Blob) regWith(n Node, parent frame, i int) (Region, Err) {
	ac, sc := parent.addrCells, parent.sizeCells
	if ac > MaxCells || sc > MaxCells || ac+sc == 0 {
		return Region{}, ErrCells
	}
	v, err := b.PropBytes(n, "reg")
	if err != OK {
		return Region{}, err
	}
	entry := int(4 * (ac + sc))
	if len(v)%entry != 0 {
		return Region{}, ErrPropLen
	}
	if i < 0 || i >= len(v)/entry {
		return Region{}, ErrIndex
	}
	off := i * entry
	addr := cells(v, off, int(ac))
	size := cells(v, off+4*int(ac), int(sc))
	return Region{Addr: addr, Size: size}, OK
}

// cells reads n (at most 2) big-endian cells at off as one number.
func cells(v []byte, off, n int) uint64 {
	var x uint64
	for i := 0; i < n; i++ {
		c, _ := be32(v, off+4*i)
		x = x<<32 | uint64(c)
	}
	return x
}
