package kernel

import (
	"github.com/unitrace/unitrace/arch/arm64"
	"github.com/unitrace/unitrace/boot/fdt"
)

// machine is what the device tree says about the board (QEMU virt).
var machine fdt.Machine

// dtbMax caps how much of the device tree the kernel reads (QEMU writes at most 1 MiB, and the
// image starts 2 MiB above it).
const dtbMax = 2 << 20

// bootMain is the kernel's first Go code, called by arch/arm64's boot entry at EL1 on the boot
// kernel stack with interrupts masked, the MMU on and the boot identity map, with the device
// tree's address. It brings up the machine, builds the program's initial stack and enters the
// Go runtime's own entry point as the first thread. It never returns.
func bootMain(dtb uintptr) {
	arm64.InitConsole(0) // the default PL011 until the device tree says where it is
	readDeviceTree(dtb)
	if machine.UART.Present() {
		arm64.InitConsole(uintptr(machine.UART.Reg.Addr))
	}
	parseCommandLine()
	arm64.InitCPU()
	initGIC()
	devBlock, ringBlock, shareBlock := carveMemory()
	arm64.InitClock()
	if machine.RTC.Present() {
		arm64.InitRTC(uintptr(machine.RTC.Reg.Addr))
		bootWallNanos = arm64.ReadRTC().Unix() * 1e9
	}
	fds.Init()
	initConsoleInput()
	if devBlock != 0 {
		initTraceDevice(devBlock)
		enableDeviceIRQ(vdevBase)
	}
	initTracing(ringBlock)
	startProgram(shareBlock)
}

// readDeviceTree reads the board description at dtb into machine and the boot info (memory,
// command line); without a usable device tree the boot cannot go on.
func readDeviceTree(dtb uintptr) {
	size, err := fdt.TotalSize(bytesAt(dtb, 40))
	if err != fdt.OK {
		klog().s("device tree at ").x(uint64(dtb)).s(": ").s(err.String()).nl()
		panicBoot("no device tree")
	}
	blob := fdt.Blob(bytesAt(dtb, uintptr(min(size, dtbMax))))
	if err := blob.ReadMachine(&machine); err != fdt.OK {
		klog().s("device tree: ").s(err.String()).nl()
		panicBoot("unreadable device tree")
	}
	var addrs, sizes [fdt.MaxMemory]uint64
	for i := 0; i < machine.NumMemory; i++ {
		addrs[i], sizes[i] = machine.Memory[i].Addr, machine.Memory[i].Size
	}
	if e := startInfo.SetRAM(addrs[:machine.NumMemory], sizes[:machine.NumMemory]); e != 0 {
		panicBoot("device tree: unusable memory map")
	}
	if e := startInfo.SetCmdline(machine.Bootargs.Bytes(blob)); e != 0 {
		panicBoot("device tree: command line too long")
	}
}

// initGIC brings up the interrupt controller the device tree names (GICv2, or v3).
func initGIC() {
	g := &machine.GIC
	switch {
	case g.Version == 3 && g.NumRedist > 0:
		if !arm64.InitGICv3(uintptr(g.Dist.Addr), uintptr(g.Redist[0].Addr)) {
			panicBoot("GICv3 without system-register access")
		}
	case g.Version == 2:
		arm64.InitGIC(uintptr(g.Dist.Addr), uintptr(g.CPU.Addr))
	default:
		arm64.InitGIC(arm64.DefaultGICDBase, arm64.DefaultGICCBase)
	}
}

// consoleINTID is the PL011's interrupt, once archConsoleInputInit enabled it (0 before).
var consoleINTID uint32

// archConsoleInputInit enables the PL011's interrupt in the GIC (the device tree's, or QEMU
// virt's SPI 1 when the device tree names no UART) and unmasks its receive interrupts; false
// for a UART whose interrupt the device tree does not give.
func archConsoleInputInit() bool {
	intid := uint32(arm64.IntidUART)
	if machine.UART.Present() {
		intid = machine.UART.INTID
	}
	if intid == 0 {
		return false
	}
	consoleINTID = intid
	arm64.EnableConsoleReceive(intid)
	return true
}

// enableDeviceIRQ routes the interrupt of the virtio-mmio transport at base (the trace device, a
// shared directory's).
func enableDeviceIRQ(base uintptr) {
	for i := 0; i < machine.NumVirtio; i++ {
		if d := &machine.Virtio[i]; uintptr(d.Reg.Addr) == base && d.INTID != 0 {
			// Level-sensitive, whatever the device tree's flags say: QEMU's virtio-mmio holds its
			// line high while InterruptStatus is non-zero, and an edge-triggered line that was
			// already high when it was enabled would never interrupt.
			arm64.ConfigureIRQ(d.INTID, false)
			arm64.EnableIRQ(d.INTID, arm64.PriorityNormal)
			if opts.verbose {
				klog().s("virtio-mmio at ").x(uint64(base)).s(": interrupt ").d(int64(d.INTID)).nl()
			}
			return
		}
	}
	klog().s("virtio-mmio at ").x(uint64(base)).s(": no interrupt in the device tree").nl()
}
