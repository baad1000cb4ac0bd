#include "textflag.h"
#include "go_asm.h"

// Small instruction wrappers. Each is a leaf that touches only the registers it names; they are
// called from kernel-mode Go with interrupts masked (or at boot).

// func mmioRead32(addr uintptr) uint32
TEXT ·mmioRead32(SB),NOSPLIT,$0-12
	MOVD	addr+0(FP), R0
	MOVWU	(R0), R1
	MOVW	R1, ret+8(FP)
	RET

// func mmioWrite32(addr uintptr, v uint32)
TEXT ·mmioWrite32(SB),NOSPLIT,$0-12
	MOVD	addr+0(FP), R0
	MOVWU	v+8(FP), R1
	MOVW	R1, (R0)
	RET

// func mmioWrite8(addr uintptr, v uint8)
TEXT ·mmioWrite8(SB),NOSPLIT,$0-9
	MOVD	addr+0(FP), R0
	MOVBU	v+8(FP), R1
	MOVB	R1, (R0)
	RET

// func mmioRead64(addr uintptr) uint64
TEXT ·mmioRead64(SB),NOSPLIT,$0-16
	MOVD	addr+0(FP), R0
	MOVD	(R0), R1
	MOVD	R1, ret+8(FP)
	RET

// func currentEL() uint64
TEXT ·currentEL(SB),NOSPLIT,$0-8
	MRS	CurrentEL, R0
	UBFX	$2, R0, $2, R0
	MOVD	R0, ret+0(FP)
	RET

// func readSCTLR() uint64
TEXT ·readSCTLR(SB),NOSPLIT,$0-8
	MRS	SCTLR_EL1, R0
	MOVD	R0, ret+0(FP)
	RET

// func readVBAR() uint64
TEXT ·readVBAR(SB),NOSPLIT,$0-8
	MRS	VBAR_EL1, R0
	MOVD	R0, ret+0(FP)
	RET

// func readTTBR0() uint64
TEXT ·readTTBR0(SB),NOSPLIT,$0-8
	MRS	TTBR0_EL1, R0
	MOVD	R0, ret+0(FP)
	RET

// func writeTTBR0(v uint64)
//
// writeTTBR0 switches to the tables at v: the stores that built them are made visible to the
// walker first, and every TLB entry of the old tables is dropped.
TEXT ·writeTTBR0(SB),NOSPLIT,$0-8
	MOVD	v+0(FP), R0
	DSB	$10                     // ISHST
	MSR	R0, TTBR0_EL1
	ISB	$15
	TLBI	VMALLE1IS
	DSB	$11                     // ISH
	ISB	$15
	RET

// func readMPIDR() uint64
TEXT ·readMPIDR(SB),NOSPLIT,$0-8
	MRS	MPIDR_EL1, R0
	MOVD	R0, ret+0(FP)
	RET

// func readISAR0() uint64
TEXT ·readISAR0(SB),NOSPLIT,$0-8
	MRS	ID_AA64ISAR0_EL1, R0
	MOVD	R0, ret+0(FP)
	RET

// func MIDR() uint64
TEXT ·MIDR(SB),NOSPLIT,$0-8
	MRS	MIDR_EL1, R0
	MOVD	R0, ret+0(FP)
	RET

// func readPFR0() uint64
TEXT ·readPFR0(SB),NOSPLIT,$0-8
	MRS	ID_AA64PFR0_EL1, R0
	MOVD	R0, ret+0(FP)
	RET

// func rndr() (v uint64, ok bool)
//
// rndr reads RNDR (FEAT_RNG): NZCV is 0b0100 (Z set) when no random number was available.
// Only call it when ID_AA64ISAR0_EL1.RNDR says the register exists.
TEXT ·rndr(SB),NOSPLIT,$0-9
	MRS	RNDR, R0
	CSET	NE, R1
	MOVD	R0, v+0(FP)
	MOVB	R1, ok+8(FP)
	RET

// func FlushTLB()
TEXT ·FlushTLB(SB),NOSPLIT,$0
	DSB	$10                     // ISHST: table stores before the invalidation
	TLBI	VMALLE1IS
	DSB	$11                     // ISH: the invalidation done
	ISB	$15
	RET

// func FlushPage(va uintptr)
TEXT ·FlushPage(SB),NOSPLIT,$0-8
	MOVD	va+0(FP), R0
	LSR	$12, R0
	DSB	$10                     // ISHST
	TLBI	VAAE1IS, R0
	DSB	$11                     // ISH
	ISB	$15
	RET

// func SyncPageTables()
TEXT ·SyncPageTables(SB),NOSPLIT,$0
	DSB	$10                     // ISHST
	ISB	$15
	RET

// func cntvct() uint64
//
// The ISB keeps the counter read from being performed early (Arm ARM D11.2.2).
TEXT ·cntvct(SB),NOSPLIT,$0-8
	ISB	$15
	MRS	CNTVCT_EL0, R0
	MOVD	R0, ret+0(FP)
	RET

// func cntpct() uint64
TEXT ·cntpct(SB),NOSPLIT,$0-8
	ISB	$15
	MRS	CNTPCT_EL0, R0
	MOVD	R0, ret+0(FP)
	RET

// func cntfrq() uint64
TEXT ·cntfrq(SB),NOSPLIT,$0-8
	MRS	CNTFRQ_EL0, R0
	MOVD	R0, ret+0(FP)
	RET

// func writeCNTVCVAL(v uint64)
TEXT ·writeCNTVCVAL(SB),NOSPLIT,$0-8
	MOVD	v+0(FP), R0
	MSR	R0, CNTV_CVAL_EL0
	ISB	$15
	RET

// func writeCNTVCTL(v uint64)
TEXT ·writeCNTVCTL(SB),NOSPLIT,$0-8
	MOVD	v+0(FP), R0
	MSR	R0, CNTV_CTL_EL0
	ISB	$15
	RET

// func readCNTVCTL() uint64
TEXT ·readCNTVCTL(SB),NOSPLIT,$0-8
	MRS	CNTV_CTL_EL0, R0
	MOVD	R0, ret+0(FP)
	RET

// func writeCNTPCVAL(v uint64)
TEXT ·writeCNTPCVAL(SB),NOSPLIT,$0-8
	MOVD	v+0(FP), R0
	MSR	R0, CNTP_CVAL_EL0
	ISB	$15
	RET

// func writeCNTPCTL(v uint64)
TEXT ·writeCNTPCTL(SB),NOSPLIT,$0-8
	MOVD	v+0(FP), R0
	MSR	R0, CNTP_CTL_EL0
	ISB	$15
	RET

// func readCNTPCTL() uint64
TEXT ·readCNTPCTL(SB),NOSPLIT,$0-8
	MRS	CNTP_CTL_EL0, R0
	MOVD	R0, ret+0(FP)
	RET

// func iccEnableSRE() uint64
//
// iccEnableSRE sets ICC_SRE_EL1.SRE (with DFB and DIB) so the GICv3 CPU interface is used
// through system registers, and returns the register as read back (SRE stays 0 if the
// interface cannot be used that way).
TEXT ·iccEnableSRE(SB),NOSPLIT,$0-8
	MRS	ICC_SRE_EL1, R0
	ORR	$7, R0
	MSR	R0, ICC_SRE_EL1
	ISB	$15
	MRS	ICC_SRE_EL1, R0
	MOVD	R0, ret+0(FP)
	RET

// func iccWritePMR(v uint64)
TEXT ·iccWritePMR(SB),NOSPLIT,$0-8
	MOVD	v+0(FP), R0
	MSR	R0, ICC_PMR_EL1
	RET

// func iccWriteBPR1(v uint64)
TEXT ·iccWriteBPR1(SB),NOSPLIT,$0-8
	MOVD	v+0(FP), R0
	MSR	R0, ICC_BPR1_EL1
	RET

// func iccWriteIGRPEN1(v uint64)
TEXT ·iccWriteIGRPEN1(SB),NOSPLIT,$0-8
	MOVD	v+0(FP), R0
	MSR	R0, ICC_IGRPEN1_EL1
	ISB	$15
	RET

// func iccReadIAR1() uint64
TEXT ·iccReadIAR1(SB),NOSPLIT,$0-8
	MRS	ICC_IAR1_EL1, R0
	DSB	$15                     // SY: the acknowledge before any access it allows
	MOVD	R0, ret+0(FP)
	RET

// func iccReadHPPIR1() uint64
TEXT ·iccReadHPPIR1(SB),NOSPLIT,$0-8
	MRS	ICC_HPPIR1_EL1, R0
	MOVD	R0, ret+0(FP)
	RET

// func iccWriteEOIR1(v uint64)
TEXT ·iccWriteEOIR1(SB),NOSPLIT,$0-8
	MOVD	v+0(FP), R0
	MSR	R0, ICC_EOIR1_EL1
	ISB	$15
	RET

// func WaitForInterrupt()
TEXT ·WaitForInterrupt(SB),NOSPLIT,$0
	WFI
	RET

// func IRQSave() uint64
TEXT ·IRQSave(SB),NOSPLIT,$0-8
	MRS	DAIF, R0
	MSR	$3, DAIFSet             // I and F
	MOVD	R0, ret+0(FP)
	RET

// func IRQRestore(flags uint64)
TEXT ·IRQRestore(SB),NOSPLIT,$0-8
	MOVD	flags+0(FP), R0
	MSR	R0, DAIF
	RET

// func CurrentStack() (lo, hi uintptr)
//
// CurrentStack reads the stack bounds from the g in R28 (the first two words of runtime.g, or of
// a kernel stack's stand-in g).
TEXT ·CurrentStack(SB),NOSPLIT,$0-16
	MOVD	const_gStackLo(g), R0
	MOVD	R0, lo+0(FP)
	MOVD	const_gStackHi(g), R0
	MOVD	R0, hi+8(FP)
	RET

// func CPUIndex() uint32
TEXT ·CPUIndex(SB),NOSPLIT,$0-4
	MRS	TPIDR_EL1, R0
	MOVD	CPU_ID(R0), R0
	MOVW	R0, ret+0(FP)
	RET

// func InterruptedFrame() uintptr
TEXT ·InterruptedFrame(SB),NOSPLIT,$0-8
	MRS	TPIDR_EL1, R0
	MOVD	CPU_CurrentFrame(R0), R0
	MOVD	R0, ret+0(FP)
	RET

// func addrOfText() uintptr
TEXT ·addrOfText(SB),NOSPLIT,$0-8
	MOVD	$runtime·text(SB), R0
	MOVD	R0, ret+0(FP)
	RET

// func addrOfEtext() uintptr
TEXT ·addrOfEtext(SB),NOSPLIT,$0-8
	MOVD	$runtime·etext(SB), R0
	MOVD	R0, ret+0(FP)
	RET

// func addrOfEnd() uintptr
TEXT ·addrOfEnd(SB),NOSPLIT,$0-8
	MOVD	$runtime·end(SB), R0
	MOVD	R0, ret+0(FP)
	RET

// func addrOfPclntab() (start, end uintptr)
TEXT ·addrOfPclntab(SB),NOSPLIT,$0-16
	MOVD	$runtime·pclntab(SB), R0
	MOVD	R0, start+0(FP)
	MOVD	$runtime·epclntab(SB), R0
	MOVD	R0, end+8(FP)
	RET

// func AddrOfRuntimeEntry() uintptr
//
// An assembly reference, not a linkname: the runtime's entry symbol is never pulled by Go code.
TEXT ·AddrOfRuntimeEntry(SB),NOSPLIT,$0-8
	MOVD	$_rt0_arm64_linux(SB), R0
	MOVD	R0, ret+0(FP)
	RET

// func Exit(code uint32)
//
// Entry: any EL1 state. It masks interrupts, points VBAR_EL1 at exitVectors, writes the
// parameter block and executes the semihosting trap HLT #0xf000 with X0 = SYS_EXIT (0x18) and
// X1 = the block (ARM semihosting v2, SYS_EXIT for AArch64). R17 counts the fallbacks tried.
TEXT ·Exit(SB),NOSPLIT|NOFRAME,$0-4
	MOVWU	code+0(FP), R2
	MSR	$15, DAIFSet
	MOVD	$exitVectors<>(SB), R0
	MSR	R0, VBAR_EL1
	ISB	$15
	MOVD	ZR, R17
	MOVD	$·exitBlock(SB), R1
	MOVD	$0x20026, R3            // ADP_Stopped_ApplicationExit
	MOVD	R3, 0(R1)
	MOVD	R2, 8(R1)
	DSB	$15
	MOVD	$0x18, R0               // SYS_EXIT
	HLT	$0xf000
	B	exitFallback<>(SB)

// exitVectors is the vector table Exit installs: every entry goes to exitFallback.
#define EXIT_VECTOR PCALIGN $128; B exitFallback<>(SB)
TEXT exitVectors<>(SB),NOSPLIT|NOFRAME,$0
	PCALIGN	$2048
	B	exitFallback<>(SB)
	EXIT_VECTOR; EXIT_VECTOR; EXIT_VECTOR; EXIT_VECTOR; EXIT_VECTOR
	EXIT_VECTOR; EXIT_VECTOR; EXIT_VECTOR; EXIT_VECTOR; EXIT_VECTOR
	EXIT_VECTOR; EXIT_VECTOR; EXIT_VECTOR; EXIT_VECTOR; EXIT_VECTOR

// exitFallback runs when semihosting did not end the machine (the HLT was undefined), and again
// if its PSCI call is undefined too; R17 says how many times it has run. PSCI SYSTEM_OFF goes
// through HVC when the CPU has no EL2 (QEMU then implements PSCI for HVC) and through SMC when
// it has one (QEMU then implements it for SMC, leaving HVC to the guest's EL2, where nothing
// would catch it).
TEXT exitFallback<>(SB),NOSPLIT|NOFRAME,$0
	ADD	$1, R17
	CMP	$1, R17
	BNE	stop
	MOVD	$0x84000008, R0         // PSCI SYSTEM_OFF
	MRS	ID_AA64PFR0_EL1, R1
	UBFX	$8, R1, $4, R1          // EL2 field
	CBNZ	R1, viaSMC
	HVC	$0
	B	stop
viaSMC:
	SMC	$0
stop:
	MSR	$15, DAIFSet
	WFI
	B	stop

// func storeBarrier()
//
// storeBarrier is DSB ISHST: earlier stores are visible to every CPU in the inner-shareable
// domain before any later store (an MMIO write that interrupts another CPU) is made.
TEXT ·storeBarrier(SB),NOSPLIT,$0
	DSB	$0xa                    // ISHST
	RET

// func iccWriteSGI1R(v uint64)
//
// iccWriteSGI1R generates a group 1 SGI (ICC_SGI1R_EL1, GICv3). The DSB ISHST first makes
// earlier stores visible to the target (a system-register write is not ordered by them).
TEXT ·iccWriteSGI1R(SB),NOSPLIT,$0-8
	MOVD	v+0(FP), R0
	DSB	$0xa                    // ISHST
	MSR	R0, ICC_SGI1R_EL1
	ISB	$15
	RET

// func cleanDcacheRange(start, end uintptr)
//
// cleanDcacheRange writes back every data cache line holding [start, end) to the point of
// coherency (DC CVAC), so a CPU that reads that memory with its MMU and caches still off sees
// it. It steps 16 bytes, the smallest line the architecture allows (CTR_EL0.DminLine >= 2).
TEXT ·cleanDcacheRange(SB),NOSPLIT,$0-16
	MOVD	start+0(FP), R0
	MOVD	end+8(FP), R1
	AND	$~15, R0
loop:
	CMP	R1, R0
	BHS	done
	DC	CVAC, R0
	ADD	$16, R0
	B	loop
done:
	DSB	$15                     // SY
	RET

// func psciCall(method int, fn, a1, a2, a3 uint64) uint64
//
// psciCall calls PSCI firmware through HVC #0 (method PSCIMethodHVC) or SMC #0 (otherwise)
// with the SMC calling convention: function ID in x0, arguments in x1-x3, result in x0. The
// firmware preserves x18-x30 (SMCCC), so g (R28) and the frame pointer survive.
TEXT ·psciCall(SB),NOSPLIT,$0-48
	MOVD	method+0(FP), R4
	MOVD	fn+8(FP), R0
	MOVD	a1+16(FP), R1
	MOVD	a2+24(FP), R2
	MOVD	a3+32(FP), R3
	CMP	$const_PSCIMethodHVC, R4
	BNE	viaSMC
	HVC	$0
	B	done
viaSMC:
	SMC	$0
done:
	MOVD	R0, ret+40(FP)
	RET

// func EnableInterrupts()
//
// EnableInterrupts unmasks IRQs in PSTATE (DAIF.I). In a trap handler the GIC's priority mask
// decides what may then come (SetPriorityMask).
TEXT ·EnableInterrupts(SB),NOSPLIT,$0
	MSR	$2, DAIFClr
	RET

// func DisableInterrupts()
//
// DisableInterrupts masks IRQs in PSTATE (DAIF.I).
TEXT ·DisableInterrupts(SB),NOSPLIT,$0
	MSR	$2, DAIFSet
	RET
