package arm64

// KernelStacksEnd is the first byte after the kernel stacks of all MaxCPUs CPUs: the physical
// frame allocator must not hand out anything below it (down to ImageStart).
func KernelStacksEnd() uintptr { return bootStackBase + kstackRegionSize }

// stackBaseOf returns the base of CPU cpu's stack slot. The callers pass a CPU index they have
// checked (CPUIndex, or StartCPU's); an index out of range gets CPU 0's slot rather than a
// stack outside the region.
//
//go:nosplit
func stackBaseOf(cpu, slot int) uintptr {
	off, ok := kstackOffset(cpu, slot)
	if !ok {
		off, _ = kstackOffset(0, slot)
	}
	return bootStackBase + off
}

func stackTopOf(cpu, slot int) uint64 { return uint64(stackBaseOf(cpu, slot) + kstackSize) }

// thisCPU returns the index of the CPU it runs on (CPU.ID through TPIDR_EL1).
//
//go:nosplit
func thisCPU() int { return int(CPUIndex()) }

// InitCPU sets up the boot CPU's kernel stacks and the per-CPU area's stack pointers. The boot
// code has already installed the vectors (VBAR_EL1), the per-CPU area (TPIDR_EL1), FP/SIMD
// access and the MMU. Interrupts stay masked.
func InitCPU() {
	c := &cpus[0]
	for s := slotTrap; s < numStackSlots; s++ {
		clearStack(stackBaseOf(0, s))
		initKernelStackAt(stackBaseOf(0, s))
	}
	c.TrapStack = stackTopOf(0, slotTrap)
	c.FaultStack = stackTopOf(0, slotFault)
	c.ID = 0
	c.MPIDR = readMPIDR() & mpidrAffinityMask
	c.BootStack = stackTopOf(0, slotBoot)
	c.TTBR0 = readTTBR0()
}

// IdleFrame fills f with the context of the calling CPU's idle thread: idleLoop on that CPU's
// idle stack, in EL1t with interrupts unmasked.
func IdleFrame(f *Frame) {
	*f = Frame{}
	f.ELR = uint64(addrOfIdleLoop())
	f.SavedSP = stackTopOf(thisCPU(), slotIdle)
	f.SPSR = InitialSPSR
}

// ThreadFrame fills f with the initial context of a thread that starts at pc with stack sp, in
// EL1t with interrupts unmasked and the FP state reset (FPCR 0: round to nearest, no traps).
func ThreadFrame(f *Frame, pc, sp uintptr) {
	*f = Frame{}
	f.ELR, f.SavedSP = uint64(pc), uint64(sp)
	f.SPSR = InitialSPSR
}

// Enter starts running the context in f on the calling CPU and never returns. The Frame is
// copied to where the trap stubs build theirs (below the top of this CPU's trap stack), so f
// may live anywhere, and once the thread runs SP_EL1 is the trap stack's top.
func Enter(f *Frame) {
	at := uintptr(stackTopOf(thisCPU(), slotTrap)) - trapReserve
	dst := frameAt(at)
	*dst = *f
	dst.Prev = 0
	resume(at)
}

// LoadPageTable switches to the page tables rooted at root (TTBR0_EL1) and drops every TLB
// entry of the old ones.
func LoadPageTable(root uintptr) { writeTTBR0(uint64(root)) }

// TextRange returns the bounds of the image's executable code.
func TextRange() (lo, hi uintptr) { return addrOfText(), addrOfEtext() }

// ImageEnd returns the end of the loaded image (runtime.end: the end of its bss).
func ImageEnd() uintptr { return addrOfEnd() }

// Pclntab returns the bounds of the image's Go symbol table (runtime.pclntab ..
// runtime.epclntab), which the kernel reads to symbolize its fault reports.
func Pclntab() (start, end uintptr) { return addrOfPclntab() }

// KernelStackBounds returns the usable bounds of the kernel stack that holds sp (above its
// stand-in g header), or ok=false when sp is on none of them.
func KernelStackBounds(sp uintptr) (lo, hi uintptr, ok bool) {
	if sp < bootStackBase || sp >= KernelStacksEnd() {
		return 0, 0, false
	}
	base := sp &^ (kstackSize - 1)
	return base + kstackLo, base + kstackSize, true
}

// CurrentEL returns the exception level the CPU runs at (1 for the kernel and its threads).
func CurrentEL() int { return int(currentEL()) }

// EntryEL returns the exception level the image was entered at: 1, or 2 if the boot code
// dropped from EL2 to EL1.
func EntryEL() int { return int(entryEL) }

// MMUEnabled reports whether SCTLR_EL1.M is set.
func MMUEnabled() bool { return readSCTLR()&sctlrM != 0 }

// VectorBase returns VBAR_EL1.
func VectorBase() uintptr { return uintptr(readVBAR()) }

// AddrOfVectors returns the address of the vector table the boot code installs.
func AddrOfVectors() uintptr { return addrOfVectors() }

// Readable reports whether the 8 bytes at va can be loaded without a fault under the page
// tables in use (TTBR0_EL1), so that code in interrupt context can check a pointer it did not
// make before it dereferences it. Every valid descriptor here is readable at EL1 (AF is always
// set); an address without one (demand paging has not touched it yet) is not readable: nothing
// may fault in an interrupt handler.
//
//go:nosplit
func Readable(va uintptr) bool {
	if va&7 != 0 {
		return false
	}
	pt := PageTable{Root: uintptr(readTTBR0() & pteAddr)}
	_, _, ok := pt.Lookup(va)
	return ok
}

// Random returns 64 bits from RNDR when the CPU has FEAT_RNG (ID_AA64ISAR0_EL1.RNDR).
func Random() (uint64, bool) {
	if idField(readISAR0(), 60) == 0 {
		return 0, false
	}
	for i := 0; i < 10; i++ {
		if v, ok := rndr(); ok {
			return v, true
		}
	}
	return 0, false
}

// HWCap returns AT_HWCAP for this CPU (hwcap.go).
func HWCap() uint64 { return HWCapFromID(readISAR0(), readPFR0()) }
