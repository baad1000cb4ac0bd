package main

import (
	"sync/atomic"

	"github.com/unitrace/unitrace/arch/arm64"
	"github.com/unitrace/unitrace/boot/fdt"
)

// The SMP part of the smoke test. CPU 0, at the end of the single-CPU checks, reads the CPUs and
// the PSCI conduit from the device tree and starts every other CPU with arm64.StartCPU. Each
// secondary reports itself online (EL1, MMU on, its own per-CPU area and stacks), brings up its
// side of the GIC, arms its own virtual timer and idles in EL1t on its own idle stack; it takes
// the timer interrupt on its own trap stack, then answers one SGI from CPU 0. CPU 0 waits for
// each stage on shared counters.

const (
	sgiPing     = 1  // the SGI CPU 0 sends each secondary
	waitSeconds = 30 // bound on each of CPU 0's waits (TCG with 4 CPUs on a busy host is slow)
)

var (
	machine     fdt.Machine
	consoleHeld uint32 // console lock: lines from different CPUs must not interleave
	online      uint32 // secondaries that reached secondaryMain and set up their GIC side
	timersTaken uint32 // secondaries that took their virtual timer interrupt
	sgisTaken   uint32 // secondaries that took CPU 0's SGI
	idleFrames  [arm64.MaxCPUs]arm64.Frame
	trapStackHi [arm64.MaxCPUs]uintptr // top of the kernel stack each CPU's timer Frame was on
)

// lockConsole takes the console lock, or gives up after a bounded spin so that a CPU that died
// holding it cannot hide another CPU's failure report.
func lockConsole() {
	for i := 0; i < 50_000_000; i++ {
		if atomic.CompareAndSwapUint32(&consoleHeld, 0, 1) {
			return
		}
	}
}

func unlockConsole() { atomic.StoreUint32(&consoleHeld, 0) }

// startSecondaries runs on CPU 0 in trap context (interrupts masked): it starts the other CPUs
// and waits until each has come online, taken its timer interrupt and answered an SGI.
func startSecondaries() {
	size, err := fdt.TotalSize(bytesAt(dtbAddr, 40))
	if err != fdt.OK {
		fail("smp: no device tree header")
	}
	if err := fdt.Blob(bytesAt(dtbAddr, uintptr(size))).ReadMachine(&machine); err != fdt.OK {
		fail("smp: cannot read the device tree")
	}
	_, trapStackHi[0] = arm64.CurrentStack() // this handler runs on CPU 0's trap stack
	n := machine.NumCPUs
	if n < 1 || n > arm64.MaxCPUs {
		fail("smp: CPU count out of range")
	}
	if n > 1 && machine.PSCI.Method != arm64.PSCIMethodHVC && machine.PSCI.Method != arm64.PSCIMethodSMC {
		fail("smp: no PSCI conduit in the device tree")
	}
	next := 1
	for i := 0; i < n; i++ {
		mpidr := machine.CPUs[i]
		if mpidr == arm64.MPIDR() {
			continue // the boot CPU
		}
		if next >= n {
			fail("smp: the boot CPU is not in the device tree's list")
		}
		if rc := arm64.StartCPU(next, mpidr, machine.PSCI.Method, machine.PSCI.CPUOn); rc != arm64.PSCISuccess {
			lockConsole()
			puts("smp: StartCPU ")
			putd(uint64(next))
			puts(" returned ")
			putd(uint64(-rc))
			fail(" (negated)")
		}
		next++
	}
	if n > 1 && arm64.StartCPU(1, machine.CPUs[1], machine.PSCI.Method, machine.PSCI.CPUOn) != arm64.PSCIAlreadyOn {
		fail("smp: StartCPU of a started CPU was not refused")
	}
	if arm64.StartCPU(0, 0, machine.PSCI.Method, machine.PSCI.CPUOn) != arm64.PSCIInvalidParameters ||
		arm64.StartCPU(arm64.MaxCPUs, 0, machine.PSCI.Method, machine.PSCI.CPUOn) != arm64.PSCIInvalidParameters {
		fail("smp: StartCPU accepted an index out of range")
	}
	waitFor(&online, n-1, "smp: not every CPU came online")
	waitFor(&timersTaken, n-1, "smp: not every CPU took its timer interrupt")
	for i := 1; i < n; i++ {
		if trapStackHi[i] == 0 || trapStackHi[i] == trapStackHi[0] {
			fail("smp: a secondary took its interrupt on CPU 0's trap stack")
		}
		if !arm64.SendIPI(i, sgiPing) {
			fail("smp: SendIPI refused")
		}
	}
	waitFor(&sgisTaken, n-1, "smp: not every CPU took its SGI")
	lockConsole()
	puts("smp: ")
	putd(uint64(n))
	puts(" CPUs online, each took its own timer interrupt and an SGI from cpu 0\n")
	unlockConsole()
}

// waitFor spins until *counter reaches want, or fails after waitSeconds.
func waitFor(counter *uint32, want int, why string) {
	deadline := arm64.Ticks() + waitSeconds*arm64.TicksHz()
	for atomic.LoadUint32(counter) < uint32(want) {
		if arm64.Ticks() > deadline {
			fail(why)
		}
	}
}

// secondaryMain is the secondary CPUs' entry point, called by arch/arm64's secondaryEntry on the
// CPU's boot stack with the MMU on and interrupts masked.
func secondaryMain(cpu uint64) {
	id := int(cpu)
	if id <= 0 || id >= arm64.MaxCPUs || uint64(arm64.CPUIndex()) != cpu {
		fail("secondary: CPU index is not the per-CPU area's")
	}
	if arm64.CurrentEL() != 1 || !arm64.MMUEnabled() || arm64.VectorBase() != arm64.AddrOfVectors() {
		fail("secondary: not at EL1 with the MMU on and the vectors installed")
	}
	lo, _ := arm64.CurrentStack()
	if slo, _, ok := arm64.KernelStackBounds(lo); !ok || slo != lo {
		fail("secondary: not on a kernel stack")
	}
	lockConsole()
	puts("cpu ")
	putd(cpu)
	puts(" online, MPIDR ")
	putx(arm64.MPIDR())
	puts(", EL1, MMU on\n")
	unlockConsole()

	if !arm64.InitGICCPU() {
		fail("secondary: no GIC CPU interface or redistributor")
	}
	arm64.EnableIRQ(arm64.IntidVirtualTimer, 0x80)
	arm64.EnableIRQ(sgiPing, 0x80)
	atomic.AddUint32(&online, 1)
	arm64.ArmTimer(arm64.Ticks()+arm64.TicksHz()/1000, arm64.TimerVirtual)
	arm64.IdleFrame(&idleFrames[id])
	arm64.Enter(&idleFrames[id])
}

// secondaryTrap handles a secondary CPU's traps: only interrupts taken from its idle thread.
func secondaryTrap(f *arm64.Frame) {
	cpu := uint64(arm64.CPUIndex())
	if f.Kind != arm64.KindIRQEL1t || f.Prev != 0 {
		lockConsole()
		puts("cpu ")
		putd(cpu)
		puts(": unexpected exception: kind ")
		putd(f.Kind)
		puts(", ESR ")
		putx(f.ESR)
		puts(", ELR ")
		putx(f.ELR)
		fail("")
	}
	ack := arm64.AcknowledgeIRQ()
	switch id := arm64.INTID(ack); id {
	case arm64.IntidVirtualTimer:
		if !arm64.TimerFired(arm64.TimerVirtual) {
			fail("secondary: INTID 27 but the virtual timer did not fire")
		}
		arm64.StopTimer(arm64.TimerVirtual)
		arm64.EndOfIRQ(ack)
		_, hi, ok := arm64.KernelStackBounds(addrOfFrame(f))
		if !ok {
			fail("secondary: timer Frame not on a kernel stack")
		}
		trapStackHi[cpu] = hi
		lockConsole()
		puts("cpu ")
		putd(cpu)
		puts(" timer: virtual fired (INTID 27)\n")
		unlockConsole()
		atomic.AddUint32(&timersTaken, 1)
	case sgiPing:
		if arm64.GICVersion() == 2 && ack>>10&7 != 0 {
			fail("secondary: SGI not from cpu 0")
		}
		arm64.EndOfIRQ(ack)
		lockConsole()
		puts("cpu ")
		putd(cpu)
		puts(" sgi: SGI 1 from cpu 0\n")
		unlockConsole()
		atomic.AddUint32(&sgisTaken, 1)
	case arm64.IntidSpurious:
	default:
		arm64.EndOfIRQ(ack)
		lockConsole()
		puts("cpu ")
		putd(cpu)
		puts(": irq: INTID ")
		putd(uint64(id))
		fail(" unexpected")
	}
}
