package amd64

import "sync/atomic"

// apCPUs are the per-CPU areas of the application processors; CPU 0's is cpu0.
var apCPUs [MaxCPUs - 1]CPU

// apSetWP is CR0.WP of the boot CPU when it started the AP, so the AP's ring-0 writes obey
// read-only pages as the boot CPU's do.
var apSetWP uint64

// cpuArea returns CPU index's per-CPU area (index must be < MaxCPUs).
func cpuArea(index int) *CPU {
	if index == 0 {
		return &cpu0
	}
	return &apCPUs[index-1]
}

// CPUOnline reports whether CPU index has started (CPU 0 always has).
func CPUOnline(index int) bool {
	if index == 0 {
		return true
	}
	if index < 0 || index >= MaxCPUs {
		return false
	}
	return atomic.LoadUint32(&apCPUs[index-1].Online) != 0
}

// StartAP starts the application processor with local APIC ID apicID as CPU index, and
// reports whether it came up. The AP runs the trampoline (smp.go) into apStart64, loads its own
// GDT, TSS and the IDT, and calls the kernel's secondary entry point (KERNEL_ENTRY_SECONDARY)
// with its index, on its own boot stack, GS base at its CPU area, interrupts masked, its local
// APIC not yet enabled (InitLocalAPIC). It never returns there.
//
// The boot CPU must have run InitCPU, InitClock and InitLocalTimer, reserved room for index
// (ReserveCPUs) and must use page tables below 4 GiB that identity-map the trampoline page and
// the image. APs are started one at a time (the trampoline's data is shared). APIC IDs above
// 255 need x2APIC mode, which this layer does not use: they are refused.
func StartAP(index int, apicID uint32) bool {
	if index < 1 || uintptr(index) >= cpusReserved() || apicID > maxXAPICID || tscHz == 0 {
		return false
	}
	c := &apCPUs[index-1]
	cr3 := readCR3()
	if atomic.LoadUint32(&c.Online) != 0 || cr3 >= 1<<32 || idtPseudo[0] == 0 {
		return false
	}
	setupCPUArea(c, index)
	c.APICID = uint64(apicID)
	base := stackBaseOf(index, slotBoot)
	c.StackTop = uint64(base + kstackSize - 16)
	c.FSBase = uint64(base + kstackFSOffset)
	apSetWP = readCR0() & cr0WP

	code := (*[len(trampolineCode)]byte)(ptr(trampolineAddr))
	*code = trampolineCode
	*(*uint64)(ptr(trampolineAddr + trampolineCR3)) = cr3
	*(*uint64)(ptr(trampolineAddr + trampolineEntry)) = uint64(addrOfAPStart64())
	*(*uint64)(ptr(trampolineAddr + trampolineCPU)) = uint64(addrOf(c))

	// INIT, then two STARTUPs (the second is ignored by an AP the first one started).
	if !sendICR(apicID, icrINITWord()) {
		return false
	}
	spinNS(initDelayNS)
	for i := 0; i < 2 && atomic.LoadUint32(&c.Online) == 0; i++ {
		sendICR(apicID, icrStartupWord(trampolineAddr))
		spinNS(startupDelayNS)
	}
	start := Rdtsc()
	timeout := nsToTicks(apStartTimeout)
	for atomic.LoadUint32(&c.Online) == 0 {
		if Rdtsc()-start > timeout {
			return false
		}
		Pause()
	}
	return true
}

// apSetup runs on the AP (called from apStart64 on its boot stack, GS base at its CPU area):
// it loads the CPU's descriptor tables and SYSCALL MSRs and reports the CPU online.
func apSetup() {
	c := cpuArea(int(CPUIndex()))
	loadCPUTables(c)
	if apSetWP != 0 {
		setCR0WP()
	}
	atomic.StoreUint32(&c.Online, 1)
}

// nsToTicks converts a duration to TSC ticks at the calibrated rate.
func nsToTicks(ns uint64) uint64 { return ns / 1000 * tscHz / 1_000_000 }

// spinNS busy-waits for ns nanoseconds of TSC time.
func spinNS(ns uint64) {
	start, ticks := Rdtsc(), nsToTicks(ns)
	for Rdtsc()-start < ticks {
		Pause()
	}
}

// sendICR sends one IPI: it waits for the previous one to leave, writes the destination and
// then the command, and waits for this one to leave. It reports false if the ICR stays busy.
//
//go:nosplit
func sendICR(apicID, low uint32) bool {
	flags := IRQSave()
	ok := waitICRIdle()
	if ok {
		lapicWrite(lapicICRHigh, icrDest(apicID))
		lapicWrite(lapicICRLow, low)
		ok = waitICRIdle()
	}
	IRQRestore(flags)
	return ok
}

//go:nosplit
func waitICRIdle() bool {
	for i := 0; i < 1_000_000; i++ {
		if lapicRead(lapicICRLow)&icrDeliveryBusy == 0 {
			return true
		}
		Pause()
	}
	return false
}

// SendIPI sends a fixed interrupt on vector to the CPU whose local APIC ID is apicID.
//
//go:nosplit
func SendIPI(apicID uint32, vector uint8) { sendICR(apicID, icrFixedWord(vector)) }

// SendSelfIPI interrupts the calling CPU on vector: the interrupt is taken once the task
// priority and IF allow it (the sampler's handler hands the scheduler tick on this way).
//
//go:nosplit
func SendSelfIPI(vector uint8) { sendICR(0, icrFixedWord(vector)|icrSelf) }

// SendNMI sends a non-maskable interrupt to the CPU whose local APIC ID is apicID: it wakes a
// CPU halted with interrupts masked (HaltOnce).
//
//go:nosplit
func SendNMI(apicID uint32) { sendICR(apicID, icrNMIWord()) }

// LocalAPICID returns the calling CPU's local APIC ID (xAPIC: bits 31-24 of the ID register).
//
//go:nosplit
func LocalAPICID() uint32 { return lapicRead(lapicID) >> 24 }

const cr0WP = 1 << 16

func readCR0() uint64
func apStart64()
func addrOfAPStart64() uintptr
