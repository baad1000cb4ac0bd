#include "textflag.h"
#include "go_asm.h"
#include "entry_amd64.h"

// apStart64 is where the AP start-up trampoline (smp.go) jumps once the AP is in 64-bit mode on
// the trampoline's GDT and the boot CPU's page tables, with no stack. The trampoline's data holds
// the address of the AP's per-CPU area, which StartAP filled in.
//
// It loads the data segments, enables SSE exactly as start64 does for the boot CPU, points FS
// base at its boot stack's stand-in g and GS base at its CPU area, switches to that stack,
// lets apSetup load the CPU's own GDT, TSS and IDT, and calls the kernel's secondary entry point
// with the CPU index. It never returns; if the kernel did, the CPU halts.
TEXT ·apStart64(SB),NOSPLIT|NOFRAME,$0
	MOVL	$const_KernelSS, AX
	MOVW	AX, DS
	MOVW	AX, ES
	MOVW	AX, SS
	XORL	AX, AX
	MOVW	AX, FS
	MOVW	AX, GS
	MOVQ	$(const_trampolineAddr+const_trampolineCPU), BX
	MOVQ	0(BX), BX               // this CPU's area

	MOVQ	CR0, AX
	ANDQ	$~4, AX                 // EM off
	ORQ	$2, AX                  // MP on
	MOVQ	AX, CR0
	MOVQ	CR4, AX
	ORQ	$0x600, AX              // OSFXSR | OSXMMEXCPT
	MOVQ	AX, CR4
	FINIT

	MOVL	$0xc0000100, CX         // IA32_FS_BASE
	MOVQ	CPU_FSBase(BX), AX
	MOVQ	AX, DX
	SHRQ	$32, DX
	WRMSR
	MOVL	$0xc0000101, CX         // IA32_GS_BASE
	MOVQ	BX, AX
	MOVQ	AX, DX
	SHRQ	$32, DX
	WRMSR

	MOVQ	CPU_StackTop(BX), SP
	CALL	·apSetup(SB)
	MOVQ	CPU_ID(GS), AX
	MOVQ	AX, 0(SP)
	MOVQ	KERNEL_ENTRY_SECONDARY, AX
	CALL	AX
halt:
	CLI
	HLT
	JMP	halt

// func addrOfAPStart64() uintptr
TEXT ·addrOfAPStart64(SB),NOSPLIT,$0-8
	LEAQ	·apStart64(SB), AX
	MOVQ	AX, ret+0(FP)
	RET

// func readCR0() uint64
TEXT ·readCR0(SB),NOSPLIT,$0-8
	MOVQ	CR0, AX
	MOVQ	AX, ret+0(FP)
	RET
