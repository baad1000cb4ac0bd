package arm64

// Kernel stack slots: every CPU has numStackSlots kernel stacks, each kstackSize bytes and
// aligned to it, in one region right after the image: CPU 0's slots first (its slot 0 is the
// boot stack bootEL1 set up), then CPU 1's, up to MaxCPUs. The region is reserved whole at
// boot, so a kernel stack address says which CPU and slot it belongs to without any table.
const (
	slotBoot  = iota // the boot CPU's boot stack; a secondary's first SP_EL1 (secondaryEntry)
	slotTrap         // SP_EL1 while a thread runs: every exception from EL1t starts here
	slotFault        // where an exception from EL1h goes when its stack is short of room
	slotIdle         // the idle thread's SP_EL0
	numStackSlots
)

// kstackRegionSize is the size of the whole kernel stack region (1 MiB for 8 CPUs).
const kstackRegionSize = MaxCPUs * numStackSlots * kstackSize

// kstackOffset returns where CPU cpu's stack slot starts in the region, or ok=false for a CPU
// or slot out of range.
func kstackOffset(cpu, slot int) (off uintptr, ok bool) {
	if cpu < 0 || cpu >= MaxCPUs || slot < 0 || slot >= numStackSlots {
		return 0, false
	}
	return uintptr(cpu*numStackSlots+slot) * kstackSize, true
}
