package arm64

// The interrupt controller: GICv2 (QEMU -M virt's default) through its distributor and CPU
// interface MMIO, or GICv3 (-M virt,gic-version=3) through its distributor, this CPU's
// redistributor and the ICC system registers. gic.go has the register math.

// gic is the controller in use: pointer-free, set once at boot by the boot CPU.
var gic struct {
	version uint32  // 0 until InitGIC or InitGICv3 succeeds, then 2 or 3
	lines   uint32  // INTIDs the distributor implements
	dist    uintptr // GICD base
	cpu     uintptr // GICv2: GICC base (the same address on every CPU: its registers are banked)
	redist  uintptr // GICv3: the first redistributor frame
}

// gicCPU is the per-CPU controller state, indexed by CPU number and written by each CPU for
// itself in InitGIC, InitGICv3 or InitGICCPU. A zero entry means the CPU's interface is not up.
var gicCPU [MaxCPUs]struct {
	sgi  uintptr // GICv3: the CPU's redistributor SGI_base frame (SGI and PPI registers)
	mask uint8   // GICv2: the CPU interface's target mask (GICD_SGIR CPUTargetList)
}

// SetPriorityMask sets this CPU's priority mask: only interrupts of a priority numerically
// below it are signalled (ICC_PMR_EL1 on GICv3, GICC_PMR on GICv2).
//
//go:nosplit
func SetPriorityMask(mask uint8) {
	if gic.version == 3 {
		iccWritePMR(uint64(mask))
	} else if gic.version == 2 {
		mmioWrite32(gic.cpu+giccPMR, uint32(mask))
	}
}

// GICVersion returns the version of the initialized interrupt controller, 0 before.
func GICVersion() int { return int(gic.version) }

// HasGICv3SysRegs reports whether the CPU has a usable GICv3 system-register interface
// (ID_AA64PFR0_EL1.GIC): QEMU sets it only when a GICv3 is connected, so it tells the two
// -M virt configurations apart without a device tree.
func HasGICv3SysRegs() bool { return idField(readPFR0(), 24) != 0 }

// InitGIC brings up a GICv2 whose distributor is at dist and CPU interface at cpu: every
// interrupt disabled, not pending, group 0 (signalled as IRQ, as FIQEn stays off), default
// priority, SPIs targeted at CPU 0; then the distributor and the CPU interface on, with a
// priority mask that lets every configured priority through. Interrupts stay masked in DAIF.
func InitGIC(dist, cpu uintptr) {
	mmioWrite32(dist+gicdCTLR, 0)
	lines := gicLines(mmioRead32(dist + gicdTYPER))
	for i := uint32(0); i < lines; i += 32 {
		off, _ := bitReg(0, i)
		mmioWrite32(dist+gicdICENABLER+off, ^uint32(0))
		mmioWrite32(dist+gicdICPENDR+off, ^uint32(0))
		mmioWrite32(dist+gicdIGROUPR+off, 0)
	}
	for i := uint32(0); i < lines; i += 4 {
		mmioWrite32(dist+byteReg(gicdIPRIORITYR, i), gicDefaultPriority*0x01010101)
		if i >= IntidFirstSPI {
			mmioWrite32(dist+byteReg(gicdITARGETSR, i), 0x01010101)
		}
	}
	mmioWrite32(dist+gicdCTLR, gicdCTLREnableGrp0|gicdCTLREnableGrp1)
	gic.version, gic.lines, gic.dist, gic.cpu, gic.redist = 2, lines, dist, cpu, 0
	initGICv2CPU(thisCPU())
}

// initGICv2CPU brings up the calling CPU's side of a GICv2: its banked SGI and PPI registers
// (disabled, not pending, group 0, default priority) and its CPU interface, and records its
// target mask for SendIPI.
func initGICv2CPU(id int) {
	if id < 0 || id >= MaxCPUs {
		return
	}
	dist, cpu := gic.dist, gic.cpu
	mmioWrite32(dist+gicdICENABLER, ^uint32(0))
	mmioWrite32(dist+gicdICPENDR, ^uint32(0))
	mmioWrite32(dist+gicdIGROUPR, 0)
	for i := uint32(0); i < IntidFirstSPI; i += 4 {
		mmioWrite32(dist+byteReg(gicdIPRIORITYR, i), gicDefaultPriority*0x01010101)
	}
	mmioWrite32(cpu+giccPMR, gicPriorityMask)
	mmioWrite32(cpu+giccBPR, 0)
	mmioWrite32(cpu+giccCTLR, giccCTLREnable)
	gicCPU[id].mask = gicv2CPUMask(mmioRead32(dist + gicdITARGETSR))
}

// InitGICv3 brings up a GICv3 whose distributor is at dist and redistributors start at redist:
// affinity routing on, every interrupt disabled, not pending, group 1 (IRQ), default priority,
// SPIs routed to this CPU; this CPU's redistributor awake; the ICC system-register interface on
// with group 1 enabled. It returns false, changing nothing that matters, if this CPU has no
// redistributor there or cannot use the system registers.
func InitGICv3(dist, redist uintptr) bool {
	mpidr := readMPIDR()
	if _, ok := findRedistributor(redist, mpidrAffinity(mpidr)); !ok || iccEnableSRE()&1 == 0 {
		return false
	}
	mmioWrite32(dist+gicdCTLR, 0)
	gicv3WaitRWP(dist)
	lines := gicLines(mmioRead32(dist + gicdTYPER))
	for i := uint32(IntidFirstSPI); i < lines; i += 32 {
		off, _ := bitReg(0, i)
		mmioWrite32(dist+gicdICENABLER+off, ^uint32(0))
		mmioWrite32(dist+gicdICPENDR+off, ^uint32(0))
		mmioWrite32(dist+gicdIGROUPR+off, ^uint32(0))
	}
	for i := uint32(IntidFirstSPI); i < lines; i += 4 {
		mmioWrite32(dist+byteReg(gicdIPRIORITYR, i), gicDefaultPriority*0x01010101)
	}
	route := routerAffinity(mpidr)
	for i := uint32(IntidFirstSPI); i < lines; i++ {
		off := dist + routerReg(i)
		mmioWrite32(off, uint32(route))
		mmioWrite32(off+4, uint32(route>>32))
	}
	mmioWrite32(dist+gicdCTLR, gicdCTLRARE|gicdCTLREnableGrp1|gicdCTLREnableGrp0)
	gicv3WaitRWP(dist)
	gic.version, gic.lines, gic.dist, gic.cpu, gic.redist = 3, lines, dist, 0, redist
	return initGICv3CPU(thisCPU())
}

// initGICv3CPU brings up the calling CPU's side of a GICv3: it finds the CPU's redistributor by
// its MPIDR affinity, wakes it, sets up its SGIs and PPIs (disabled, not pending, group 1,
// default priority), turns on the ICC system-register interface with group 1 enabled, and
// records the SGI_base frame for EnableIRQ.
func initGICv3CPU(id int) bool {
	if id < 0 || id >= MaxCPUs {
		return false
	}
	rd, ok := findRedistributor(gic.redist, mpidrAffinity(readMPIDR()))
	if !ok || iccEnableSRE()&1 == 0 {
		return false
	}
	mmioWrite32(rd+gicrWAKER, mmioRead32(rd+gicrWAKER)&^gicrWAKERSleep)
	for i := 0; i < 1_000_000 && mmioRead32(rd+gicrWAKER)&gicrWAKERAsleep != 0; i++ {
	}
	sgi := rd + gicrSGIBase
	mmioWrite32(sgi+gicdICENABLER, ^uint32(0))
	mmioWrite32(sgi+gicdICPENDR, ^uint32(0))
	mmioWrite32(sgi+gicdIGROUPR, ^uint32(0))
	for i := uint32(0); i < IntidFirstSPI; i += 4 {
		mmioWrite32(sgi+byteReg(gicdIPRIORITYR, i), gicDefaultPriority*0x01010101)
	}

	iccWritePMR(gicPriorityMask)
	iccWriteBPR1(0)
	iccWriteIGRPEN1(1)
	gicCPU[id].sgi = sgi
	return true
}

// InitGICCPU brings up the calling secondary CPU's side of the interrupt controller the boot CPU
// initialized (InitGIC or InitGICv3): banked GICv2 registers and CPU interface, or its GICv3
// redistributor and system registers. Interrupts stay masked in DAIF; EnableIRQ then enables
// SGIs and PPIs (the timers) for this CPU. It returns false if there is no controller, or no
// redistributor for this CPU.
func InitGICCPU() bool {
	switch gic.version {
	case 2:
		initGICv2CPU(thisCPU())
		return true
	case 3:
		return initGICv3CPU(thisCPU())
	}
	return false
}

// SendIPI sends SGI sgi (0-15) to CPU cpu (an index, as StartCPU numbers them). It returns
// false, sending nothing, for an SGI or CPU out of range or a CPU whose interrupt controller
// side is not up (GICv2: its InitGICCPU has not run; GICv3: it was never started). Earlier
// stores are made visible to the target first (DSB ISHST), so it may read what the sender
// wrote before the interrupt.
//
//go:nosplit
func SendIPI(cpu int, sgi uint32) bool {
	if cpu < 0 || cpu >= MaxCPUs || sgi > maxSGI {
		return false
	}
	switch gic.version {
	case 2:
		mask := gicCPU[cpu].mask
		if mask == 0 {
			return false
		}
		storeBarrier()
		mmioWrite32(gic.dist+gicdSGIR, sgirValue(mask, sgi))
		return true
	case 3:
		if cpus[cpu].Self == 0 {
			return false
		}
		iccWriteSGI1R(sgi1rValue(cpus[cpu].MPIDR, sgi))
		return true
	}
	return false
}

// findRedistributor walks the redistributor frames from base to the one whose GICR_TYPER
// affinity is aff, stopping at the frame marked Last.
func findRedistributor(base uintptr, aff uint32) (uintptr, bool) {
	return findRedistributorWith(base, aff, mmioRead64)
}

// gicv3WaitRWP waits (bounded) until a distributor register write has taken effect.
func gicv3WaitRWP(dist uintptr) {
	for i := 0; i < 1_000_000 && mmioRead32(dist+gicdCTLR)&gicdCTLRRWP != 0; i++ {
	}
}

// EnableIRQ sets intid's priority (lower is more urgent; below 0xf0 to be delivered) and
// enables it. On a GICv2 an SPI is also targeted at CPU 0. It ignores an INTID the controller
// does not implement.
//
//go:nosplit
func EnableIRQ(intid uint32, priority uint8) {
	base, ok := irqRegs(intid)
	if !ok {
		return
	}
	mmioWrite8(base+byteReg(gicdIPRIORITYR, intid), priority)
	if gic.version == 2 && intid >= IntidFirstSPI {
		mmioWrite8(base+byteReg(gicdITARGETSR, intid), 1)
	}
	off, mask := bitReg(gicdISENABLER, intid)
	mmioWrite32(base+off, mask)
}

// DisableIRQ disables intid.
//
//go:nosplit
func DisableIRQ(intid uint32) {
	if base, ok := irqRegs(intid); ok {
		off, mask := bitReg(gicdICENABLER, intid)
		mmioWrite32(base+off, mask)
	}
}

// ConfigureIRQ makes an SPI edge-triggered (edge) or level-sensitive. SGIs and PPIs keep their
// fixed configuration.
func ConfigureIRQ(intid uint32, edge bool) {
	if gic.version == 0 || intid < IntidFirstSPI || intid >= gic.lines {
		return
	}
	off, shift := cfgReg(intid)
	v := mmioRead32(gic.dist + off)
	v &^= 2 << shift
	if edge {
		v |= 2 << shift
	}
	mmioWrite32(gic.dist+off, v)
}

// irqRegs returns the frame holding intid's enable, priority and target registers: the
// distributor, or on a GICv3 this CPU's SGI_base frame for SGIs and PPIs.
//
//go:nosplit
func irqRegs(intid uint32) (uintptr, bool) {
	switch {
	case gic.version == 0 || intid >= gic.lines:
		return 0, false
	case gic.version == 3 && intid < IntidFirstSPI:
		id := thisCPU()
		if id < 0 || id >= MaxCPUs || gicCPU[id].sgi == 0 {
			return 0, false
		}
		return gicCPU[id].sgi, true
	}
	return gic.dist, true
}

// AcknowledgeIRQ takes the highest-priority pending interrupt and returns its acknowledge
// value: pass it to INTID for the interrupt's ID and to EndOfIRQ when done. INTID is
// IntidSpurious when nothing was pending.
//
//go:nosplit
func AcknowledgeIRQ() uint32 {
	switch gic.version {
	case 2:
		return mmioRead32(gic.cpu + giccIAR)
	case 3:
		return uint32(iccReadIAR1())
	}
	return IntidSpurious
}

// PendingIRQ returns the INTID of the highest-priority pending interrupt without acknowledging
// it (GICC_HPPIR, ICC_HPPIR1_EL1), IntidSpurious if none is pending. The priority mask and the
// running priority do not hide it, so when an IRQ is signalled the interrupt returned is the
// one signalled, or a more urgent one.
//
//go:nosplit
func PendingIRQ() uint32 {
	switch gic.version {
	case 2:
		return iarINTID(mmioRead32(gic.cpu+giccHPPIR), false)
	case 3:
		return iarINTID(uint32(iccReadHPPIR1()), true)
	}
	return IntidSpurious
}

// INTID returns the interrupt ID in an acknowledge value.
//
//go:nosplit
func INTID(ack uint32) uint32 { return iarINTID(ack, gic.version == 3) }

// EndOfIRQ signals the end of the interrupt acknowledged as ack (priority drop and
// deactivation). Not for IntidSpurious.
//
//go:nosplit
func EndOfIRQ(ack uint32) {
	switch gic.version {
	case 2:
		mmioWrite32(gic.cpu+giccEOIR, ack)
	case 3:
		iccWriteEOIR1(uint64(ack))
	}
}
