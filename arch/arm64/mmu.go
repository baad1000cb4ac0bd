package arm64

// The translation regime the boot code sets up (Arm ARM D8, VMSAv8-64) and the identity map it
// builds before any Go code runs. The values are constants so that boot_arm64.s reads them from
// go_asm.h and the host tests can check them bit by bit.

// MAIR_EL1 attribute indexes (the AttrIndx field of a descriptor, PTEAttr*) and their encodings
// (Arm ARM D19.2.97).
const (
	mairDeviceNGnRnE = 0x00 // index 0: Device-nGnRnE, for MMIO
	mairNormalWB     = 0xff // index 1: Normal, inner and outer write-back, read/write-allocate
	mairNormalNC     = 0x44 // index 2: Normal, inner and outer non-cacheable
	mairValue        = mairDeviceNGnRnE | mairNormalWB<<8 | mairNormalNC<<16
)

// TCR_EL1 (Arm ARM D19.2.140): TTBR0 translates a 48-bit VA with a 4 KiB granule (4 levels,
// because the Go 1.26 heap hints reach 2^47); walks are inner-shareable and write-back
// cacheable; TTBR1 walks are disabled (nothing lives in the upper half). IPS, the physical
// address size, is copied from ID_AA64MMFR0_EL1.PARange at boot, capped at 48 bits.
const (
	tcrT0SZ      = 16      // VA size 64-16 = 48 bits
	tcrIRGN0WBWA = 1 << 8  // inner write-back, write-allocate walks
	tcrORGN0WBWA = 1 << 10 // outer write-back, write-allocate walks
	tcrSH0Inner  = 3 << 12 // inner shareable
	tcrTG0_4K    = 0 << 14
	tcrT1SZ      = 16 << 16
	tcrEPD1      = 1 << 23 // no walks through TTBR1_EL1
	tcrTG1_4K    = 2 << 30
	tcrIPSShift  = 32
	tcrIPSMax    = 5 // 48 bits; 52 would need FEAT_LPA2 descriptors
	tcrValue     = tcrT0SZ | tcrIRGN0WBWA | tcrORGN0WBWA | tcrSH0Inner | tcrTG0_4K | tcrT1SZ | tcrEPD1 | tcrTG1_4K
)

// SCTLR_EL1 bits (Arm ARM D19.2.118). Boot sets M, C, I and keeps SA (SP alignment checks); it
// clears A (Go relies on unaligned access to Normal memory), WXN, the endianness bits and the
// pointer-authentication enables (Go emits no PAC instructions, and a stray enable would make
// the hint-space ones fault on garbage keys).
const (
	sctlrM    = 1 << 0
	sctlrA    = 1 << 1
	sctlrC    = 1 << 2
	sctlrSA   = 1 << 3
	sctlrI    = 1 << 12
	sctlrEnDB = 1 << 13
	sctlrWXN  = 1 << 19
	sctlrE0E  = 1 << 24
	sctlrEE   = 1 << 25
	sctlrEnDA = 1 << 27
	sctlrEnIB = 1 << 30
	sctlrEnIA = 1 << 31
	sctlrSet  = sctlrM | sctlrC | sctlrSA | sctlrI
	sctlrClr  = sctlrA | sctlrWXN | sctlrE0E | sctlrEE | sctlrEnDB | sctlrEnDA | sctlrEnIB | sctlrEnIA

	// sctlrEL1Reset is SCTLR_EL1 as boot leaves it when it drops from EL2: the RES1 bits
	// (29, 28, 23, 22, 20, 11), MMU and caches off.
	sctlrEL1Reset = 0x30d00800
)

// CPACR_EL1.FPEN = 0b11: FP/SIMD instructions do not trap at EL1 (Go uses V registers for
// floats, memmove and memclr).
const cpacrFPEN = 3 << 20

// EL2 setup for a boot that starts at EL2 (QEMU -M virt,virtualization=on).
const (
	hcrRW         = 1 << 31 // EL1 is AArch64; everything else off: no stage 2, no traps, IRQs to EL1
	cnthctlEL1PCx = 3       // EL1PCTEN | EL1PCEN: EL1 may use the physical counter and timer
	cptrEL2RES1   = 0x33ff  // CPTR_EL2 with its RES1 bits only: no FP/SIMD traps (TFP = 0)
	iccSREEL2     = 0x9     // ICC_SRE_EL2: SRE | Enable (EL1 may use the GICv3 system registers)
	spsrEL2ToEL1h = SPSRModeEL1h | SPSRD | SPSRA | SPSRI | SPSRF
)

// The boot identity map. Four tables (a level-0 table, one level-1, one level-2 and one
// level-3) map:
//
//	[0, 64 KiB)        nothing: nil dereferences fault
//	[64 KiB, 2 MiB)    4 KiB Device pages (level 3)
//	[2 MiB, 1 GiB)     2 MiB Device blocks (level 2): the GIC, the PL011, the PL031, virtio-mmio
//	[1 GiB, 4 GiB)     1 GiB Normal blocks (level 1): RAM (QEMU -M virt puts it at 1 GiB)
//
// RAM is read/write/execute at EL1; Device memory is never executable. The kernel replaces this
// map with its own (PageTable) once it knows the memory size from the device tree.
const (
	bootTablePages  = 4
	bootNullGuard   = 64 << 10
	bootRAMStart    = 1 << 30
	BootMapEnd      = 4 << 30 // end of the boot identity map
	bootDevicePage  = PTEValid | PTETable | PTEAttrDevice | PTEAccessed | PTENoExec
	bootDeviceBlock = PTEValid | PTEAttrDevice | PTEAccessed | PTENoExec
	bootNormalBlock = PTEValid | PTEAttrNormal | PTEInnerShareable | PTEAccessed
	bootTableDesc   = PTEValid | PTETable
)
