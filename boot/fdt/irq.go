package fdt

// MaxInterruptCells is the largest #interrupt-cells that Interrupt reads.
// The GIC uses 3 (type, number, flags), GICv3 with affinity 4.
const MaxInterruptCells = 4

// Interrupt is one entry of an interrupts property: Cells[:NCells] as its
// interrupt parent Parent defines them.
type Interrupt struct {
	Parent Node
	NCells int
	Cells  [MaxInterruptCells]uint32
}

// Interrupt is entry i of n's interrupts property, split with the
// #interrupt-cells of n's interrupt parent. The parent is found as Linux
// does (spec 2.4.1): n's interrupt-parent phandle, else the nearest
// ancestor that has #interrupt-cells or an interrupt-parent of its own. A
// phandle must lead straight to a node with #interrupt-cells: chains through
// other nodes, and interrupts-extended, are not followed
// (ErrNoInterruptParent). ErrIndex means i is past the last entry.
func (b Blob) Interrupt(n Node, i int) (Interrupt, Err) {
	c, err := b.context(n)
	if err != OK {
		return Interrupt{}, err
	}
	var cache irqCache
	return b.interruptCached(n, c, &cache, i)
}

// interruptCached is Interrupt with the context known and the parent
// lookup cached. A node without interrupts is ErrNotFound before any
// parent lookup, so a broken interrupt-parent on a node that has no
// interrupts is no error.
func (b Blob) interruptCached(n Node, c context, cache *irqCache, i int) (Interrupt, Err) {
	if _, err := b.Prop(n, "interrupts"); err != OK {
		return Interrupt{}, err
	}
	ref, err := b.ownIRQRef(n, c.self.inherited)
	if err != OK {
		return Interrupt{}, err
	}
	ctrl, ncells, err := cache.resolve(b, ref)
	if err != OK {
		return Interrupt{}, err
	}
	return b.interruptWith(n, ctrl, ncells, i)
}

// irqCache remembers the last interrupt parent resolved: ReadMachine
// reads many devices, and on QEMU virt they all name the same GIC, while
// each lookup by phandle is a walk of the tree.
type irqCache struct {
	ref    irqRef
	ctrl   Node
	ncells int
	err    Err
	full   bool
}

func (c *irqCache) resolve(b Blob, ref irqRef) (Node, int, Err) {
	if !c.full || c.ref != ref {
		c.ctrl, c.ncells, c.err = b.resolveIRQ(ref)
		c.ref, c.full = ref, true
	}
	return c.ctrl, c.ncells, c.err
}

// ownIRQRef is n's own interrupt-parent if it has one, else inherited.
func (b Blob) ownIRQRef(n Node, inherited irqRef) (irqRef, Err) {
	switch own, err := b.U32(n, "interrupt-parent"); err {
	case OK:
		return irqRef{phandle: own}, OK
	case ErrNotFound:
		return inherited, OK
	}
	return irqRef{}, ErrNoInterruptParent
}

// resolveIRQ finds the controller ref names and reads its #interrupt-cells.
func (b Blob) resolveIRQ(ref irqRef) (Node, int, Err) {
	ctrl := Node{at: ref.node}
	if ref.node == 0 {
		var err Err
		if ctrl, err = b.ByPhandle(ref.phandle); err != OK {
			return Node{}, 0, ErrNoInterruptParent
		}
	}
	ncells, err := b.U32(ctrl, "#interrupt-cells")
	if err == ErrNotFound {
		return Node{}, 0, ErrNoInterruptParent
	}
	if err != OK || ncells == 0 || ncells > MaxInterruptCells {
		return Node{}, 0, ErrCells
	}
	return ctrl, int(ncells), OK
}

// interruptWith is entry i of n's interrupts, ncells cells each.
func (b Blob) interruptWith(n, parent Node, ncells, i int) (Interrupt, Err) {
	v, err := b.PropBytes(n, "interrupts")
	if err != OK {
		return Interrupt{}, err
	}
	if ncells <= 0 || ncells > MaxInterruptCells {
		return Interrupt{}, ErrCells
	}
	entry := 4 * ncells
	if len(v)%entry != 0 {
		return Interrupt{}, ErrPropLen
	}
	if i < 0 || i >= len(v)/entry {
		return Interrupt{}, ErrIndex
	}
	in := Interrupt{Parent: parent, NCells: ncells}
	for j := 0; j < ncells; j++ {
		in.Cells[j], _ = be32(v, i*entry+4*j)
	}
	return in, OK
}

// GIC interrupt specifier types, the first of its cells (Linux
// Documentation/devicetree/bindings/interrupt-controller/arm,gic*.yaml).
const (
	GICSPI  = 0
	GICPPI  = 1
	GICESPI = 2 // GICv3.1 extended SPI
	GICEPPI = 3 // GICv3.1 extended PPI
)

// GICINTID is the GIC interrupt ID of a GIC interrupt specifier (type,
// number, flags): SPI n is INTID 32+n, PPI n is 16+n, extended SPI n is
// 4096+n and extended PPI n is 1056+n. It reports false (and 0) for fewer
// than 3 cells, another type or a number out of its type's range. It
// trusts the caller that Parent is a GIC.
func (in Interrupt) GICINTID() (uint32, bool) {
	if in.NCells < 3 {
		return 0, false
	}
	var base, count uint32
	switch in.Cells[0] {
	case GICSPI:
		base, count = 32, 988
	case GICPPI:
		base, count = 16, 16
	case GICESPI:
		base, count = 4096, 1024
	case GICEPPI:
		base, count = 1056, 64
	default:
		return 0, false
	}
	if in.Cells[1] >= count {
		return 0, false
	}
	return base + in.Cells[1], true
}
