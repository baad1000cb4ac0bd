package arm64

// Pure parts of secondary-CPU bring-up: PSCI (Arm DEN 0022) calling conventions and the
// encodings of software-generated interrupts (SGIs, the inter-processor interrupts) for both
// GIC versions. smp_arm64.go and gic_arm64.go do the calls and register writes.

// PSCI conduits, the instruction that reaches the firmware. The values are boot/fdt's
// PSCIHVC and PSCISMC (a host test pins that), so a caller passes fdt.Machine.PSCI.Method as is.
const (
	PSCIMethodHVC = 1 // HVC #0: firmware at EL2 (QEMU without virtualization=on)
	PSCIMethodSMC = 2 // SMC #0: firmware at EL3 (QEMU with virtualization=on, real boards)
)

// PSCI return codes (DEN 0022 5.2.2): CPU_ON returns PSCISuccess or one of the negative ones.
// StartCPU returns them as they are, and uses PSCIInvalidParameters and PSCIAlreadyOn itself for
// a request it refuses before calling the firmware.
const (
	PSCISuccess           = 0
	PSCINotSupported      = -1
	PSCIInvalidParameters = -2
	PSCIDenied            = -3
	PSCIAlreadyOn         = -4
	PSCIOnPending         = -5
	PSCIInternalFailure   = -6
	PSCINotPresent        = -7
	PSCIDisabled          = -8
	PSCIInvalidAddress    = -9
)

// mpidrAffinityMask keeps MPIDR_EL1's affinity fields (Aff3 in 39:32, Aff2..Aff0 in 23:0): the
// value PSCI CPU_ON's target_cpu and the device tree's cpu reg hold.
const mpidrAffinityMask = 0xff_00ff_ffff

// psciResult turns the x0 a PSCI call returned (a 32-bit signed code in a 64-bit register, the
// upper half unspecified for SMC32-style returns) into a return code.
func psciResult(x0 uint64) int { return int(int32(uint32(x0))) }

// maxSGI is the highest SGI INTID (SGIs are INTIDs 0-15).
const maxSGI = 15

// GICv2 GICD_SGIR (IHI 0048B 4.3.15): TargetListFilter (25:24) 0 = the CPUs in CPUTargetList
// (23:16), NSATT (15) 0 = only if the SGI is Group 0 at the target (every interrupt is Group 0
// in InitGIC), SGIINTID (3:0).
const gicdSGIR = 0xf00

// sgirValue returns the GICD_SGIR value that sends SGI sgi to the CPU interfaces in mask.
func sgirValue(mask uint8, sgi uint32) uint32 { return uint32(mask)<<16 | sgi&maxSGI }

// sgi1rValue returns the ICC_SGI1R_EL1 value (IHI 0069 12.11.12) that sends SGI sgi to the one
// CPU whose MPIDR affinity is mpidr: Aff3 in 55:48, Aff2 in 39:32, Aff1 in 23:16, the range
// selector RS (47:44) = Aff0/16 and TargetList (15:0) bit Aff0%16, INTID in 27:24, IRM (40) 0.
func sgi1rValue(mpidr uint64, sgi uint32) uint64 {
	aff0 := mpidr & 0xff
	aff1 := mpidr >> 8 & 0xff
	aff2 := mpidr >> 16 & 0xff
	aff3 := mpidr >> 32 & 0xff
	return aff3<<48 | (aff0>>4)<<44 | aff2<<32 | uint64(sgi&maxSGI)<<24 | aff1<<16 | 1<<(aff0&15)
}

// gicv2CPUMask extracts a CPU interface's own target mask from GICD_ITARGETSR0, whose bytes
// (read-only, banked) each read as the mask of the CPU that reads them.
func gicv2CPUMask(itargetsr0 uint32) uint8 { return uint8(itargetsr0) }

// findRedistributorWith walks the GICv3 redistributor frames from base (each gicrFrameSize
// bytes: RD_base, SGI_base) to the one whose GICR_TYPER[63:32] affinity is aff, reading
// GICR_TYPER through read. It stops after the frame marked Last, or after gicrMaxFrames.
func findRedistributorWith(base uintptr, aff uint32, read func(addr uintptr) uint64) (uintptr, bool) {
	for i := uintptr(0); i < gicrMaxFrames; i++ {
		rd := base + i*gicrFrameSize
		typer := read(rd + gicrTYPER)
		if uint32(typer>>32) == aff {
			return rd, true
		}
		if typer&gicrTYPERLast != 0 {
			break
		}
	}
	return 0, false
}
