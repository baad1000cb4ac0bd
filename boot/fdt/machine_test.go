package fdt

import (
	"fmt"
	"path/filepath"
	"testing"
)

// handMachine is a tree with what QEMU virt does not show: a stdout-path
// through an alias with options, a second PL011, disabled devices,
// reserved memory, two memory nodes, PSCI 0.1 over SMC, GICv3 with two
// redistributor regions and 64-bit MPIDRs.
func handMachine() *tnode {
	return node("",
		pcells("#address-cells", 2), pcells("#size-cells", 2), pcells("interrupt-parent", 1),
		node("aliases", pstr("serial0", "/uart@2000")),
		node("chosen", pstr("stdout-path", "serial0:115200n8"), pstr("bootargs", "x=1"), praw("rng-seed", []byte{1, 2, 3})),
		node("memory@80000000", pstr("device_type", "memory"),
			pcells("reg", 0, 0x80000000, 0, 0x1000000, 0, 0x90000000, 0, 0, 1, 0, 0, 0x2000)),
		node("memory@200000000", pstr("device_type", "memory"), pcells("reg", 2, 0, 0, 0x1000)),
		node("memory@300000000", pstr("device_type", "memory"), pstr("status", "disabled"), pcells("reg", 3, 0, 0, 0x1000)),
		node("reserved-memory", pcells("#address-cells", 1), pcells("#size-cells", 1), pempty("ranges"),
			node("fw@80000000", pcells("reg", 0x80000000, 0x10000)),
			node("pool", pcells("size", 0x100000)), // dynamic: no reg
			node("gone@80100000", pstr("status", "disabled"), pcells("reg", 0x80100000, 0x10000)),
		),
		node("intc@8000000", pstr("compatible", "arm,gic-v3"), pcells("#interrupt-cells", 3), pcells("phandle", 1),
			pcells("#redistributor-regions", 2),
			pcells("reg", 0, 0x8000000, 0, 0x10000, 0, 0x80a0000, 0, 0xf60000, 0x40, 0, 0, 0x4000000)),
		node("uart@1000", pstr("compatible", "arm,pl011", "arm,primecell"), pcells("reg", 0, 0x1000, 0, 0x1000),
			pcells("interrupts", GICSPI, 1, 4)),
		node("uart@2000", pstr("compatible", "arm,pl011"), pcells("reg", 0, 0x2000, 0, 0x1000),
			pcells("interrupts", GICSPI, 2, 4)),
		node("rtc@3000", pstr("compatible", "arm,pl031"), pcells("reg", 0, 0x3000, 0, 0x1000)), // no interrupt
		node("virtio@a000000", pstr("compatible", "virtio,mmio"), pcells("reg", 0, 0xa000000, 0, 0x200),
			pcells("interrupts", GICSPI, 16, 1)),
		node("virtio@a000200", pstr("compatible", "virtio,mmio"), pstr("status", "disabled"),
			pcells("reg", 0, 0xa000200, 0, 0x200), pcells("interrupts", GICSPI, 17, 1)),
		node("virtio@a000400", pstr("compatible", "virtio,mmio"), pcells("reg", 0, 0xa000400, 0, 0x200),
			pcells("interrupts", GICSPI, 18, 1)),
		node("timer", pstr("compatible", "arm,armv7-timer"),
			pcells("interrupts", GICPPI, 13, 4, GICPPI, 14, 4, GICPPI, 11, 4, GICPPI, 10, 4)),
		node("psci", pstr("compatible", "arm,psci"), pstr("method", "smc")),
		node("cpus", pcells("#address-cells", 2), pcells("#size-cells", 0),
			node("cpu-map", node("cluster0", node("core0", pcells("cpu", 5)))),
			node("cpu@0", pstr("device_type", "cpu"), pcells("reg", 0, 0)),
			node("cpu@100000000", pstr("device_type", "cpu"), pstr("status", "disabled"), pcells("reg", 1, 0)),
		),
		node("soc", node("cpus", node("cpu@9", pstr("device_type", "cpu"), pcells("reg", 0, 9)))), // not /cpus
	)
}

func TestMachineHandBuilt(t *testing.T) {
	w := newWriter()
	w.rsv = []Region{{0x48000000, 0x1000}}
	w.bootCPU = 0x100000000 >> 32
	w.tree(handMachine())
	w.end()
	b := Blob(w.blob(0))
	var m Machine
	if err := b.ReadMachine(&m); err != OK {
		t.Fatalf("Machine: %v\n%s", err, dump(b))
	}
	wantMem := []Region{{0x80000000, 0x1000000}, {1 << 32, 0x2000}, {2 << 32, 0x1000}}
	if fmt.Sprint(m.Memory[:m.NumMemory]) != fmt.Sprint(wantMem) {
		t.Errorf("memory %x", m.Memory[:m.NumMemory])
	}
	wantRsv := []Region{{0x48000000, 0x1000}, {0x80000000, 0x10000}}
	if fmt.Sprint(m.Reserved[:m.NumReserved]) != fmt.Sprint(wantRsv) {
		t.Errorf("reserved %x", m.Reserved[:m.NumReserved])
	}
	if string(m.Bootargs.Bytes(b)) != "x=1" || string(m.RNGSeed.Bytes(b)) != "\x01\x02\x03" || m.BootCPU != 1 {
		t.Errorf("chosen: %q %q, boot cpu %d", m.Bootargs.Bytes(b), m.RNGSeed.Bytes(b), m.BootCPU)
	}
	if string(b.Name(m.UART.Node)) != "uart@2000" || m.UART.Reg.Addr != 0x2000 || m.UART.INTID != 34 {
		t.Errorf("uart %+v (%q)", m.UART, b.Name(m.UART.Node))
	}
	if m.RTC.Reg.Addr != 0x3000 || m.RTC.INTID != 0 || !m.RTC.Present() {
		t.Errorf("rtc %+v", m.RTC)
	}
	g := m.GIC
	if g.Version != 3 || g.Dist.Addr != 0x8000000 || g.NumRedist != 2 || g.Redist[0].Addr != 0x80a0000 ||
		g.Redist[1] != (Region{0x40_0000_0000, 0x4000000}) || g.CPU != (Region{}) {
		t.Errorf("gic %+v", g)
	}
	if m.Timer.SecurePhys != 29 || m.Timer.Phys != 30 || m.Timer.Virt != 27 || m.Timer.Hyp != 26 {
		t.Errorf("timer %+v", m.Timer)
	}
	if m.NumVirtio != 2 || m.Virtio[0].INTID != 48 || m.Virtio[1].Reg.Addr != 0xa000400 || m.Virtio[1].INTID != 50 {
		t.Errorf("virtio %+v", m.Virtio[:m.NumVirtio])
	}
	if m.PSCI.Method != PSCISMC || m.PSCI.CPUOn != 0 {
		t.Errorf("psci %+v", m.PSCI)
	}
	if m.NumCPUs != 2 || m.CPUs[0] != 0 || m.CPUs[1] != 1<<32 {
		t.Errorf("cpus %x", m.CPUs[:m.NumCPUs])
	}
}

// TestMachineVariants edits the hand-built tree one way at a time.
func TestMachineVariants(t *testing.T) {
	tests := []struct {
		name  string
		edit  func(root *tnode)
		check func(m *Machine) bool
		want  Err
	}{
		{"stdout-path by path", func(r *tnode) { find(r, "chosen").props[0] = pstr("stdout-path", "/uart@1000") },
			func(m *Machine) bool { return m.UART.Reg.Addr == 0x1000 }, OK},
		{"stdout-path to a non-UART", func(r *tnode) { find(r, "chosen").props[0] = pstr("stdout-path", "/rtc@3000") },
			func(m *Machine) bool { return m.UART.Reg.Addr == 0x1000 }, OK},
		{"stdout-path nowhere", func(r *tnode) { find(r, "chosen").props[0] = pstr("stdout-path", "serial7") },
			func(m *Machine) bool { return m.UART.Reg.Addr == 0x1000 }, OK},
		{"legacy linux,stdout-path", func(r *tnode) { find(r, "chosen").props[0] = pstr("linux,stdout-path", "/uart@2000") },
			func(m *Machine) bool { return m.UART.Reg.Addr == 0x2000 }, OK},
		{"bootargs not a string", func(r *tnode) { find(r, "chosen").props[1] = praw("bootargs", []byte("x")) },
			func(m *Machine) bool { return m.Bootargs == Span{} }, OK},
		{"PSCI 0.2 without cpu_on", func(r *tnode) { find(r, "psci").props[0] = pstr("compatible", "arm,psci-0.2", "arm,psci") },
			func(m *Machine) bool { return m.PSCI.CPUOn == PSCICPUOn64 }, OK},
		{"PSCI cpu_on given", func(r *tnode) { find(r, "psci").props = append(find(r, "psci").props, pcells("cpu_on", 0x95c1ba5e)) },
			func(m *Machine) bool { return m.PSCI.CPUOn == 0x95c1ba5e }, OK},
		{"PSCI unknown method", func(r *tnode) { find(r, "psci").props[1] = pstr("method", "svc") },
			func(m *Machine) bool { return m.PSCI.Method == PSCINone && m.PSCI.Node.Valid() }, OK},
		{"GICv2", func(r *tnode) {
			gic := find(r, "intc@8000000")
			gic.props[0] = pstr("compatible", "arm,gic-400")
			gic.props[4] = pcells("reg", 0, 0x8000000, 0, 0x1000, 0, 0x8010000, 0, 0x2000)
		}, func(m *Machine) bool {
			return m.GIC.Version == 2 && m.GIC.CPU == Region{0x8010000, 0x2000} && m.GIC.NumRedist == 0
		}, OK},
		{"GICv3 default one redistributor region", func(r *tnode) { find(r, "intc@8000000").props[3] = pempty("x") },
			func(m *Machine) bool { return m.GIC.NumRedist == 1 }, OK},
		{"no devices at all", func(r *tnode) { r.kids = r.kids[2:4] }, func(m *Machine) bool {
			return !m.UART.Present() && !m.RTC.Present() && m.GIC.Version == 0 && m.NumVirtio == 0 && m.NumCPUs == 0
		}, OK},
		{"no memory", func(r *tnode) { r.kids = append(r.kids[:2], r.kids[5:]...) }, nil, ErrNoMemory},
		{"memory without reg", func(r *tnode) { find(r, "memory@200000000").props[1] = pempty("x") }, nil, ErrNotFound},
		{"too many redistributor regions", func(r *tnode) { find(r, "intc@8000000").props[3] = pcells("#redistributor-regions", MaxRedist+1) },
			nil, ErrCells},
		{"redistributor region missing", func(r *tnode) { find(r, "intc@8000000").props[3] = pcells("#redistributor-regions", 3) },
			nil, ErrIndex},
		{"timer with three interrupts", func(r *tnode) { find(r, "timer").props[1] = pcells("interrupts", 1, 13, 4, 1, 14, 4, 1, 11, 4) },
			func(m *Machine) bool { return m.Timer.Virt == 27 && m.Timer.Hyp == 0 }, OK},
		{"timer interrupts malformed", func(r *tnode) { find(r, "timer").props[1] = pcells("interrupts", 1, 13) },
			nil, ErrPropLen},
		{"virtio reg malformed", func(r *tnode) { find(r, "virtio@a000000").props[1] = pcells("reg", 1) }, nil, ErrPropLen},
		{"uart interrupt parent missing", func(r *tnode) { r.props[2] = pcells("interrupt-parent", 77) }, nil, ErrNoInterruptParent},
		{"cpu reg missing", func(r *tnode) { find(r, "cpus").kids[1].props[1] = pempty("x") }, nil, ErrNotFound},
		{"too many virtio", func(r *tnode) { r.kids = append(r.kids, copies(find(r, "virtio@a000000"), MaxVirtio)...) }, nil, ErrTooManyVirtio},
		{"most virtio", func(r *tnode) { r.kids = append(r.kids, copies(find(r, "virtio@a000000"), MaxVirtio-2)...) },
			func(m *Machine) bool { return m.NumVirtio == MaxVirtio }, OK},
		{"too many cpus", func(r *tnode) {
			cpus := find(r, "cpus")
			cpus.kids = append(cpus.kids, copies(cpus.kids[1], MaxCPUs-1)...)
		}, nil, ErrTooManyCPUs},
		{"too many memory ranges", func(r *tnode) { r.kids = append(r.kids, copies(find(r, "memory@200000000"), MaxMemory-2)...) }, nil, ErrTooManyMemory},
		{"too many reserved ranges", func(r *tnode) {
			rm := find(r, "reserved-memory")
			rm.kids = append(rm.kids, copies(rm.kids[0], MaxReserved)...)
		}, nil, ErrTooManyReserved},
	}
	for _, tt := range tests {
		root := handMachine()
		tt.edit(root)
		b := Blob(build(root))
		var m Machine
		err := b.ReadMachine(&m)
		if err != tt.want || tt.check != nil && !tt.check(&m) {
			t.Errorf("%s: %v, want %v; %+v", tt.name, err, tt.want, m.GIC)
		}
	}
}

// find is the first child of n with the given name.
func find(n *tnode, name string) *tnode {
	for _, k := range n.kids {
		if k.name == name {
			return k
		}
	}
	panic("find: no " + name)
}

// copies is count copies of n, renamed so they stay distinct.
func copies(n *tnode, count int) []*tnode {
	out := make([]*tnode, count)
	for i := range out {
		c := *n
		c.name = fmt.Sprintf("%s-%d", n.name, i)
		out[i] = &c
	}
	return out
}

// TestMachineAllocs checks on the host what the escape analysis promises:
// reading the machine and the generic lookups allocate nothing.
func TestMachineAllocs(t *testing.T) {
	b := Blob(readFile(t, filepath.Join("testdata", "virt.dtb")))
	var m Machine
	allocs := testing.AllocsPerRun(10, func() {
		if err := b.ReadMachine(&m); err != OK {
			t.Fatal(err)
		}
		chosen, _ := b.Path("/chosen")
		_, _ = b.StringProp(chosen, "bootargs")
		n, _ := b.Compatible("virtio,mmio", 3)
		_, _ = b.Reg(n, 0)
		_, _ = b.Interrupt(n, 0)
		_, _ = b.Named("memory", 0)
		_, _ = b.Alias("serial0")
	})
	if allocs != 0 {
		t.Errorf("%v allocations", allocs)
	}
}
