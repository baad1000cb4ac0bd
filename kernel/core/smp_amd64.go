package core

import (
	"github.com/unitrace/unitrace/arch/amd64"
	"github.com/unitrace/unitrace/boot/acpi"
	"github.com/unitrace/unitrace/kernel/klog"
	"github.com/unitrace/unitrace/kernel/machine"
	"github.com/unitrace/unitrace/kernel/options"
)

// CPUs on amd64: the ACPI MADT lists the local APICs; the boot CPU is CPU 0, the others are
// started by INIT-SIPI-SIPI (amd64.StartAP) and reached by fixed IPIs on vectorIPI.

// VectorIPI is the kernel's one IPI vector: above the device vectors (64..111), at or below
// amd64.KernelPriority's class, so kernel code holds it back until the trap returns, as it
// does the tick.
const VectorIPI = 0xe0

var (
	apicIDs    [MaxCPUs]uint32 // local APIC ID of each CPU
	madt       acpi.MADT
	acpiTables acpi.Reader
)

// DiscoverCPUs finds the machine's CPUs and returns how many there are (at least the boot CPU).
func DiscoverCPUs() int {
	apicIDs[0] = amd64.LocalAPICID()
	if options.Boot.RSDP == 0 {
		return 1
	}
	if err := acpiTables.FindMADT(uintptr(options.Boot.RSDP), ReadPhys, &madt); err != acpi.OK {
		klog.Log().S("smp: no usable ACPI MADT (").S(err.String()).S("): one CPU").NL()
		return 1
	}
	n := 1
	for i := 0; i < madt.NumCPUs; i++ {
		c := madt.CPUs[i]
		if !c.Usable() || c.APICID == apicIDs[0] {
			continue
		}
		if n == min(MaxCPUs, amd64.MaxCPUs) {
			klog.Log().S("smp: more CPUs than the kernel runs (").D(int64(MaxCPUs)).S("): the rest stay off").NL()
			break
		}
		apicIDs[n] = c.APICID
		n++
	}
	return n
}

// ReserveCPUs makes room for n CPUs' kernel stacks; it runs before memory management starts.
func ReserveCPUs(n int) int { return amd64.ReserveCPUs(n) }

// StartCPU starts CPU index; it returns once the CPU runs (at secondaryMain) or has failed.
func StartCPU(index int) bool { return amd64.StartAP(index, apicIDs[index]) }

// InitSecondaryCPU sets up the calling secondary CPU's interrupt controller side.
func InitSecondaryCPU() { amd64.InitLocalAPIC() }

// EnableIPIHere: fixed IPIs need nothing beyond an enabled local APIC.
func EnableIPIHere() {}

// sendIPI interrupts CPU c on the kernel's IPI vector.
//
//go:nosplit
func sendIPI(c int) { amd64.SendIPI(apicIDs[c&(MaxCPUs-1)], VectorIPI) }

// lockSleep halts this CPU until interruptLockSleeper's NMI (or the sampler's interrupt), unless
// *woken is set.
func lockSleep(woken *uint32) { amd64.HaltUnless(woken) }

// interruptLockSleeper wakes CPU c from lockSleep: an NMI is the one interrupt that ends a HLT
// with interrupts masked (trap only steps it over the HLT: amd64.SkipHaltAfterNMI).
func interruptLockSleeper(c int) { amd64.SendNMI(apicIDs[c&(MaxCPUs-1)]) }

// CurrentTrapFrame is the Frame of the trap being handled on this CPU, nil outside one.
func CurrentTrapFrame() *machine.Frame {
	fa := amd64.InterruptedFrame()
	if fa == 0 {
		return nil
	}
	return (*machine.Frame)(machine.Ptr(fa))
}

// KernelStacksEnd is the end of the CPUs' kernel stacks after the image (ReserveCPUs sizes it).
func KernelStacksEnd() uintptr { return amd64.KernelStacksEnd() }

// SendProbe sends CPU c the NMI that makes it answer a probe (the kernel's probe.go).
func SendProbe(c int) bool {
	amd64.SendNMI(apicIDs[c&(MaxCPUs-1)])
	return true
}

// ReadPhys reads physical memory for the start_info parser: the boot page tables identity-map
// the low 4 GiB.
func ReadPhys(pa uintptr, dst []byte) bool {
	if pa+uintptr(len(dst)) < pa || pa+uintptr(len(dst)) > 4<<30 {
		return false
	}
	for i := range dst {
		dst[i] = *(*byte)(machine.Ptr(pa + uintptr(i)))
	}
	return true
}

// EnableDeviceIRQ routes the interrupt of the virtio-mmio transport at base: microvm gives
// each its own line among the shared GSIs, which all go to the device handler.
func EnableDeviceIRQ(base uintptr) { amd64.UnmaskSharedGSIs() }
