package arm64

// Secondary-CPU bring-up: the boot CPU prepares a CPU's per-CPU area and kernel stacks and asks
// the PSCI firmware to start it at secondaryEntry (boot_arm64.s), which brings it to EL1 with
// the MMU on and calls the kernel's secondary entry point (KERNEL_ENTRY_SECONDARY).

func secondaryEntry()
func addrOfSecondaryEntry() uintptr
func storeBarrier()
func iccWriteSGI1R(v uint64)
func cleanDcacheRange(start, end uintptr)
func psciCall(method int, fn, a1, a2, a3 uint64) uint64

// StartCPU starts the CPU whose MPIDR affinity is mpidr (a /cpus/cpu reg from the device tree)
// as CPU number index (1..MaxCPUs-1), with PSCI CPU_ON function ID cpuOn through conduit method
// (PSCIMethodHVC or PSCIMethodSMC: boot/fdt's Machine.PSCI). Call it on the boot CPU after
// InitCPU, with the page tables every CPU is to share already loaded.
//
// It clears and sets up the CPU's kernel stacks and per-CPU area (ID, stacks, MPIDR, the
// current TTBR0_EL1), writes the area back to memory (the new CPU reads it with its caches
// off), and calls CPU_ON with secondaryEntry as the entry point and the area's address as the
// context ID. The new CPU runs on its own from there, concurrently with the caller.
//
// It returns PSCISuccess, a PSCI error code from the firmware (the area is then cleared again,
// so the index can be retried), PSCIInvalidParameters for an index out of range or an unknown
// method, or PSCIAlreadyOn if the index was already started.
func StartCPU(index int, mpidr uint64, method int, cpuOn uint32) int {
	if index <= 0 || index >= MaxCPUs || (method != PSCIMethodHVC && method != PSCIMethodSMC) {
		return PSCIInvalidParameters
	}
	c := &cpus[index]
	if c.Self != 0 {
		return PSCIAlreadyOn
	}
	for s := slotBoot; s < numStackSlots; s++ {
		clearStack(stackBaseOf(index, s))
		initKernelStackAt(stackBaseOf(index, s))
	}
	self := addrOf(c)
	*c = CPU{
		Self:       uint64(self),
		ID:         uint64(index),
		TrapStack:  stackTopOf(index, slotTrap),
		FaultStack: stackTopOf(index, slotFault),
		MPIDR:      mpidr & mpidrAffinityMask,
		BootStack:  stackTopOf(index, slotBoot),
		TTBR0:      readTTBR0(),
	}
	cleanDcacheRange(self, self+cpuSize)
	r := psciResult(psciCall(method, uint64(cpuOn), mpidr&mpidrAffinityMask,
		uint64(addrOfSecondaryEntry()), uint64(self)))
	if r != PSCISuccess {
		*c = CPU{}
	}
	return r
}

// CPUStarted reports whether CPU index has been started (by StartCPU, or is the boot CPU after
// InitCPU).
func CPUStarted(index int) bool { return index >= 0 && index < MaxCPUs && cpus[index].Self != 0 }

// MPIDR returns the calling CPU's MPIDR_EL1 affinity fields.
func MPIDR() uint64 { return readMPIDR() & mpidrAffinityMask }
