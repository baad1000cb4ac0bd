package arm64

// The interrupt controller: GICv2 (QEMU -M virt's default) through its distributor and CPU
// interface MMIO, or GICv3 (-M virt,gic-version=3) through its distributor, this CPU's
// redistributor and the ICC system registers. gic.go has the register math.

// gic is the controller in use: pointer-free, set once at boot.
var gic struct {
	version uint32  // 0 until InitGIC or InitGICv3 succeeds, then 2 or 3
	lines   uint32  // INTIDs the distributor implements
	dist    uintptr // GICD base
	cpu     uintptr // GICv2: GICC base
	sgi     uintptr // GICv3: this CPU's redistributor SGI_base frame
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
	mmioWrite32(cpu+giccPMR, gicPriorityMask)
	mmioWrite32(cpu+giccBPR, 0)
	mmioWrite32(cpu+giccCTLR, giccCTLREnable)
	gic.version, gic.lines, gic.dist, gic.cpu, gic.sgi = 2, lines, dist, cpu, 0
}

// InitGICv3 brings up a GICv3 whose distributor is at dist and redistributors start at redist:
// affinity routing on, every interrupt disabled, not pending, group 1 (IRQ), default priority,
// SPIs routed to this CPU; this CPU's redistributor awake; the ICC system-register interface on
// with group 1 enabled. It returns false, changing nothing that matters, if this CPU has no
// redistributor there or cannot use the system registers.
func InitGICv3(dist, redist uintptr) bool {
	mpidr := readMPIDR()
	rd, ok := findRedistributor(redist, mpidrAffinity(mpidr))
	if !ok || iccEnableSRE()&1 == 0 {
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
	gic.version, gic.lines, gic.dist, gic.cpu, gic.sgi = 3, lines, dist, 0, sgi
	return true
}

// findRedistributor walks the redistributor frames from base to the one whose GICR_TYPER
// affinity is aff, stopping at the frame marked Last.
func findRedistributor(base uintptr, aff uint32) (uintptr, bool) {
	for i := uintptr(0); i < gicrMaxFrames; i++ {
		rd := base + i*gicrFrameSize
		typer := mmioRead64(rd + gicrTYPER)
		if uint32(typer>>32) == aff {
			return rd, true
		}
		if typer&gicrTYPERLast != 0 {
			break
		}
	}
	return 0, false
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
		return gic.sgi, true
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
