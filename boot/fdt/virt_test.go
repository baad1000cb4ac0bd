package fdt

import (
	"strconv"
	"strings"
	"testing"
)

// QEMU 7.2 hw/arm/virt.c's memory map and interrupt numbers.
const (
	virtRAM       = 0x40000000
	virtGICD      = 0x08000000
	virtGICC      = 0x08010000
	virtGICR      = 0x080a0000
	virtGICRSize  = 0xf60000 // 123 redistributors of 128 KiB
	virtGICR2     = 0x4000000000
	virtGICR2Size = 0x4000000
	virtUART      = 0x09000000
	virtRTC       = 0x09010000
	virtVirtio    = 0x0a000000
	virtVirtioN   = 32
	virtVirtioSPI = 16
)

// checkVirt checks a QEMU virt DTB made from config c against QEMU's
// layout, through Machine and through the generic calls.
func checkVirt(t *testing.T, c qemuConfig, blob []byte) {
	t.Helper()
	b := Blob(blob)
	if err := b.Check(); err != OK {
		t.Fatalf("Check: %v", err)
	}
	var m Machine
	if err := b.ReadMachine(&m); err != OK {
		t.Fatalf("Machine: %v\n%s", err, dump(b))
	}
	mem, _ := strconv.ParseUint(strings.TrimSuffix(strings.TrimSuffix(c.mem, "M"), "G"), 10, 64)
	if strings.HasSuffix(c.mem, "G") {
		mem <<= 30
	} else {
		mem <<= 20
	}
	if m.NumMemory != 1 || m.Memory[0] != (Region{virtRAM, mem}) {
		t.Errorf("memory %x", m.Memory[:m.NumMemory])
	}
	if m.NumReserved != 0 || m.BootCPU != 0 {
		t.Errorf("reserved %x, boot cpu %d", m.Reserved[:m.NumReserved], m.BootCPU)
	}
	if got := string(m.Bootargs.Bytes(b)); got != c.bootargs {
		t.Errorf("bootargs %q, want %q", got, c.bootargs)
	}
	if m.RNGSeed.Len != 32 || m.RNGSeed.Bytes(b) == nil {
		t.Errorf("rng-seed %+v", m.RNGSeed)
	}
	if m.UART.Reg != (Region{virtUART, 0x1000}) || m.UART.INTID != 32+1 || string(b.Name(m.UART.Node)) != "pl011@9000000" {
		t.Errorf("uart %+v", m.UART)
	}
	if m.RTC.Reg != (Region{virtRTC, 0x1000}) || m.RTC.INTID != 32+2 {
		t.Errorf("rtc %+v", m.RTC)
	}
	gic := GIC{Node: m.GIC.Node, Version: 2, Dist: Region{virtGICD, 0x10000}, CPU: Region{virtGICC, 0x10000}}
	if c.gic == 3 {
		gic.CPU = Region{}
		gic.Version, gic.NumRedist, gic.Redist[0] = 3, 1, Region{virtGICR, virtGICRSize}
		if c.cpus > virtGICRSize/0x20000 {
			// More CPUs than the low region holds: the second,
			// high region (VIRT_HIGH_GIC_REDIST2) follows.
			gic.NumRedist, gic.Redist[1] = 2, Region{virtGICR2, virtGICR2Size}
		}
	}
	if m.GIC != gic || !m.GIC.Node.Valid() {
		t.Errorf("gic %+v, want %+v", m.GIC, gic)
	}
	if tm := m.Timer; tm.SecurePhys != 29 || tm.Phys != 30 || tm.Virt != 27 || tm.Hyp != 26 {
		t.Errorf("timer %+v", m.Timer)
	}
	if m.NumVirtio != virtVirtioN {
		t.Errorf("%d virtio slots", m.NumVirtio)
	}
	for i, d := range m.Virtio[:m.NumVirtio] {
		if d.Reg != (Region{virtVirtio + 0x200*uint64(i), 0x200}) || d.INTID != 32+virtVirtioSPI+uint32(i) {
			t.Errorf("virtio %d: %+v", i, d)
		}
	}
	if m.PSCI.Method != PSCIHVC || m.PSCI.CPUOn != PSCICPUOn64 {
		t.Errorf("psci %+v", m.PSCI)
	}
	if m.NumCPUs != c.cpus {
		t.Errorf("%d cpus, want %d", m.NumCPUs, c.cpus)
	}
	perCluster := 8 // virt_cpu_mp_affinity: GICv2's target list is 8 bits
	if c.gic == 3 {
		perCluster = 16
	}
	for i, mpidr := range m.CPUs[:m.NumCPUs] {
		if want := uint64(i/perCluster)<<8 | uint64(i%perCluster); mpidr != want {
			t.Errorf("cpu %d: mpidr %#x, want %#x", i, mpidr, want)
		}
	}
	checkVirtGeneric(t, b, m)
}

// checkVirtGeneric checks the generic calls against the same blob.
func checkVirtGeneric(t *testing.T, b Blob, m Machine) {
	t.Helper()
	chosen, err := b.Path("/chosen")
	if err != OK {
		t.Fatalf("/chosen: %v", err)
	}
	if v, err := b.StringProp(chosen, "stdout-path"); err != OK || string(v) != "/pl011@9000000" {
		t.Errorf("stdout-path %q %v", v, err)
	}
	for _, path := range []string{"/memory@40000000", "/memory", "//memory/"} {
		n, err := b.Path(path)
		if r, rerr := b.Reg(n, 0); err != OK || rerr != OK || r != m.Memory[0] {
			t.Errorf("%s: %v %v %x", path, err, rerr, r)
		}
	}
	if n, err := b.Named("memory", 0); err != OK || string(b.Name(n)) != "memory@40000000" {
		t.Errorf("Named memory: %v %q", err, b.Name(n))
	}
	last, err := b.Compatible("virtio,mmio", virtVirtioN-1)
	if err != OK || last != m.Virtio[virtVirtioN-1].Node {
		t.Errorf("Compatible virtio 31: %v", err)
	}
	if _, err := b.Compatible("virtio,mmio", virtVirtioN); err != ErrNotFound {
		t.Errorf("Compatible virtio 32: %v", err)
	}
	in, err := b.Interrupt(m.UART.Node, 0)
	if err != OK || in.Parent != m.GIC.Node || in.NCells != 3 || in.Cells != [4]uint32{GICSPI, 1, 4, 0} {
		t.Errorf("uart interrupt %+v %v", in, err)
	}
	if _, err := b.Interrupt(m.UART.Node, 1); err != ErrIndex {
		t.Errorf("uart interrupt 1: %v", err)
	}
	for i, want := range []uint32{29, 30, 27, 26} {
		in, err := b.Interrupt(m.Timer.Node, i)
		if id, ok := in.GICINTID(); err != OK || !ok || id != want {
			t.Errorf("timer interrupt %d: %+v %v", i, in, err)
		}
	}
	if p, err := b.Parent(m.GIC.Node); err != OK || string(b.Name(p)) != "" {
		t.Errorf("parent of the GIC: %v %q", err, b.Name(p))
	}
	if _, err := b.Alias("serial0"); err != ErrNotFound {
		t.Errorf("QEMU virt has no /aliases, got %v", err)
	}
	// flash@0 has two reg entries (secure and non-secure flash).
	flash, _ := b.Path("/flash")
	if r, err := b.Reg(flash, 1); err != OK || r != (Region{0x04000000, 0x04000000}) {
		t.Errorf("flash reg 1: %x %v", r, err)
	}
	if _, err := b.Reg(flash, 2); err != ErrIndex {
		t.Errorf("flash reg 2: %v", err)
	}
	// PCI children use 3 address cells, which Reg refuses; the host
	// bridge itself is a root child.
	pcie, _ := b.Compatible("pci-host-ecam-generic", 0)
	if r, err := b.Reg(pcie, 0); err != OK || r.Size != 0x10000000 {
		t.Errorf("pcie reg: %x %v", r, err)
	}
}
