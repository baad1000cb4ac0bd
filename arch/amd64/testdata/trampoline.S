# The application-processor start-up trampoline (GNU as syntax, assembled by mktrampoline.go
# into trampoline_code.go; the kernel never needs an assembler for it).
#
# StartAP copies it to trampolineAddr (a page below 1 MiB, page aligned) and sends the
# STARTUP IPI with vector trampolineAddr>>12, so the AP starts here in real mode with
# CS = trampolineAddr>>4, IP = 0. It goes to 32-bit protected mode on its own small GDT, turns
# on PAE, loads the boot CPU's page tables (CR3 from the data below), sets EFER.LME and NXE,
# turns on paging and far-jumps to 64-bit code, which jumps to the kernel's apStart64 (the
# 64-bit address in the data below). The page must stay identity-mapped in those page tables:
# the instruction after the write to CR0 is fetched through them.

.set T, 0x10000            # trampolineAddr in setup_ap_amd64.go
.set DATA, 0xc0            # trampolineData

.code16
start:
	cli
	cld
	movw	%cs, %ax
	movw	%ax, %ds
	lgdtl	gdtr - start
	movl	%cr0, %eax
	orl	$1, %eax            # CR0.PE
	movl	%eax, %cr0
	ljmpl	$0x18, $(T + pm32 - start)

.code32
pm32:
	movl	$0x10, %eax
	movw	%ax, %ds
	movw	%ax, %es
	movw	%ax, %ss
	movl	%cr4, %eax
	orl	$0x20, %eax         # CR4.PAE
	movl	%eax, %cr4
	movl	(T + DATA), %eax    # CR3 (below 4 GiB: StartAP checks)
	movl	%eax, %cr3
	movl	$0xc0000080, %ecx   # IA32_EFER: LME, NXE
	rdmsr
	orl	$0x900, %eax
	wrmsr
	movl	%cr0, %eax
	orl	$0x80000000, %eax   # CR0.PG: long mode is active
	movl	%eax, %cr0
	ljmp	$0x08, $(T + lm64 - start)

.code64
lm64:
	movq	(T + DATA + 8), %rax
	jmpq	*%rax

.balign 8
gdt:
	.quad	0
	.quad	0x00af9a000000ffff  # 0x08: 64-bit code
	.quad	0x00cf92000000ffff  # 0x10: data
	.quad	0x00cf9a000000ffff  # 0x18: 32-bit code
gdtr:
	.word	31
	.long	T + gdt - start

.org DATA
	.quad	0                   # +0: CR3
	.quad	0                   # +8: the 64-bit entry (apStart64)
	.quad	0                   # +16: the CPU area of the AP being started
