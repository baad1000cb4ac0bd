package amd64

// Kernel stack slots, each kstackSize bytes and aligned to it, right after the image. Slot 0 is
// the boot stack that start64 set up.
const (
	slotBoot = iota
	slotSyscall
	slotIRQ
	slotException
	slotDoubleFault
	slotNMI
	slotMachineCheck
	slotSampler
	slotBreakpoint
	slotIdle
	numStackSlots
)

// Each CPU has numStackSlots kernel stacks: CPU i's stacks follow CPU i-1's, so the boot CPU's
// are where start64 put its boot stack. Only the CPUs that ReserveCPUs allowed for have theirs.
var reservedCPUs uintptr // 0 means 1: the boot CPU alone

// ReserveCPUs makes room for the kernel stacks of n CPUs (clamped to 1..MaxCPUs) after the
// image and returns the number reserved. It must run before anything allocates memory after
// KernelStacksEnd; StartAP refuses CPU indexes at or above it.
func ReserveCPUs(n int) int {
	n = max(1, min(n, MaxCPUs))
	reservedCPUs = uintptr(n)
	return n
}

func cpusReserved() uintptr { return max(reservedCPUs, 1) }

// KernelStacksEnd is the first byte after the reserved CPUs' kernel stacks: the physical frame
// allocator must not hand out anything below it (down to the image's start).
func KernelStacksEnd() uintptr { return bootStackBase + cpusReserved()*numStackSlots*kstackSize }

// ImageStart is the physical (and virtual) address of the image's first byte: the ELF header
// page at 1 MiB (see boot_amd64.s).
const ImageStart = 0x100000

func stackBaseOf(cpu, slot int) uintptr {
	return bootStackBase + (uintptr(cpu)*numStackSlots+uintptr(slot))*kstackSize
}
func stackTopOf(cpu, slot int) uint64 { return uint64(stackBaseOf(cpu, slot) + kstackSize) }
func stackBase(slot int) uintptr      { return stackBaseOf(0, slot) }

// MSRs (Intel SDM vol. 4).
const (
	msrEFER   = 0xc0000080
	msrSTAR   = 0xc0000081
	msrLSTAR  = 0xc0000082
	msrFMASK  = 0xc0000084
	msrFSBase = 0xc0000100
	msrGSBase = 0xc0000101
	eferSCE   = 1 << 0
	// syscallFMASK clears TF, IF, DF, AC and NT on SYSCALL: the kernel runs with interrupts
	// masked and the direction flag clear.
	syscallFMASK = FlagTF | FlagIF | FlagDF | FlagAC | FlagNT
)

// idt is shared by every CPU: the gates are the same, and each CPU's TSS gives them its own
// IST stacks.
var (
	idt       [NumVectors][2]uint64
	idtPseudo [16]byte
)

// setupCPUArea prepares the per-CPU area c of CPU index: its kernel stacks (all but the boot
// CPU's boot stack, which it is running on), the IST stacks in its TSS, its GDT and LGDT
// operand.
func setupCPUArea(c *CPU, index int) {
	first := slotBoot
	if index == 0 {
		first = slotSyscall
	}
	for s := first; s < numStackSlots; s++ {
		clearStack(stackBaseOf(index, s))
		initKernelStackAt(stackBaseOf(index, s))
	}
	c.Self = uint64(addrOf(c))
	c.ID = uint64(index)
	c.SyscallStack = stackTopOf(index, slotSyscall)
	c.TSS = [104]byte{}
	for n, slot := range [numIST]int{slotIRQ, slotException, slotDoubleFault, slotNMI, slotMachineCheck, slotSampler, slotBreakpoint} {
		putTSSIST(&c.TSS, n+1, stackTopOf(index, slot))
	}
	c.GDT[0] = 0
	c.GDT[1] = gdtKernelCode
	c.GDT[2] = gdtKernelData
	c.GDT[3], c.GDT[4] = tssDescriptor(uint64(addrOf(&c.TSS[0])))
	putPseudoDescriptor(&c.GDTR, uint64(addrOf(&c.GDT[0])), uint16(len(c.GDT)*8-1))
}

// fsgsbase is 1 when every CPU has CR4.FSGSBASE set (CPUID.(7,0):EBX bit 0): the trap stubs
// then switch FS base with RDFSBASE/WRFSBASE instead of RDMSR/WRMSR, which under TCG are
// helpers that end the translation block. The boot CPU decides it before any AP starts, and QEMU's
// CPUs are alike, so an AP only follows. Read by trap_amd64.s.
var fsgsbase uint8

// fastReturn is 1 when the CPU has LAHF/SAHF in 64-bit mode (CPUID.80000001H:ECX bit 0), which
// trapReturn's jump back to a system call's caller needs; without it every return is an IRETQ.
// Read by trap_amd64.s.
var fastReturn uint8

// hasLAHF reports CPUID.80000001H:ECX bit 0.
func hasLAHF() bool {
	if max, _, _, _ := cpuid(0x80000000, 0); max < 0x80000001 {
		return false
	}
	_, _, c, _ := cpuid(0x80000001, 0)
	return c&1 != 0
}

// cr4FSGSBase enables RDFSBASE and its kind at CPL 0 (Intel SDM vol. 3A §2.5).
const cr4FSGSBase = 1 << 16

// hasFSGSBase reports CPUID.(EAX=7,ECX=0):EBX bit 0.
func hasFSGSBase() bool {
	if max, _, _, _ := cpuid(0, 0); max < 7 {
		return false
	}
	_, b, _, _ := cpuid(7, 0)
	return b&1 != 0
}

// loadCPUTables loads c's GDT and TSS and the shared IDT, points SYSCALL at the entry stub and
// enables FSGSBASE where the CPU has it: the per-CPU register state every CPU needs before it
// takes a trap.
func loadCPUTables(c *CPU) {
	if c.ID == 0 {
		if hasFSGSBase() {
			fsgsbase = 1
		}
		if hasLAHF() {
			fastReturn = 1
		}
		if avxWanted && hasAVX() {
			avxOn = 1
		}
	}
	if fsgsbase != 0 {
		writeCR4(readCR4() | cr4FSGSBase)
	}
	if avxOn != 0 {
		enableAVX()
	}
	lgdt(addrOf(&c.GDTR[0]))
	ltr(tssSelector)
	lidt(addrOf(&idtPseudo[0]))
	wrmsr(msrEFER, rdmsr(msrEFER)|eferSCE)
	wrmsr(msrSTAR, uint64(KernelCS)<<32|uint64(KernelCS)<<48)
	wrmsr(msrLSTAR, uint64(addrOfSyscallEntry()))
	wrmsr(msrFMASK, syscallFMASK)
}

// InitCPU sets up the boot CPU: its kernel stacks, GDT with TSS and IST stacks, the IDT with all
// 256 vectors, the SYSCALL MSRs, and masks the legacy PIC. Interrupts stay masked.
func InitCPU() {
	stubs := uint64(addrOfVectors())
	for v := 0; v < NumVectors; v++ {
		idt[v][0], idt[v][1] = idtGate(stubs+uint64(v)*16, istFor(v))
	}
	putPseudoDescriptor(&idtPseudo, uint64(addrOf(&idt[0][0])), uint16(len(idt)*16-1))
	setupCPUArea(&cpu0, 0)
	loadCPUTables(&cpu0)

	// The 8259 PICs would deliver IRQ0-15 on vectors 8-15 (exceptions): mask both.
	Outb(0x21, 0xff)
	Outb(0xa1, 0xff)
}

// IdleFrame fills f with the context of the calling CPU's idle thread: idleLoop on its own stack,
// interrupts enabled.
func IdleFrame(f *Frame) {
	*f = Frame{}
	f.InitFX()
	cpu := int(CPUIndex())
	f.RIP = uint64(addrOfIdleLoop())
	f.RSP = stackTopOf(cpu, slotIdle)
	f.CS, f.SS = KernelCS, KernelSS
	f.RFLAGS = InitialFlags
	f.FSBase = uint64(stackBaseOf(cpu, slotIdle)) + kstackFSOffset
}

// ThreadFrame fills f with the initial context of a thread that starts at pc with stack sp.
func ThreadFrame(f *Frame, pc, sp uintptr) {
	*f = Frame{}
	f.InitFX()
	f.RIP, f.RSP = uint64(pc), uint64(sp)
	f.CS, f.SS = KernelCS, KernelSS
	f.RFLAGS = InitialFlags
}

// Enter starts running the context in f on this CPU and never returns. The Frame is copied to
// the top of the IRQ stack first, so f may live anywhere.
func Enter(f *Frame) {
	top := uintptr(stackTopOf(int(CPUIndex()), slotIRQ))
	dst := frameAt(top - frameSize)
	*dst = *f
	dst.Prev = 0
	resume(top - frameSize)
}

// LoadPageTable switches to the page tables rooted at root (CR3), turning on CR0.WP first so the
// read-only bit binds ring-0 writes too (everything runs at ring 0).
func LoadPageTable(root uintptr) {
	setCR0WP()
	writeCR3(uint64(root))
}

// FlushTLB drops all non-global TLB entries.
func FlushTLB() { writeCR3(readCR3()) }

// TextRange returns the bounds of the image's executable code.
func TextRange() (lo, hi uintptr) { return addrOfText(), addrOfEtext() }

// ImageEnd returns the end of the loaded image (runtime.end: the end of its bss).
func ImageEnd() uintptr { return addrOfEnd() }

// Pclntab returns the bounds of the image's Go symbol table (runtime.pclntab ..
// runtime.epclntab), which the kernel reads to symbolize its fault reports.
func Pclntab() (start, end uintptr) { return addrOfPclntab() }

// KernelStackBounds returns the usable bounds of the kernel stack that holds sp (below its
// stand-in g header), or ok=false when sp is on none of them.
func KernelStackBounds(sp uintptr) (lo, hi uintptr, ok bool) {
	if sp < bootStackBase || sp >= KernelStacksEnd() {
		return 0, 0, false
	}
	base := sp &^ (kstackSize - 1)
	return base + kstackLo, base + kstackSize, true
}

// trapInternal is the address of the kernel's trap function itself, not of its ABI0 wrapper
// (SetTrapEntry), or 0 before the kernel sets it: trapCommon then calls it by Go's register ABI,
// which saves the wrapper's call and return on every trap.
var trapInternal uintptr

// SetTrapEntry gives trapCommon the code address of the kernel's trap function, the one its ABI0
// entry point (KERNEL_ENTRY_TRAP) wraps: trapCommon calls it directly from then on.
func SetTrapEntry(pc uintptr) { trapInternal = pc }
