#include "textflag.h"
#include "go_asm.h"

// Small instruction wrappers. Each is a leaf that touches only the registers it names; they are
// called from kernel-mode Go with interrupts masked (or at boot).

// func Outb(port uint16, v uint8)
TEXT ·Outb(SB),NOSPLIT,$0-3
	MOVW	port+0(FP), DX
	MOVB	v+2(FP), AX
	OUTB
	RET

// func Inb(port uint16) uint8
TEXT ·Inb(SB),NOSPLIT,$0-9
	MOVW	port+0(FP), DX
	INB
	MOVB	AX, ret+8(FP)
	RET

// func Outl(port uint16, v uint32)
TEXT ·Outl(SB),NOSPLIT,$0-8
	MOVW	port+0(FP), DX
	MOVL	v+4(FP), AX
	OUTL
	RET

// func Inl(port uint16) uint32
TEXT ·Inl(SB),NOSPLIT,$0-12
	MOVW	port+0(FP), DX
	INL
	MOVL	AX, ret+8(FP)
	RET

// func rdmsr(msr uint32) uint64
TEXT ·rdmsr(SB),NOSPLIT,$0-16
	MOVL	msr+0(FP), CX
	RDMSR
	SHLQ	$32, DX
	ORQ	DX, AX
	MOVQ	AX, ret+8(FP)
	RET

// func wrmsr(msr uint32, v uint64)
TEXT ·wrmsr(SB),NOSPLIT,$0-16
	MOVL	msr+0(FP), CX
	MOVQ	v+8(FP), AX
	MOVQ	AX, DX
	SHRQ	$32, DX
	WRMSR
	RET

// func cpuid(leaf, sub uint32) (a, b, c, d uint32)
TEXT ·cpuid(SB),NOSPLIT,$0-24
	MOVL	leaf+0(FP), AX
	MOVL	sub+4(FP), CX
	CPUID
	MOVL	AX, a+8(FP)
	MOVL	BX, b+12(FP)
	MOVL	CX, c+16(FP)
	MOVL	DX, d+20(FP)
	RET

// func Rdtsc() uint64
TEXT ·Rdtsc(SB),NOSPLIT,$0-8
	RDTSC
	SHLQ	$32, DX
	ORQ	DX, AX
	MOVQ	AX, ret+0(FP)
	RET

// func rdrand() (v uint64, ok bool)
TEXT ·rdrand(SB),NOSPLIT,$0-9
	BYTE $0x48; BYTE $0x0f; BYTE $0xc7; BYTE $0xf0 // RDRAND RAX (CF=1 when valid)
	SETCS	BX
	MOVQ	AX, v+0(FP)
	MOVB	BX, ok+8(FP)
	RET

// func readCR3() uint64
TEXT ·readCR3(SB),NOSPLIT,$0-8
	MOVQ	CR3, AX
	MOVQ	AX, ret+0(FP)
	RET

// func writeCR3(v uint64)
TEXT ·writeCR3(SB),NOSPLIT,$0-8
	MOVQ	v+0(FP), AX
	MOVQ	AX, CR3
	RET

// func readCR4() uint64
TEXT ·readCR4(SB),NOSPLIT,$0-8
	MOVQ	CR4, AX
	MOVQ	AX, ret+0(FP)
	RET

// func writeCR4(v uint64)
TEXT ·writeCR4(SB),NOSPLIT,$0-8
	MOVQ	v+0(FP), AX
	MOVQ	AX, CR4
	RET

// func Invlpg(va uintptr)
TEXT ·Invlpg(SB),NOSPLIT,$0-8
	MOVQ	va+0(FP), AX
	INVLPG	(AX)
	RET

// func lgdt(pseudo uintptr)
//
// lgdt loads the GDT described by the 10-byte pseudo-descriptor at pseudo, then reloads CS
// (with a far return to the next instruction) and the data segment registers.
TEXT ·lgdt(SB),NOSPLIT,$0-8
	MOVQ	pseudo+0(FP), AX
	LGDT	0(AX)
	MOVL	$0x10, AX
	MOVW	AX, DS
	MOVW	AX, ES
	MOVW	AX, SS
	LEAQ	reloaded<>(SB), AX
	PUSHQ	$0x08
	PUSHQ	AX
	RETFQ
TEXT reloaded<>(SB),NOSPLIT|NOFRAME,$0
	RET

// func lidt(pseudo uintptr)
TEXT ·lidt(SB),NOSPLIT,$0-8
	MOVQ	pseudo+0(FP), AX
	LIDT	0(AX)
	RET

// func ltr(sel uint16)
TEXT ·ltr(SB),NOSPLIT,$0-2
	MOVW	sel+0(FP), AX
	LTR	AX
	RET

// func halt()
//
// halt stops the CPU for good: interrupts off, HLT in a loop (an NMI would resume it).
TEXT ·halt(SB),NOSPLIT,$0
stop:
	CLI
	HLT
	JMP	stop

// func Pause()
TEXT ·Pause(SB),NOSPLIT,$0
	PAUSE
	RET

// func mmioRead32(addr uintptr) uint32
TEXT ·mmioRead32(SB),NOSPLIT,$0-12
	MOVQ	addr+0(FP), AX
	MOVL	0(AX), AX
	MOVL	AX, ret+8(FP)
	RET

// func mmioWrite32(addr uintptr, v uint32)
TEXT ·mmioWrite32(SB),NOSPLIT,$0-12
	MOVQ	addr+0(FP), AX
	MOVL	v+8(FP), BX
	MOVL	BX, 0(AX)
	RET

// func setCR0WP()
TEXT ·setCR0WP(SB),NOSPLIT,$0
	MOVQ	CR0, AX
	ORQ	$(1<<16), AX
	MOVQ	AX, CR0
	RET

// func addrOfText() uintptr
TEXT ·addrOfText(SB),NOSPLIT,$0-8
	LEAQ	runtime·text(SB), AX
	MOVQ	AX, ret+0(FP)
	RET

// func addrOfEtext() uintptr
TEXT ·addrOfEtext(SB),NOSPLIT,$0-8
	LEAQ	runtime·etext(SB), AX
	MOVQ	AX, ret+0(FP)
	RET

// func AddrOfRuntimeEntry() uintptr
//
// AddrOfRuntimeEntry returns the address of the Go runtime's Linux entry point, where the first
// thread starts with the initial process stack. An assembly reference, not a linkname.
TEXT ·AddrOfRuntimeEntry(SB),NOSPLIT,$0-8
	LEAQ	_rt0_amd64_linux(SB), AX
	MOVQ	AX, ret+0(FP)
	RET

// func addrOfEnd() uintptr
TEXT ·addrOfEnd(SB),NOSPLIT,$0-8
	LEAQ	runtime·end(SB), AX
	MOVQ	AX, ret+0(FP)
	RET

// func addrOfPclntab() (start, end uintptr)
TEXT ·addrOfPclntab(SB),NOSPLIT,$0-16
	LEAQ	runtime·pclntab(SB), AX
	MOVQ	AX, start+0(FP)
	LEAQ	runtime·epclntab(SB), AX
	MOVQ	AX, end+8(FP)
	RET

// func IRQSave() uint64
//
// IRQSave masks interrupts and returns the previous RFLAGS, for IRQRestore. Safe with
// interrupts already masked (trap context).
TEXT ·IRQSave(SB),NOSPLIT,$0-8
	PUSHFQ
	POPQ	AX
	CLI
	MOVQ	AX, ret+0(FP)
	RET

// func IRQRestore(flags uint64)
//
// IRQRestore enables interrupts again if flags (from IRQSave) had them enabled.
TEXT ·IRQRestore(SB),NOSPLIT,$0-8
	MOVQ	flags+0(FP), AX
	TESTQ	$(1<<9), AX
	JZ	masked
	STI
masked:
	RET

// func CurrentStack() (lo, hi uintptr)
//
// CurrentStack returns the bounds of the stack the caller runs on, from the g that FS:-8 points
// to: the running goroutine's g in a thread (the Go runtime keeps it current on g0 and gsignal
// stacks too), the kernel stack's stand-in g in a trap handler (percpu.go).
TEXT ·CurrentStack(SB),NOSPLIT,$0-16
	MOVQ	-8(FS), AX
	MOVQ	const_gStackLo(AX), BX
	MOVQ	BX, lo+0(FP)
	MOVQ	const_gStackHi(AX), BX
	MOVQ	BX, hi+8(FP)
	RET

// func CPUIndex() uint32
//
// CPUIndex returns the number of the CPU it runs on, from the per-CPU area (GS base). Only valid
// in the guest kernel, where GS base always points at a CPU struct.
TEXT ·CPUIndex(SB),NOSPLIT,$0-4
	MOVQ	CPU_ID(GS), AX
	MOVL	AX, ret+0(FP)
	RET

// func InterruptedFrame() uintptr
//
// InterruptedFrame returns CPU.CurrentFrame: the address of the Frame the entry stub built for
// the trap being handled, 0 when the CPU runs a thread. Guest kernel only (GS base is a CPU).
TEXT ·InterruptedFrame(SB),NOSPLIT,$0-8
	MOVQ	CPU_CurrentFrame(GS), AX
	MOVQ	AX, ret+0(FP)
	RET

// func HaltUnless(flag *uint32)
//
// HaltUnless halts the calling CPU until an NMI or an interrupt above the task priority wakes
// it, unless *flag is already non-zero. Entry: IF = 1, in a trap handler (the kernel's state:
// at KernelPriority, only the sampler's vector passes). Clobbers AX. Returns with IF = 1, after the handler of
// what woke it ran, or at once.
//
// The waker sets *flag before it sends the NMI. The flag is read with interrupts masked, and
// STI's one-instruction shadow makes the HLT start before a maskable interrupt is taken, so a
// sampler interrupt always returns after the HLT. An NMI can come anywhere: one that arrives
// before the flag is read leaves it set, so the CPU does not halt; one that arrives after the
// read but before the HLT has executed returns into this function, onto the STI or onto the
// HLT, and its handler moves it to the RET after the HLT instead, with IF set
// (SkipHaltAfterNMI): the CPU does not sleep through the wake-up. The STI, HLT and RET are a
// function of their own, reached by a tail jump, so that their addresses are known.
TEXT ·HaltUnless(SB),NOSPLIT,$0-8
	CLI
	MOVQ	flag+0(FP), AX
	CMPL	(AX), $0
	JNE	woken
	JMP	·haltThenReturn(SB)
woken:
	STI
	RET

// func haltThenReturn()
//
// haltThenReturn is HaltUnless's tail: STI and HLT as its first two bytes, then RET to
// HaltUnless's caller (neither pushes anything). Entry: IF = 0. Returns with IF = 1. Clobbers
// nothing.
TEXT ·haltThenReturn(SB),NOSPLIT,$0-0
	STI
	HLT
	RET

// func haltUnlessPC() uintptr
//
// haltUnlessPC is the address of HaltUnless's first instruction.
TEXT ·haltUnlessPC(SB),NOSPLIT,$0-8
	LEAQ	·HaltUnless(SB), AX
	MOVQ	AX, ret+0(FP)
	RET

// func haltThenReturnPC() uintptr
//
// haltThenReturnPC is the address of haltThenReturn's first byte (its STI; the HLT follows).
TEXT ·haltThenReturnPC(SB),NOSPLIT,$0-8
	LEAQ	·haltThenReturn(SB), AX
	MOVQ	AX, ret+0(FP)
	RET

// func SetPriority(class uint64)
//
// SetPriority writes the task-priority class (CR8 = TPR[7:4]): the local APIC delivers only
// vectors of a higher class. Clobbers AX.
TEXT ·SetPriority(SB),NOSPLIT,$0-8
	MOVQ	class+0(FP), AX
	MOVQ	AX, CR8
	RET

// func EnableInterrupts()
//
// EnableInterrupts sets IF. In a trap handler the task priority decides what may then come.
TEXT ·EnableInterrupts(SB),NOSPLIT,$0
	STI
	RET

// func DisableInterrupts()
//
// DisableInterrupts clears IF.
TEXT ·DisableInterrupts(SB),NOSPLIT,$0
	CLI
	RET

// func stmxcsr() uint32
TEXT ·stmxcsr(SB),NOSPLIT,$0-4
	STMXCSR	ret+0(FP)
	RET

// func xsetbv(reg uint32, v uint64)
//
// xsetbv writes extended control register reg (XSETBV: ECX selects it, EDX:EAX is the value).
// Entry: CR4.OSXSAVE set. Clobbers AX, CX, DX.
TEXT ·xsetbv(SB),NOSPLIT,$0-16
	MOVL	reg+0(FP), CX
	MOVQ	v+8(FP), AX
	MOVQ	AX, DX
	SHRQ	$32, DX
	BYTE	$0x0f; BYTE $0x01; BYTE $0xd1 // XSETBV
	RET
