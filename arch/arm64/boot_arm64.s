#include "textflag.h"
#include "go_asm.h"
#include "entry_arm64.h"

// EL2 system registers the Go assembler does not name, written from R0 with hand-encoded
// MSR instructions: 0xd5000000 | op0<<19 | op1<<16 | CRn<<12 | CRm<<8 | op2<<5 | Rt, op0 = 3,
// op1 = 4 (Arm ARM C5.3).
#define MSR_R0_HCR_EL2     WORD $0xd51c1100 // MSR R0, HCR_EL2     (3,4,c1,c1,0)
#define MSR_R0_CPTR_EL2    WORD $0xd51c1140 // MSR R0, CPTR_EL2    (3,4,c1,c1,2)
#define MSR_R0_HSTR_EL2    WORD $0xd51c1160 // MSR R0, HSTR_EL2    (3,4,c1,c1,3)
#define MSR_R0_CNTVOFF_EL2 WORD $0xd51ce060 // MSR R0, CNTVOFF_EL2 (3,4,c14,c0,3)
#define MSR_R0_CNTHCTL_EL2 WORD $0xd51ce100 // MSR R0, CNTHCTL_EL2 (3,4,c14,c1,0)
#define MSR_R0_SPSR_EL2    WORD $0xd51c4000 // MSR R0, SPSR_EL2    (3,4,c4,c0,0)
#define MSR_R0_ELR_EL2     WORD $0xd51c4020 // MSR R0, ELR_EL2     (3,4,c4,c0,1)
#define MSR_R0_ICC_SRE_EL2 WORD $0xd51cc9a0 // MSR R0, ICC_SRE_EL2 (3,4,c12,c9,5)

// INIT_KSTACK writes the header of the kernel stack whose base is in base (see percpu.go):
// the stand-in g's stack.lo, stack.hi, stackguard0 and stackguard1. Clobbers tmp.
#define INIT_KSTACK(base, tmp) \
	ADD	$const_kstackLo, base, tmp; \
	MOVD	tmp, const_gStackLo(base); \
	ADD	$const_kstackSize, base, tmp; \
	MOVD	tmp, const_gStackHi(base); \
	ADD	$const_kstackGuard, base, tmp; \
	MOVD	tmp, const_gStackGuard0(base); \
	MOVD	tmp, const_gStackGuard1(base)

// DROP_TO_EL1(target) leaves EL2 for EL1h at target, with the EL2 setup described at
// bootEntry. Entry: EL2, DAIF masked. Clobbers R0; every other register reaches target intact.
// It defines the label noGICv3, so it is used at most once per TEXT block.
#define DROP_TO_EL1(target) \
	MOVD	$const_hcrRW, R0; \
	MSR_R0_HCR_EL2; \
	MOVD	$const_cptrEL2RES1, R0; \
	MSR_R0_CPTR_EL2; \
	MOVD	ZR, R0; \
	MSR_R0_HSTR_EL2; \
	MSR_R0_CNTVOFF_EL2; \
	MOVD	$const_cnthctlEL1PCx, R0; \
	MSR_R0_CNTHCTL_EL2; \
	MRS	ID_AA64PFR0_EL1, R0; \
	UBFX	$24, R0, $4, R0; \
	CBZ	R0, noGICv3; \
	MOVD	$const_iccSREEL2, R0; \
	MSR_R0_ICC_SRE_EL2; \
	ISB	$15; \
noGICv3: \
	MOVD	$const_sctlrEL1Reset, R0; \
	MSR	R0, SCTLR_EL1; \
	MOVD	$const_spsrEL2ToEL1h, R0; \
	MSR_R0_SPSR_EL2; \
	MOVD	$target, R0; \
	MSR_R0_ELR_EL2; \
	ISB	$15; \
	ERET

// bootEntry is the image's entry point (ELF e_entry, selected with -ldflags -E).
//
// Entry state (QEMU -M virt -kernel with an ELF): EL1h, or EL2
// with virtualization=on; MMU and caches off; x0 = 0 (QEMU passes no DTB pointer to an ELF and
// puts the DTB at the start of RAM, 0x40000000, which the link address leaves free); SP
// undefined. With a Linux boot protocol x0 would be the DTB's address; bootEntry takes it if
// it is non-zero.
//
// At EL2 it makes EL1 AArch64 with nothing trapped (HCR_EL2.RW only, CPTR_EL2 without TFP,
// EL1 access to the physical timer, CNTVOFF_EL2 = 0, and the GICv3 system registers if the
// CPU has them), resets SCTLR_EL1 and drops to bootEL1 at EL1h with ERET. It never returns.
TEXT ·bootEntry(SB),NOSPLIT|NOFRAME,$0
	MSR	$15, DAIFSet
	MOVD	R0, R19                 // DTB address from the boot protocol, or 0
	MRS	CurrentEL, R0
	UBFX	$2, R0, $2, R0
	MOVD	R0, ·entryEL(SB)        // MMU off: an aligned store to Device memory
	CMP	$2, R0
	BNE	atEL1

	DROP_TO_EL1(bootEL1<>(SB))
atEL1:
	B	bootEL1<>(SB)

// entry is bootEntry under the name internal/image links images with (image.ARM64Entry).
TEXT ·entry(SB),NOSPLIT|NOFRAME,$0
	B	·bootEntry(SB)

// bootEL1 brings the boot CPU from reset state to a state where Go code runs, and calls the
// kernel's boot entry point.
//
// Entry: EL1h, DAIF masked, MMU off, R19 = the DTB address from the boot protocol or 0.
//
// It reads the virtual counter (monotonic time zero), enables FP/SIMD (CPACR_EL1.FPEN), sets up
// the boot kernel stack just past the image (aligned to kstackSize, with its stand-in g) as
// SP_EL1, points TPIDR_EL1 at cpu0, readies the fault stack (setup_arm64.go's slots; RAM past
// the image is still zero) and points VBAR_EL1 at the vectors (so a fault from here on reaches
// the kernel's trap), builds the boot identity map (mmu.go) and turns the MMU and caches
// on. Then it calls the kernel's boot entry point (ABI0, on the boot stack, g = its stand-in g,
// R29 = 0) with the DTB address: R19 if non-zero, else 0x40000000. The kernel never returns
// here; if it did, the CPU waits for interrupts with all of them masked, forever.
TEXT bootEL1<>(SB),NOSPLIT|NOFRAME,$0
	MOVD	R29, R0                 // no-op read: R29 is undefined at reset, nothing to save (tells vet's framepointer check)
	MSR	$15, DAIFSet
	MOVD	$1, R0
	MSR	R0, SPSel
	ISB	$15
	MRS	CNTVCT_EL0, R0
	MOVD	R0, ·entryTicks(SB)
	MOVD	$const_cpacrFPEN, R0
	MSR	R0, CPACR_EL1
	ISB	$15

	MOVD	$runtime·end(SB), R1    // boot stack: first kstackSize-aligned block after the image
	ADD	$(const_kstackSize-1), R1
	AND	$~(const_kstackSize-1), R1
	MOVD	R1, ·bootStackBase(SB)
	INIT_KSTACK(R1, R2)
	ADD	$const_kstackSize, R1, R2
	MOVD	R2, RSP

	MOVD	$·cpus(SB), R0          // cpus[0]
	MOVD	R0, CPU_Self(R0)
	MSR	R0, TPIDR_EL1
	ADD	$(const_slotFault*const_kstackSize), R1, R3 // the fault stack, ready before InitCPU
	INIT_KSTACK(R3, R2)
	ADD	$const_kstackSize, R3
	MOVD	R3, CPU_FaultStack(R0)
	MOVD	$·vectors(SB), R0
	MSR	R0, VBAR_EL1
	ISB	$15

	BL	buildBootTables<>(SB)
	BL	enableMMU<>(SB)

	MOVD	·bootStackBase(SB), g
	MOVD	ZR, R29
	CBNZ	R19, haveDTB
	MOVD	$const_DefaultDTBAddr, R19
haveDTB:
	SUB	$16, RSP
	MOVD	R19, 8(RSP)
	MOVD	KERNEL_ENTRY_BOOT, R0
	CALL	(R0)
halt:
	MSR	$15, DAIFSet
	WFI
	B	halt

// buildBootTables writes the boot identity map (mmu.go) into bootTables, 4 KiB aligned, and
// returns the level-0 table's address in R0. MMU off: plain aligned 8-byte stores, which
// Device-nGnRnE (every data access with the MMU off) allows. Clobbers R1-R6.
TEXT buildBootTables<>(SB),NOSPLIT|NOFRAME,$0
	MOVD	$·bootTables(SB), R0
	ADD	$4095, R0
	AND	$~4095, R0
	MOVD	R0, R1
	MOVD	$(const_bootTablePages*4096/8), R2
zero:
	MOVD.P	ZR, 8(R1)
	SUB	$1, R2
	CBNZ	R2, zero

	ADD	$4096, R0, R1           // R1: the level-1 table
	ADD	$8192, R0, R2           // R2: the level-2 table for [0, 1 GiB)
	ADD	$12288, R0, R3          // R3: the level-3 table for [0, 2 MiB)
	ORR	$const_bootTableDesc, R1, R4
	MOVD	R4, 0(R0)               // L0[0] -> L1
	ORR	$const_bootTableDesc, R2, R4
	MOVD	R4, 0(R1)               // L1[0] -> L2
	ORR	$const_bootTableDesc, R3, R4
	MOVD	R4, 0(R2)               // L2[0] -> L3

	MOVD	$const_bootNormalBlock, R5
	MOVD	$(const_bootRAMStart>>30), R4
gib:                                    // L1[1..3]: RAM, 1 GiB Normal blocks
	LSL	$30, R4, R6
	ORR	R5, R6
	MOVD	R6, (R1)(R4<<3)
	ADD	$1, R4
	CMP	$(const_BootMapEnd>>30), R4
	BNE	gib

	MOVD	$const_bootDeviceBlock, R5
	MOVD	$1, R4
mib:                                    // L2[1..511]: MMIO, 2 MiB Device blocks
	LSL	$21, R4, R6
	ORR	R5, R6
	MOVD	R6, (R2)(R4<<3)
	ADD	$1, R4
	CMP	$512, R4
	BNE	mib

	MOVD	$const_bootDevicePage, R5
	MOVD	$(const_bootNullGuard>>12), R4
kib:                                    // L3[16..511]: MMIO, 4 KiB Device pages above 64 KiB
	LSL	$12, R4, R6
	ORR	R5, R6
	MOVD	R6, (R3)(R4<<3)
	ADD	$1, R4
	CMP	$512, R4
	BNE	kib
	DSB	$15
	RET

// enableMMU loads MAIR_EL1, TCR_EL1 (IPS from ID_AA64MMFR0_EL1.PARange, capped at 48 bits) and
// TTBR0_EL1 = R0, invalidates the TLB and sets SCTLR_EL1's M, C and I (mmu.go). The code runs
// from the identity map, so the next instruction's address means the same after the switch.
// Clobbers R1, R2.
TEXT enableMMU<>(SB),NOSPLIT|NOFRAME,$0
	MOVD	$const_mairValue, R1
	MSR	R1, MAIR_EL1
	MRS	ID_AA64MMFR0_EL1, R1
	AND	$0xf, R1
	MOVD	$const_tcrIPSMax, R2
	CMP	R2, R1
	CSEL	HI, R2, R1, R1
	LSL	$const_tcrIPSShift, R1
	MOVD	$const_tcrValue, R2
	ORR	R2, R1
	MSR	R1, TCR_EL1
	MSR	R0, TTBR0_EL1
	ISB	$15
	TLBI	VMALLE1
	DSB	$15
	ISB	$15
	MRS	SCTLR_EL1, R1
	MOVD	$const_sctlrSet, R2
	ORR	R2, R1
	MOVD	$const_sctlrClr, R2
	BIC	R2, R1
	MSR	R1, SCTLR_EL1
	ISB	$15
	RET

// func initKernelStackAt(base uintptr)
TEXT ·initKernelStackAt(SB),NOSPLIT,$0-8
	MOVD	base+0(FP), R0
	INIT_KSTACK(R0, R1)
	RET

GLOBL ·bootTables(SB), NOPTR, $((const_bootTablePages+1)*4096)

// secondaryEntry is where PSCI CPU_ON starts a secondary CPU (StartCPU, smp_arm64.go).
//
// Entry state (PSCI, DEN 0022 6.4): the EL the boot CPU was entered at (EL2 if the firmware
// runs at EL3 and EL2 exists, else EL1), MMU and caches off, x0 = the context ID: the address
// of the CPU's per-CPU area, which StartCPU filled and cleaned to memory. At EL2 it drops to
// secondaryEL1 like the boot CPU (DROP_TO_EL1); x19 carries the area across the ERET.
TEXT ·secondaryEntry(SB),NOSPLIT|NOFRAME,$0
	MSR	$15, DAIFSet
	MOVD	R0, R19
	MRS	CurrentEL, R0
	UBFX	$2, R0, $2, R0
	CMP	$2, R0
	BNE	secondaryAtEL1
	DROP_TO_EL1(secondaryEL1<>(SB))
secondaryAtEL1:
	B	secondaryEL1<>(SB)

// secondaryEL1 brings a secondary CPU to where Go code runs, as bootEL1 does the boot CPU, but
// with everything prepared by StartCPU: its per-CPU area (R19) holds its boot stack, and TTBR0
// is the boot CPU's page tables, so every CPU sees the same memory. With the MMU off it only
// reads the area (Device memory: what StartCPU cleaned to memory) and writes nothing.
//
// It resets SCTLR_EL1 (firmware need not), enables FP/SIMD, points SP_EL1 at its boot stack,
// TPIDR_EL1 at its area and VBAR_EL1 at the vectors, turns the MMU on, and calls the kernel's
// secondary entry point (ABI0, on the boot stack, g = its stand-in g, R29 = 0) with the CPU's
// index. If that returns, the CPU waits with interrupts masked, forever.
TEXT secondaryEL1<>(SB),NOSPLIT|NOFRAME,$0
	MOVD	R29, R0                 // no-op read: R29 is undefined here, nothing to save (tells vet's framepointer check)
	MSR	$15, DAIFSet
	MOVD	$const_sctlrEL1Reset, R0
	MSR	R0, SCTLR_EL1
	ISB	$15
	MOVD	$1, R0
	MSR	R0, SPSel
	MOVD	$const_cpacrFPEN, R0
	MSR	R0, CPACR_EL1
	ISB	$15
	MOVD	CPU_BootStack(R19), R1
	MOVD	R1, RSP
	MSR	R19, TPIDR_EL1
	MOVD	$·vectors(SB), R0
	MSR	R0, VBAR_EL1
	ISB	$15
	MOVD	CPU_TTBR0(R19), R0
	BL	enableMMU<>(SB)

	MOVD	CPU_BootStack(R19), g
	SUB	$const_kstackSize, g
	MOVD	ZR, R29
	SUB	$16, RSP
	MOVD	CPU_ID(R19), R0
	MOVD	R0, 8(RSP)
	MOVD	KERNEL_ENTRY_SECONDARY, R0
	CALL	(R0)
secondaryHalt:
	MSR	$15, DAIFSet
	WFI
	B	secondaryHalt

// func addrOfSecondaryEntry() uintptr
TEXT ·addrOfSecondaryEntry(SB),NOSPLIT,$0-8
	MOVD	$·secondaryEntry(SB), R0
	MOVD	R0, ret+0(FP)
	RET
