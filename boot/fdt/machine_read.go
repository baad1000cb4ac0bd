package fdt

// Compatible strings this package recognizes.
var (
	gicV2Compatibles = [...]string{"arm,cortex-a15-gic", "arm,gic-400", "arm,cortex-a9-gic", "arm,cortex-a7-gic"}
	timerCompatibles = [...]string{"arm,armv8-timer", "arm,armv7-timer"}
	psciCompatibles  = [...]string{"arm,psci-1.0", "arm,psci-0.2", "arm,psci"}
)

// ReadMachine checks the blob (Check) and fills m in one walk of the tree.
// The only required content is memory (ErrNoMemory without it); a node it
// reads that is malformed (a reg or interrupts it cannot split) is an
// error, so a kernel never runs on half a description. On error m holds
// what was read so far.
func (b Blob) ReadMachine(m *Machine) Err {
	*m = Machine{}
	if err := b.Check(); err != OK {
		return err
	}
	h, _ := b.Header()
	m.BootCPU = h.BootCPU
	for i := 0; ; i++ {
		r, err := b.Reservation(i)
		if err == ErrIndex {
			break
		}
		if err != OK {
			return err
		}
		if err := m.reserve(r); err != OK {
			return err
		}
	}
	w, err := b.newWalker()
	if err != OK {
		return err
	}
	var cache irqCache
	var stdout Span
	for !w.done {
		t, err := w.step(b)
		if err != OK {
			return err
		}
		if t.kind != tokBeginNode {
			continue
		}
		if err := m.visit(b, Node{at: uint32(t.at)}, w.context(), &cache, &stdout); err != OK {
			return err
		}
	}
	if err := m.pickStdout(b, stdout, &cache); err != OK {
		return err
	}
	if m.NumMemory == 0 {
		return ErrNoMemory
	}
	return OK
}

// visit reads node n, met at its BEGIN_NODE with context c.
func (m *Machine) visit(b Blob, n Node, c context, cache *irqCache, stdout *Span) Err {
	name := b.Name(n)
	parentName := b.Name(Node{at: c.parent.node})
	deviceType, _ := b.PropBytes(n, "device_type")
	switch {
	case c.depth == 2 && string(name) == "chosen":
		m.Bootargs = stringSpan(b, n, "bootargs")
		m.RNGSeed, _ = b.Prop(n, "rng-seed")
		if *stdout = stringSpan(b, n, "stdout-path"); stdout.Len == 0 {
			*stdout = stringSpan(b, n, "linux,stdout-path")
		}
		return OK
	case c.depth == 3 && nameMatches(parentName, "cpus") && listHas(deviceType, "cpu"):
		return m.addCPU(b, n, c)
	}
	if !b.Enabled(n) {
		return OK
	}
	// One read of compatible, matched against every string below.
	compat, _ := b.PropBytes(n, "compatible")
	switch {
	case listHas(deviceType, "memory"):
		return m.addRegs(b, n, c, false)
	case c.depth == 3 && string(parentName) == "reserved-memory":
		return m.addRegs(b, n, c, true)
	case listHas(compat, "virtio,mmio"):
		if m.NumVirtio == MaxVirtio {
			return ErrTooManyVirtio
		}
		d, err := b.device(n, c, cache)
		m.Virtio[m.NumVirtio] = d
		m.NumVirtio++
		return err
	case listHas(compat, "arm,pl011"):
		if m.UART.Present() {
			return OK
		}
		var err Err
		m.UART, err = b.device(n, c, cache)
		return err
	case listHas(compat, "arm,pl031"):
		if m.RTC.Present() {
			return OK
		}
		var err Err
		m.RTC, err = b.device(n, c, cache)
		return err
	case listHasAny(compat, gicV2Compatibles[:]):
		return m.readGIC(b, n, c, 2)
	case listHas(compat, "arm,gic-v3"):
		return m.readGIC(b, n, c, 3)
	case listHasAny(compat, timerCompatibles[:]):
		return m.readTimer(b, n, c, cache)
	case listHasAny(compat, psciCompatibles[:]):
		m.readPSCI(b, n, compat)
	}
	return OK
}

func listHasAny(list []byte, ss []string) bool {
	for _, s := range ss {
		if listHas(list, s) {
			return true
		}
	}
	return false
}

// stringSpan is n's string property name without its NUL, or an empty
// span if it is absent or not a string.
func stringSpan(b Blob, n Node, name string) Span {
	s, err := b.Prop(n, name)
	if err != OK {
		return Span{}
	}
	if _, err := b.StringProp(n, name); err != OK {
		return Span{}
	}
	return Span{Off: s.Off, Len: s.Len - 1}
}

func (m *Machine) reserve(r Region) Err {
	if m.NumReserved == MaxReserved {
		return ErrTooManyReserved
	}
	m.Reserved[m.NumReserved] = r
	m.NumReserved++
	return OK
}

// addRegs appends every non-empty reg entry of n to Memory, or to Reserved.
func (m *Machine) addRegs(b Blob, n Node, c context, reserved bool) Err {
	for i := 0; ; i++ {
		r, err := b.regWith(n, c.parent, i)
		switch {
		case err == ErrIndex || err == ErrNotFound && reserved:
			return OK // done; a reserved node may be dynamic (size, no reg)
		case err != OK:
			return err
		case r.Size == 0:
		case reserved:
			if err := m.reserve(r); err != OK {
				return err
			}
		case m.NumMemory == MaxMemory:
			return ErrTooManyMemory
		default:
			m.Memory[m.NumMemory] = r
			m.NumMemory++
		}
	}
}

// addCPU records a cpu node's reg, its MPIDR affinity. /cpus has
// #size-cells 0, so the entry is an address alone. Disabled CPUs are kept:
// for a CPU, status "disabled" means "not running yet, start it with its
// enable-method" (spec 3.8.1).
func (m *Machine) addCPU(b Blob, n Node, c context) Err {
	if m.NumCPUs == MaxCPUs {
		return ErrTooManyCPUs
	}
	r, err := b.regWith(n, c.parent, 0)
	if err != OK {
		return err
	}
	m.CPUs[m.NumCPUs] = r.Addr
	m.NumCPUs++
	return OK
}

// device reads n's first reg entry and first interrupt.
func (b Blob) device(n Node, c context, cache *irqCache) (Device, Err) {
	d := Device{Node: n}
	var err Err
	if d.Reg, err = b.regWith(n, c.parent, 0); err != OK {
		return d, err
	}
	in, err := b.interruptCached(n, c, cache, 0)
	if err == ErrNotFound {
		return d, OK
	}
	d.INTID, _ = in.GICINTID()
	return d, err
}

// readGIC records the first GIC: GICv2 reg is distributor, CPU interface
// (then hypervisor and virtual CPU interfaces); GICv3 reg is distributor,
// #redistributor-regions redistributor regions (default 1), then others.
func (m *Machine) readGIC(b Blob, n Node, c context, version int) Err {
	if m.GIC.Version != 0 {
		return OK
	}
	g := GIC{Node: n, Version: version}
	var err Err
	if g.Dist, err = b.regWith(n, c.parent, 0); err != OK {
		return err
	}
	if version == 2 {
		g.CPU, err = b.regWith(n, c.parent, 1)
	} else {
		regions, e := b.U32(n, "#redistributor-regions")
		if e == ErrNotFound {
			regions, e = 1, OK
		}
		if e != OK || regions == 0 || regions > MaxRedist {
			return ErrCells
		}
		for i := 0; i < int(regions) && err == OK; i++ {
			g.Redist[i], err = b.regWith(n, c.parent, 1+i)
			g.NumRedist = i + 1
		}
	}
	m.GIC = g
	return err
}

// readTimer records the architected timer's PPIs as INTIDs. The binding
// allows fewer than four (minItems 1); the missing ones stay 0.
func (m *Machine) readTimer(b Blob, n Node, c context, cache *irqCache) Err {
	if m.Timer.Node.Valid() {
		return OK
	}
	m.Timer.Node = n
	var ids [4]uint32
	for i := range ids {
		in, err := b.interruptCached(n, c, cache, i)
		if err == ErrIndex {
			break
		}
		if err != OK {
			return err
		}
		ids[i], _ = in.GICINTID()
	}
	m.Timer.SecurePhys, m.Timer.Phys, m.Timer.Virt, m.Timer.Hyp = ids[0], ids[1], ids[2], ids[3]
	return OK
}

// readPSCI records the conduit and CPU_ON function ID.
func (m *Machine) readPSCI(b Blob, n Node, compat []byte) {
	if m.PSCI.Node.Valid() {
		return
	}
	p := PSCIInfo{Node: n}
	method, _ := b.StringProp(n, "method")
	switch string(method) {
	case "hvc":
		p.Method = PSCIHVC
	case "smc":
		p.Method = PSCISMC
	}
	var err Err
	if p.CPUOn, err = b.U32(n, "cpu_on"); err != OK {
		p.CPUOn = 0
		// PSCI 0.1 ("arm,psci" alone) has no standard IDs.
		if !listHas(compat, "arm,psci") || listHas(compat, "arm,psci-0.2") || listHas(compat, "arm,psci-1.0") {
			p.CPUOn = PSCICPUOn64
		}
	}
	m.PSCI = p
}

// pickStdout makes the PL011 that stdout-path names ("/pl011@9000000",
// or an alias, either with ":options" after it) the UART.
func (m *Machine) pickStdout(b Blob, stdout Span, cache *irqCache) Err {
	p := stdout.Bytes(b)
	for i, ch := range p {
		if ch == ':' {
			p = p[:i]
			break
		}
	}
	if len(p) == 0 {
		return OK
	}
	var n Node
	var err Err
	if p[0] == '/' {
		n, err = findPath(b, p)
	} else {
		n, err = alias(b, p)
	}
	if err != OK || n == m.UART.Node || !b.Enabled(n) || !b.HasString(n, "compatible", "arm,pl011") {
		return OK // not a PL011 we can use: keep the first one
	}
	c, err := b.context(n)
	if err != OK {
		return err
	}
	m.UART, err = b.device(n, c, cache)
	return err
}
