package arm64

import "testing"

// TestGICRegisters checks the register math against offsets computed by hand from the GIC
// architecture specifications (IHI 0048B §4.3, IHI 0069 §12.9).
func TestGICRegisters(t *testing.T) {
	for _, c := range []struct {
		intid uint32
		en    uintptr // GICD_ISENABLER<n> offset
		bit   uint32
		prio  uintptr // GICD_IPRIORITYR byte
		cfg   uintptr // GICD_ICFGR<n>
		shift uint32
	}{
		{0, 0x100, 1 << 0, 0x400, 0xc00, 0},
		{IntidVirtualTimer, 0x100, 1 << 27, 0x41b, 0xc04, 22},
		{IntidPhysicalTimer, 0x100, 1 << 30, 0x41e, 0xc04, 28},
		{32, 0x104, 1 << 0, 0x420, 0xc08, 0},
		{33, 0x104, 1 << 1, 0x421, 0xc08, 2},   // the PL011's SPI 1
		{79, 0x108, 1 << 15, 0x44f, 0xc10, 30}, // virtio-mmio's last SPI on -M virt
		{1019, 0x17c, 1 << 27, 0x7fb, 0xcfc, 22},
	} {
		off, bit := bitReg(gicdISENABLER, c.intid)
		if off != c.en || bit != c.bit {
			t.Errorf("INTID %d: enable reg %#x bit %#x, want %#x %#x", c.intid, off, bit, c.en, c.bit)
		}
		if p := byteReg(gicdIPRIORITYR, c.intid); p != c.prio {
			t.Errorf("INTID %d: priority byte %#x, want %#x", c.intid, p, c.prio)
		}
		if off, shift := cfgReg(c.intid); off != c.cfg || shift != c.shift {
			t.Errorf("INTID %d: config %#x<<%d, want %#x<<%d", c.intid, off, shift, c.cfg, c.shift)
		}
	}
	if r := routerReg(32); r != 0x6100 {
		t.Errorf("IROUTER32 at %#x, want 0x6100", r)
	}
	if r := routerReg(1019); r != 0x6000+1019*8 {
		t.Errorf("IROUTER1019 at %#x", r)
	}
}

func TestGICValues(t *testing.T) {
	for _, c := range []struct {
		typer, lines uint32
	}{{0, 32}, {2, 96}, {8, 288}, {0x1f, 1020}, {0xffff_ffe0, 32}} {
		if got := gicLines(c.typer); got != c.lines {
			t.Errorf("gicLines(%#x) = %d, want %d", c.typer, got, c.lines)
		}
	}
	if iarINTID(0x1c1b, false) != 0x01b || iarINTID(0x1c1b, true) != 0x1c1b {
		t.Error("iarINTID: GICv2 must drop the source CPU bits, GICv3 keep 24 bits")
	}
	if iarINTID(IntidSpurious, false) != IntidSpurious || iarINTID(IntidSpurious, true) != IntidSpurious {
		t.Error("spurious INTID lost")
	}
	if gicArchRev(0x3b) != 3 || gicArchRev(0x2b) != 2 {
		t.Error("gicArchRev")
	}
	// MPIDR: Aff3 in 39:32, Aff2 23:16, Aff1 15:8, Aff0 7:0; bit 31 RES1, bit 30 U, bit 24 MT.
	mpidr := uint64(0x12_8102_0304) | 1<<31 | 1<<24
	if got := mpidrAffinity(mpidr); got != 0x1202_0304 {
		t.Errorf("mpidrAffinity = %#x, want 0x12020304", got)
	}
	if got := routerAffinity(mpidr); got != 0x12_0002_0304 {
		t.Errorf("routerAffinity = %#x, want 0x1200020304", got)
	}
	if mpidrAffinity(1<<31) != 0 || routerAffinity(1<<31) != 0 {
		t.Error("CPU 0 must route to affinity 0")
	}
	if gicDefaultPriority >= gicPriorityMask {
		t.Error("the default priority would be masked")
	}
}

// TestPriorities: the kernel's mask lets the sampler's timer through and holds back everything
// else; the thread's mask lets all through; the IPI outranks the tick and the devices, so it
// wakes a CPU waiting for the kernel lock in their handlers.
func TestPriorities(t *testing.T) {
	if !(PrioritySampler < PriorityMaskKernel && PriorityMaskKernel <= PriorityIPI &&
		PriorityIPI < PriorityNormal && PriorityNormal < PriorityMaskThread) {
		t.Errorf("sampler %#x, kernel mask %#x, IPI %#x, normal %#x, thread mask %#x: out of order",
			PrioritySampler, PriorityMaskKernel, PriorityIPI, PriorityNormal, PriorityMaskThread)
	}
	// Preemption compares group priorities: with a binary point of 2 (GICv2's largest reset
	// value here) bits 7-3.
	if PrioritySampler>>3 == PriorityIPI>>3 || PriorityIPI>>3 == PriorityNormal>>3 {
		t.Error("two priorities share a group: one cannot preempt the other")
	}
}

// TestGICv2CPUInterfaceOffsets checks the CPU interface's register offsets against the GICv2
// architecture specification's register map (IHI 0048B Table 4-2).
func TestGICv2CPUInterfaceOffsets(t *testing.T) {
	for _, c := range []struct {
		name      string
		got, want uintptr
	}{
		{"GICC_CTLR", giccCTLR, 0x00},
		{"GICC_PMR", giccPMR, 0x04},
		{"GICC_BPR", giccBPR, 0x08},
		{"GICC_IAR", giccIAR, 0x0c},
		{"GICC_EOIR", giccEOIR, 0x10},
		{"GICC_HPPIR", giccHPPIR, 0x18},
	} {
		if c.got != c.want {
			t.Errorf("%s at %#x, want %#x", c.name, c.got, c.want)
		}
	}
}
