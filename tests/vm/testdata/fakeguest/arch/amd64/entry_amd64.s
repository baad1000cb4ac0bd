#include "textflag.h"

// pvhEntry is entered by QEMU's PVH loader in 32-bit protected mode, paging
// and interrupts off, with BX = the physical address of hvm_start_info.
// Every instruction here encodes the same in 32-bit and 64-bit mode (no REX
// prefix, no RIP-relative operand).
//
// It echoes the command line to COM1, turning '|' into a line break, ends
// the line, then acts on the command line's third and fourth bytes, which
// the tests set with a first word "x=<op><digit>":
//	e<d>  write d to isa-debug-exit (QEMU exits with d<<1|1)
//	f     write 0x7f to isa-debug-exit, as the kernel does after a fault
//	t     triple fault: UD2 with no IDT
//	other halt forever (a hang)
//
// func pvhEntry()
TEXT ·pvhEntry(SB),NOSPLIT|NOFRAME,$0
	MOVL	24(BX), SI	// start_info.cmdline_paddr, low half
	MOVL	SI, DI
	MOVL	$0x3f8, DX	// COM1 transmit register
	TESTL	SI, SI
	JEQ	hang
echo:
	MOVBLZX	(SI), AX
	TESTL	AX, AX
	JEQ	endline
	CMPL	AX, $0x7c	// '|'
	JNE	put
	MOVL	$0x0a, AX
put:
	OUTB		// OUT DX, AL
	INCL	SI
	JMP	echo
endline:
	MOVL	$0x0a, AX
	OUTB
	MOVBLZX	2(DI), AX	// op
	MOVBLZX	3(DI), CX	// digit
	SUBL	$0x30, CX
	MOVL	$0xf4, DX	// isa-debug-exit
	CMPL	AX, $0x65	// 'e'
	JEQ	exit
	CMPL	AX, $0x66	// 'f'
	JEQ	fault
	CMPL	AX, $0x74	// 't'
	JEQ	triple
	JMP	hang
fault:
	MOVL	$0x7f, CX
exit:
	MOVL	CX, AX
	OUTL		// OUT DX, EAX
	JMP	hang
triple:
	BYTE	$0x0f; BYTE $0x0b	// UD2: #UD with no IDT escalates to a triple fault
hang:
	HLT
	JMP	hang
