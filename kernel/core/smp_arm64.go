package core

import (
	"sync/atomic"

	"github.com/unitrace/unitrace/arch/arm64"
	"github.com/unitrace/unitrace/kernel/klog"
	"github.com/unitrace/unitrace/kernel/machine"
	"github.com/unitrace/unitrace/kernel/options"
)

// CPUs on arm64: the device tree's /cpus lists them by MPIDR; the boot CPU is CPU 0, the others
// are started by PSCI CPU_ON (arm64.StartCPU) and reached by SGI sgiKernel.

// sgiKernel is the kernel's one IPI (SGIs are INTIDs 0-15).
const SGIKernel = 1

var cpuMPIDR [MaxCPUs]uint64

// DiscoverCPUs finds the machine's CPUs and returns how many there are (at least the boot CPU).
func DiscoverCPUs() int {
	boot := arm64.MPIDR()
	cpuMPIDR[0] = boot
	if machine.Board.NumCPUs > 1 && machine.Board.PSCI.Method != arm64.PSCIMethodHVC && machine.Board.PSCI.Method != arm64.PSCIMethodSMC {
		klog.Log().S("smp: no PSCI conduit in the device tree: one CPU").NL()
		return 1
	}
	n := 1
	for i := 0; i < machine.Board.NumCPUs; i++ {
		if machine.Board.CPUs[i] == boot {
			continue
		}
		if n == min(MaxCPUs, arm64.MaxCPUs) {
			klog.Log().S("smp: more CPUs than the kernel runs: the rest stay off").NL()
			break
		}
		cpuMPIDR[n] = machine.Board.CPUs[i]
		n++
	}
	return n
}

// ReserveCPUs: arm64 reserves every CPU's kernel stacks statically.
func ReserveCPUs(n int) int { return n }

// StartCPU starts CPU index; it returns once PSCI accepted the request (the CPU then reaches
// secondaryMain on its own, and startSecondaries waits for it).
func StartCPU(index int) bool {
	rc := arm64.StartCPU(index, cpuMPIDR[index], machine.Board.PSCI.Method, machine.Board.PSCI.CPUOn)
	if rc != arm64.PSCISuccess {
		klog.Log().S("smp: PSCI CPU_ON for cpu ").D(int64(index)).S(" returned ").D(int64(rc)).NL()
		return false
	}
	return true
}

// InitSecondaryCPU sets up the calling secondary CPU's interrupt controller side: its GIC CPU
// interface (or redistributor), the SGI the kernel sends, the timers' interrupts.
func InitSecondaryCPU() {
	if !arm64.InitGICCPU() {
		klog.Log().S("smp: cpu ").D(int64(machine.CPUIndex())).S(": no GIC CPU interface").NL()
	}
	EnableIPIHere()
	machine.InitLocalTimer() // the timers' PPIs are per CPU
}

// EnableIPIHere lets the kernel's SGI in on the calling CPU, at a higher priority than the
// devices' and timers' (0x80): a CPU asleep for the kernel lock (lockSleep) inside a device
// interrupt's handler, with that interrupt still active, is only woken by an interrupt of higher
// priority than the active one.
func EnableIPIHere() { arm64.EnableIRQ(SGIKernel, arm64.PriorityIPI) }

// sendIPI interrupts CPU c with the kernel's SGI.
//
//go:nosplit
func sendIPI(c int) { arm64.SendIPI(c, SGIKernel) }

// lockSleep waits for an interrupt with interrupts masked, unless *woken is set: WFI wakes on a
// pending interrupt even then, and the SGI stays pending until the CPU next unmasks (an IPI with
// nothing to do), so a wake-up sent just before the WFI still ends it.
//
// The wait is a WFI with IRQs masked in PSTATE and the thread's priority mask in the GIC, so
// that the waker's SGI ends it even if this trap holds interrupts back (holdback.go) and the SGI
// is then held back too until the trap returns; so does the sampler's timer, whose interrupt is
// then taken at once, here.
func lockSleep(woken *uint32) {
	flags := arm64.IRQSave()
	held := Here().held
	if held {
		machine.LowerPriority()
	}
	if atomic.LoadUint32(woken) == 0 {
		arm64.WaitForInterrupt()
	}
	if held {
		machine.RaisePriority()
	}
	arm64.IRQRestore(flags)
}

// interruptLockSleeper wakes CPU c from lockSleep.
func interruptLockSleeper(c int) { sendIPI(c) }

// CurrentTrapFrame is the Frame of the trap being handled on this CPU, nil outside one.
func CurrentTrapFrame() *machine.Frame {
	fa := arm64.InterruptedFrame()
	if fa == 0 {
		return nil
	}
	return (*machine.Frame)(machine.Ptr(fa))
}

// KernelStacksEnd is the end of the CPUs' kernel stacks after the image.
func KernelStacksEnd() uintptr { return arm64.KernelStacksEnd() }

// SendProbe cannot reach a CPU with interrupts masked on arm64: there is no NMI (the kernel's probe.go).
func SendProbe(c int) bool { return false }

// EnableDeviceIRQ routes the interrupt of the virtio-mmio transport at base (the trace device, a
// shared directory's).
func EnableDeviceIRQ(base uintptr) {
	for i := 0; i < machine.Board.NumVirtio; i++ {
		if d := &machine.Board.Virtio[i]; uintptr(d.Reg.Addr) == base && d.INTID != 0 {
			// Level-sensitive, whatever the device tree's flags say: QEMU's virtio-mmio holds its
			// line high while InterruptStatus is non-zero, and an edge-triggered line that was
			// already high when it was enabled would never interrupt.
			arm64.ConfigureIRQ(d.INTID, false)
			arm64.EnableIRQ(d.INTID, arm64.PriorityNormal)
			if options.Kernel.Verbose {
				klog.Log().S("virtio-mmio at ").X(uint64(base)).S(": interrupt ").D(int64(d.INTID)).NL()
			}
			return
		}
	}
	klog.Log().S("virtio-mmio at ").X(uint64(base)).S(": no interrupt in the device tree").NL()
}
