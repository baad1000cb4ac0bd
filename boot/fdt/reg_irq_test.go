package fdt

import "testing"

func TestReg(t *testing.T) {
	b := Blob(build(node("",
		pcells("reg", 0, 0x10, 0x20), // the root's own: default cells 2/1
		pcells("#address-cells", 2), pcells("#size-cells", 2),
		node("big", pcells("reg", 0x1, 0x80000000, 0x2, 0x00001000)),
		node("soc", pcells("#address-cells", 1), pcells("#size-cells", 1),
			node("dev", pcells("reg", 0x1000, 0x100, 0x2000, 0x200)),
			node("odd", pcells("reg", 0x1000, 0x100, 0x2000)),
			node("none"),
		),
		node("defaults", // no cells: children use 2 and 1
			node("dev", pcells("reg", 0, 0x3000, 0x300)),
		),
		node("cpus", pcells("#address-cells", 1), pcells("#size-cells", 0),
			node("cpu@101", pcells("reg", 0x101)),
		),
		node("pci", pcells("#address-cells", 3), pcells("#size-cells", 2),
			node("dev", pcells("reg", 0, 0, 0, 0, 0)),
		),
		node("zero", pcells("#address-cells", 0), pcells("#size-cells", 0),
			node("dev", pcells("reg")),
		),
		node("sizeonly", pcells("#address-cells", 0), pcells("#size-cells", 1),
			node("dev", pcells("reg", 0x40)),
		),
		node("malformed", praw("#address-cells", []byte{0, 0, 0, 0, 0, 0, 0, 1}), pcells("#size-cells", 1),
			node("dev", pcells("reg", 0, 0)),
		),
	)))
	if err := b.Check(); err != OK {
		t.Fatal(err)
	}
	tests := []struct {
		path string
		i    int
		want Region
		err  Err
	}{
		{"/", 0, Region{0x10, 0x20}, OK},
		{"/big", 0, Region{0x1_80000000, 0x2_00001000}, OK},
		{"/soc/dev", 0, Region{0x1000, 0x100}, OK},
		{"/soc/dev", 1, Region{0x2000, 0x200}, OK},
		{"/soc/dev", 2, Region{}, ErrIndex},
		{"/soc/dev", -1, Region{}, ErrIndex},
		{"/soc/odd", 0, Region{}, ErrPropLen},
		{"/soc/none", 0, Region{}, ErrNotFound},
		{"/defaults/dev", 0, Region{0x3000, 0x300}, OK},
		{"/cpus/cpu@101", 0, Region{0x101, 0}, OK},
		{"/pci/dev", 0, Region{}, ErrCells},
		{"/zero/dev", 0, Region{}, ErrCells},
		{"/sizeonly/dev", 0, Region{0, 0x40}, OK},
		{"/malformed/dev", 0, Region{}, ErrCells},
	}
	for _, tt := range tests {
		n, err := b.Path(tt.path)
		if err != OK {
			t.Fatalf("%s: %v", tt.path, err)
		}
		if r, err := b.Reg(n, tt.i); r != tt.want || err != tt.err {
			t.Errorf("Reg(%s, %d) = %x, %v; want %x, %v", tt.path, tt.i, r, err, tt.want, tt.err)
		}
	}
	if (Region{1<<64 - 0x10, 0x10}).End() != 0 {
		t.Error("End of a region at the top")
	}
}

func irqTree() *tnode {
	gic := node("gic", pcells("#interrupt-cells", 3), pempty("interrupt-controller"), pcells("phandle", 1))
	return node("",
		pcells("interrupt-parent", 1),
		gic,
		node("uart", pcells("interrupts", GICSPI, 1, 4)),
		node("timer", pcells("interrupts", GICPPI, 13, 0x304, GICPPI, 14, 0x304)),
		node("intc2", pcells("#interrupt-cells", 1), pcells("phandle", 2), pcells("interrupts", GICSPI, 9, 4),
			node("child", pcells("interrupts", 5)), // the tree parent has #interrupt-cells
		),
		node("own", pcells("interrupt-parent", 2), pcells("interrupts", 3, 4)),
		node("bus", pcells("interrupt-parent", 2),
			node("dev", pcells("interrupts", 6)), // inherits the bus's interrupt-parent
		),
		node("plain", pcells("phandle", 3)),
		node("to-plain", pcells("interrupt-parent", 3), pcells("interrupts", 1)),
		node("to-nowhere", pcells("interrupt-parent", 99), pcells("interrupts", 1)),
		node("malformed-parent", praw("interrupt-parent", []byte{0, 1}), pcells("interrupts", 1)),
		node("zero-cells", pcells("#interrupt-cells", 0), pcells("phandle", 4)),
		node("five-cells", pcells("#interrupt-cells", 5), pcells("phandle", 5)),
		node("to-zero", pcells("interrupt-parent", 4), pcells("interrupts", 1)),
		node("to-five", pcells("interrupt-parent", 5), pcells("interrupts", 1, 2, 3, 4, 5)),
		node("odd", pcells("interrupts", 0, 1)),
		node("none"),
		node("no-irq-bad-parent", praw("interrupt-parent", []byte{1})), // no interrupts, so no error about the parent
	)
}

func TestInterrupt(t *testing.T) {
	b := Blob(build(irqTree()))
	if err := b.Check(); err != OK {
		t.Fatal(err)
	}
	gic, _ := b.Path("/gic")
	intc2, _ := b.Path("/intc2")
	tests := []struct {
		path   string
		i      int
		parent Node
		cells  []uint32
		err    Err
	}{
		{"/uart", 0, gic, []uint32{0, 1, 4}, OK},
		{"/timer", 1, gic, []uint32{1, 14, 0x304}, OK},
		{"/timer", 2, Node{}, nil, ErrIndex},
		{"/intc2", 0, gic, []uint32{0, 9, 4}, OK}, // a controller's own interrupts go to its parent
		{"/intc2/child", 0, intc2, []uint32{5}, OK},
		{"/own", 1, intc2, []uint32{4}, OK},
		{"/bus/dev", 0, intc2, []uint32{6}, OK},
		{"/to-plain", 0, Node{}, nil, ErrNoInterruptParent},
		{"/to-nowhere", 0, Node{}, nil, ErrNoInterruptParent},
		{"/malformed-parent", 0, Node{}, nil, ErrNoInterruptParent},
		{"/to-zero", 0, Node{}, nil, ErrCells},
		{"/to-five", 0, Node{}, nil, ErrCells},
		{"/odd", 0, Node{}, nil, ErrPropLen},
		{"/none", 0, Node{}, nil, ErrNotFound},
		{"/no-irq-bad-parent", 0, Node{}, nil, ErrNotFound},
	}
	for _, tt := range tests {
		n, err := b.Path(tt.path)
		if err != OK {
			t.Fatalf("%s: %v", tt.path, err)
		}
		in, err := b.Interrupt(n, tt.i)
		if err != tt.err || in.Parent != tt.parent || in.NCells != len(tt.cells) {
			t.Errorf("Interrupt(%s, %d) = %+v, %v", tt.path, tt.i, in, err)
			continue
		}
		for j, c := range tt.cells {
			if in.Cells[j] != c {
				t.Errorf("Interrupt(%s, %d) cells %x, want %x", tt.path, tt.i, in.Cells[:in.NCells], tt.cells)
			}
		}
	}
	// Without any interrupt-parent there is no interrupt parent.
	b = Blob(build(node("", node("dev", pcells("interrupts", 0, 1, 4)))))
	dev, _ := b.Path("/dev")
	if _, err := b.Interrupt(dev, 0); err != ErrNoInterruptParent {
		t.Errorf("orphan: %v", err)
	}
}

func TestGICINTID(t *testing.T) {
	tests := []struct {
		in   Interrupt
		want uint32
		ok   bool
	}{
		{Interrupt{NCells: 3, Cells: [4]uint32{GICSPI, 0, 4}}, 32, true},
		{Interrupt{NCells: 3, Cells: [4]uint32{GICSPI, 987, 4}}, 1019, true},
		{Interrupt{NCells: 3, Cells: [4]uint32{GICSPI, 988, 4}}, 0, false},
		{Interrupt{NCells: 3, Cells: [4]uint32{GICPPI, 14, 0x304}}, 30, true},
		{Interrupt{NCells: 3, Cells: [4]uint32{GICPPI, 16, 4}}, 0, false},
		{Interrupt{NCells: 4, Cells: [4]uint32{GICESPI, 1023, 4, 0}}, 5119, true},
		{Interrupt{NCells: 3, Cells: [4]uint32{GICESPI, 1024, 4}}, 0, false},
		{Interrupt{NCells: 3, Cells: [4]uint32{GICEPPI, 63, 4}}, 1119, true},
		{Interrupt{NCells: 3, Cells: [4]uint32{GICEPPI, 64, 4}}, 0, false},
		{Interrupt{NCells: 3, Cells: [4]uint32{4, 1, 4}}, 0, false},
		{Interrupt{NCells: 2, Cells: [4]uint32{GICSPI, 1}}, 0, false},
		{Interrupt{NCells: 3, Cells: [4]uint32{GICSPI, 1<<32 - 1, 4}}, 0, false},
	}
	for _, tt := range tests {
		if id, ok := tt.in.GICINTID(); id != tt.want || ok != tt.ok {
			t.Errorf("%x: %d %v, want %d %v", tt.in.Cells, id, ok, tt.want, tt.ok)
		}
	}
}
