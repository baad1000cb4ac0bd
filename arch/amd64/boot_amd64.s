#include "textflag.h"
#include "go_asm.h"
#include "entry_amd64.h"

// The image is linked with -T 0x101000 -R 0x1000, so QEMU loads the ELF header page at 0x100000
// (the image builder refuses an image whose first PT_LOAD is elsewhere). The top of that page
// holds the PVH note, which QEMU has already read when it enters us: its last bytes serve as the
// scratch stack for the few CALLs of the 32-bit code below.
#define BOOT32_SP 0x100ff0

// ABS32 leaves the absolute address of sym in reg, for 32-bit protected mode (clobbers AX).
// The Go assembler encodes LEAL sym(SB), reg as a 6-byte RIP-relative LEA (8D /r disp32); in
// 32-bit mode the same bytes mean "reg = disp32". getpc32 returns the LEA's own address in AX,
// so the absolute address is AX + 6 (the end of the LEA, which the displacement is relative to)
// plus the displacement. Only 32-bit registers without REX prefixes may be used here.
#define ABS32(sym, reg) CALL getpc32<>(SB); LEAL sym, reg; ADDL AX, reg; ADDL $6, reg

// pvhEntry is the image's entry point (ELF e_entry, and the PVH note's PHYS32_ENTRY).
//
// Entry state (PVH boot ABI, xen/include/public/arch-x86/hvm/start_info.h): 32-bit protected
// mode, paging off, interrupts off, flat 4 GiB CS/DS, EBX = physical address of hvm_start_info,
// ESP undefined. Every instruction up to the far return must mean the same thing decoded as
// 32-bit and 64-bit code: no REX prefixes (no R8-R15, no MOVQ), no 64-bit-only forms.
//
// It identity-maps the first 4 GiB with 2 MiB pages, enables long mode (PAE, EFER.LME, NXE and
// paging), loads a boot GDT and far-returns into start64 in 64-bit mode. ESI carries the
// start_info address across. It never returns.
TEXT ·pvhEntry(SB),NOSPLIT|NOFRAME,$0
	CLI
	MOVL	BX, SI                  // start_info, kept in ESI until start64
	MOVL	$BOOT32_SP, SP

	// Boot page tables: 7 pages reserved, 6 used after aligning: PML4, PDPT, 4 page directories.
	ABS32(·bootTables(SB), DI)
	ADDL	$4095, DI
	ANDL	$0xfffff000, DI

	LEAL	4096(DI), DX            // PML4[0] -> PDPT, present|write
	ORL	$3, DX
	MOVL	DX, 0(DI)
	LEAL	8192(DI), DX            // PDPT[0..3] -> the 4 page directories
	ORL	$3, DX
	MOVL	DX, 4096(DI)
	ADDL	$4096, DX
	MOVL	DX, 4104(DI)
	ADDL	$4096, DX
	MOVL	DX, 4112(DI)
	ADDL	$4096, DX
	MOVL	DX, 4120(DI)
	XORL	BX, BX                  // 2048 PDEs: 2 MiB pages, present|write|huge
pde:
	MOVL	BX, DX
	SHLL	$21, DX
	ORL	$0x83, DX
	MOVL	DX, 8192(DI)(BX*8)
	INCL	BX
	CMPL	BX, $2048
	JNE	pde

	MOVL	CR4, AX                 // CR4.PAE
	ORL	$0x20, AX
	MOVL	AX, CR4
	MOVL	DI, CR3
	MOVL	$0xc0000080, CX         // IA32_EFER: LME (bit 8), NXE (bit 11)
	RDMSR
	ORL	$0x900, AX
	WRMSR
	MOVL	CR0, AX                 // CR0.PG | CR0.PE: long mode (compatibility) is active
	ORL	$0x80000001, AX
	MOVL	AX, CR0

	ABS32(·bootGDT(SB), DX)
	ABS32(·bootGDTR(SB), BX)
	MOVL	DX, 2(BX)
	LGDT	0(BX)

	ABS32(·start64(SB), DX)
	PUSHQ	$const_KernelCS         // 6A 08: push imm8 (4 bytes in 32-bit mode)
	PUSHQ	DX                      // 52: push edx
	BYTE	$0xcb                   // RETF (32-bit): pops EIP and CS, enters 64-bit mode

// getpc32 returns its return address in AX (32- and 64-bit: 8B 04 24 C3).
TEXT getpc32<>(SB),NOSPLIT|NOFRAME,$0
	MOVL	0(SP), AX
	RET

// start64 runs in 64-bit mode on the boot GDT, ESI = start_info.
//
// It loads the data segments, enables SSE (CR0.EM off, CR0.MP, CR4.OSFXSR|OSXMMEXCPT; the AVX
// state comes later, in loadCPUTables: avx_amd64.go), sets up the boot kernel stack right
// after the image (aligned to kstackSize, with its stand-in g and TLS slot, see percpu.go),
// points FS base at that TLS slot and GS base at cpu0, and calls the kernel's boot entry point with the start_info
// address. The kernel never returns here; if it did, the CPU halts.
TEXT ·start64(SB),NOSPLIT|NOFRAME,$0
	MOVL	$const_KernelSS, AX
	MOVW	AX, DS
	MOVW	AX, ES
	MOVW	AX, SS
	XORL	AX, AX
	MOVW	AX, FS
	MOVW	AX, GS
	MOVL	SI, SI                  // zero-extend start_info
	RDTSC                           // monotonic time zero: the first 64-bit instruction's TSC
	SHLQ	$32, DX
	ORQ	DX, AX
	MOVQ	AX, ·entryTSC(SB)

	MOVQ	CR0, AX
	ANDQ	$~4, AX                 // EM off
	ORQ	$2, AX                  // MP on
	MOVQ	AX, CR0
	MOVQ	CR4, AX
	ORQ	$0x600, AX              // OSFXSR | OSXMMEXCPT
	MOVQ	AX, CR4
	FINIT

	LEAQ	runtime·end(SB), BX     // boot stack: first kstackSize-aligned block after the image
	ADDQ	$(const_kstackSize-1), BX
	ANDQ	$~(const_kstackSize-1), BX
	MOVQ	BX, ·bootStackBase(SB)
	MOVQ	BX, AX
	CALL	initKernelStack<>(SB)

	LEAQ	const_kstackFSOffset(BX), AX
	MOVL	$0xc0000100, CX         // IA32_FS_BASE
	MOVQ	AX, DX
	SHRQ	$32, DX
	WRMSR
	LEAQ	·cpu0(SB), AX
	MOVQ	AX, CPU_Self(AX)
	MOVL	$0xc0000101, CX         // IA32_GS_BASE
	MOVQ	AX, DX
	SHRQ	$32, DX
	WRMSR

	LEAQ	const_kstackSize(BX), SP
	SUBQ	$16, SP
	MOVQ	SI, 0(SP)
	MOVQ	KERNEL_ENTRY_BOOT, AX
	CALL	AX
halt:
	CLI
	HLT
	JMP	halt

// initKernelStack<> writes the header of the kernel stack whose base is in AX (see percpu.go).
// Clobbers DX.
TEXT initKernelStack<>(SB),NOSPLIT|NOFRAME,$0
	MOVQ	AX, const_kstackTLS(AX)         // TLS slot -> stand-in g (at the base)
	LEAQ	const_kstackLo(AX), DX
	MOVQ	DX, const_gStackLo(AX)
	LEAQ	const_kstackSize(AX), DX
	MOVQ	DX, const_gStackHi(AX)
	LEAQ	const_kstackGuard(AX), DX
	MOVQ	DX, const_gStackGuard0(AX)
	MOVQ	DX, const_gStackGuard1(AX)
	RET

// func initKernelStackAt(base uintptr)
TEXT ·initKernelStackAt(SB),NOSPLIT,$0-8
	MOVQ	base+0(FP), AX
	CALL	initKernelStack<>(SB)
	RET

// The boot GDT: null, 64-bit kernel code (0x08), kernel data (0x10). gdt.go installs the final one.
DATA ·bootGDT+0(SB)/8, $0
DATA ·bootGDT+8(SB)/8, $0x00af9a000000ffff
DATA ·bootGDT+16(SB)/8, $0x00cf92000000ffff
GLOBL ·bootGDT(SB), NOPTR, $24

// The boot GDT's pseudo-descriptor: limit 23; pvhEntry writes the base.
DATA ·bootGDTR+0(SB)/2, $23
GLOBL ·bootGDTR(SB), NOPTR, $16

GLOBL ·bootTables(SB), NOPTR, $(7*4096)
