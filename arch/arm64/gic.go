package arm64

// Register math for the Arm Generic Interrupt Controller, GICv2 (IHI 0048B) and GICv3
// (IHI 0069): which register and bit holds an interrupt's state. Pure functions, so the host
// tests check them; gic_arm64.go does the MMIO.

// Interrupt IDs.
const (
	IntidVirtualTimer  = 27   // PPI 11: CNTV, the scheduler tick
	IntidPhysicalTimer = 30   // PPI 14: CNTP (non-secure), the sampler's tick
	IntidFirstSPI      = 32   // shared peripheral interrupts start here (SPI n is INTID 32+n)
	IntidSpurious      = 1023 // the acknowledge registers' "nothing pending"
	intidMaxV2         = 1019 // highest INTID a GICv2 distributor can implement
	intidMaxSPI        = 1019 // and GICv3's SPIs (above are special and extended ranges)
)

// Distributor registers (offsets from GICD base), both versions unless noted.
const (
	gicdCTLR       = 0x000
	gicdTYPER      = 0x004
	gicdIGROUPR    = 0x080 // one bit per INTID
	gicdISENABLER  = 0x100 // one bit per INTID, write 1 to enable
	gicdICENABLER  = 0x180 // one bit per INTID, write 1 to disable
	gicdICPENDR    = 0x280 // one bit per INTID, write 1 to clear pending
	gicdICACTIVER  = 0x380
	gicdIPRIORITYR = 0x400 // one byte per INTID
	gicdITARGETSR  = 0x800 // GICv2: one byte per INTID, a CPU mask (read-only for SGIs and PPIs)
	gicdICFGR      = 0xc00 // two bits per INTID: bit 1 set = edge-triggered
	gicdIROUTER    = 0x6000
	gicdPIDR2V2    = 0xfe8  // GICv2 peripheral ID 2: ArchRev in bits 7:4
	gicdPIDR2V3    = 0xffe8 // GICv3
	gicdCTLRRWP    = 1 << 31

	gicdCTLREnableGrp0 = 1 << 0
	gicdCTLREnableGrp1 = 1 << 1
	gicdCTLRARE        = 1 << 4 // GICv3 with a single security state: affinity routing
)

// GICv2 CPU interface registers (offsets from GICC base).
const (
	giccCTLR  = 0x00
	giccPMR   = 0x04
	giccBPR   = 0x08
	giccIAR   = 0x0c
	giccEOIR  = 0x10
	giccHPPIR = 0x18

	giccCTLREnable = 3 // EnableGrp0 | EnableGrp1, FIQEn off: both groups signal IRQ
)

// GICv3 redistributor registers: each CPU has two 64 KiB frames, RD_base then SGI_base.
const (
	gicrCTLR        = 0x0000
	gicrTYPER       = 0x0008 // 64-bit: affinity in 63:32, Last in bit 4
	gicrWAKER       = 0x0014
	gicrSGIBase     = 0x10000
	gicrFrameSize   = 0x20000
	gicrTYPERLast   = 1 << 4
	gicrWAKERSleep  = 1 << 1 // ProcessorSleep
	gicrWAKERAsleep = 1 << 2 // ChildrenAsleep
	gicrMaxFrames   = 512    // a bound for the search, far above any -M virt
)

// Defaults for the interrupt controller.
const (
	gicPriorityMask    = 0xf0 // PMR: deliver every priority numerically below this
	gicDefaultPriority = 0xa0
)

// Priorities (lower is more urgent) and the priority masks that the kernel switches between,
// as Linux's GICv3 pseudo-NMIs do: a thread runs with PriorityMaskThread, which lets every
// enabled interrupt through; so does kernel code in a trap handler, with IRQs unmasked in
// PSTATE, until an interrupt other than the sampler's timer arrives there and raises the mask
// to PriorityMaskKernel, which lets only PrioritySampler through, for the rest of the trap. So
// the sampler's timer interrupts kernel code where it runs, and the rest wait for the trap's
// return as they did when the kernel ran with PSTATE.I set. The priority mask exists on GICv2
// as well (GICC_PMR) and on GICv3 (ICC_PMR_EL1).
//
// The IPI sits above the tick and the devices: a CPU that waits for the kernel lock inside
// their handler (acknowledged, not yet ended: the GIC's running priority holds back its own
// priority and below) must still be woken by it. Each priority is in a group of its own under
// the binary point (GICv3's BPR1 is 0 here, GICv2's resets to 0 or 2), so each preempts the
// ones below.
const (
	PrioritySampler    = 0x20 // the sampler's timer: the one interrupt kernel code takes
	PriorityIPI        = 0x40 // the kernel's SGI: kicks, cross-CPU requests, lock wake-ups
	PriorityNormal     = 0x80 // the tick, devices
	PriorityMaskKernel = 0x30 // lets only PrioritySampler through
	PriorityMaskThread = gicPriorityMask
)

// bitReg returns the offset of the register holding intid's bit in a one-bit-per-INTID array
// at base, and the bit's mask.
func bitReg(base uintptr, intid uint32) (off uintptr, mask uint32) {
	return base + uintptr(intid/32)*4, 1 << (intid % 32)
}

// byteReg returns the offset of intid's byte in a one-byte-per-INTID array at base.
func byteReg(base uintptr, intid uint32) uintptr { return base + uintptr(intid) }

// cfgReg returns the offset of the ICFGR register for intid and the shift of its 2-bit field.
func cfgReg(intid uint32) (off uintptr, shift uint32) {
	return gicdICFGR + uintptr(intid/16)*4, (intid % 16) * 2
}

// routerReg returns the offset of GICD_IROUTER<intid> (GICv3, SPIs only).
func routerReg(intid uint32) uintptr { return gicdIROUTER + uintptr(intid)*8 }

// gicLines returns how many INTIDs a distributor implements, from GICD_TYPER.ITLinesNumber:
// 32*(N+1), capped at the architectural limit.
func gicLines(typer uint32) uint32 { return min(32*(typer&0x1f+1), intidMaxV2+1) }

// iarINTID extracts the INTID from an acknowledge value: GICv2's IAR has the CPU ID of an SGI's
// source in bits 12:10, GICv3's ICC_IAR1_EL1 holds a 24-bit INTID.
func iarINTID(iar uint32, v3 bool) uint32 {
	if v3 {
		return iar & 0xffffff
	}
	return iar & 0x3ff
}

// gicArchRev returns the architecture version a peripheral ID 2 register reports (2, 3, 4), or 0.
func gicArchRev(pidr2 uint32) uint32 { return pidr2 >> 4 & 0xf }

// mpidrAffinity packs MPIDR_EL1's affinity fields the way GICR_TYPER[63:32] and GICD_IROUTER
// hold them: Aff3 in 31:24, Aff2 23:16, Aff1 15:8, Aff0 7:0.
func mpidrAffinity(mpidr uint64) uint32 {
	return uint32(mpidr>>32&0xff)<<24 | uint32(mpidr&0xffffff)
}

// routerAffinity returns the IROUTER value that routes an SPI to the CPU with the given MPIDR.
func routerAffinity(mpidr uint64) uint64 {
	return mpidr&0xff_0000_0000 | mpidr&0xff_ffff
}
