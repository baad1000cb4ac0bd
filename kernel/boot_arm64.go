package kernel

import (
	"github.com/unitrace/unitrace/arch/arm64"
	"github.com/unitrace/unitrace/boot/fdt"
	"github.com/unitrace/unitrace/kernel/core"
	"github.com/unitrace/unitrace/kernel/dev/console"
	"github.com/unitrace/unitrace/kernel/dev/serial"
	"github.com/unitrace/unitrace/kernel/klog"
	"github.com/unitrace/unitrace/kernel/machine"
	"github.com/unitrace/unitrace/kernel/observe"
	"github.com/unitrace/unitrace/kernel/options"
)

// dtbMax caps how much of the device tree the kernel reads (QEMU writes at most 1 MiB, and the
// image starts 2 MiB above it).
const dtbMax = 2 << 20

// bootMain is the kernel's first Go code, called by arch/arm64's boot entry at EL1 on the boot
// kernel stack with interrupts masked, the MMU on and the boot identity map, with the device
// tree's address. It brings up the machine, builds the program's initial stack and enters the
// Go runtime's own entry point as the first thread. It never returns.
func bootMain(dtb uintptr) {
	wireKernel()         // before anything that may reach a hook
	arm64.InitConsole(0) // the default PL011 until the device tree says where it is
	readDeviceTree(dtb)
	if machine.Board.UART.Present() {
		arm64.InitConsole(uintptr(machine.Board.UART.Reg.Addr))
	}
	parseCommandLine()
	bootStep(stepConsole)
	arm64.InitCPU()
	initGIC()
	bootStep(stepCPU)
	devBlock, ringBlock, shareBlock := carveMemory()
	bootStep(stepMemory)
	arm64.InitClock()
	if machine.Board.RTC.Present() {
		arm64.InitRTC(uintptr(machine.Board.RTC.Reg.Addr))
		core.BootWallNanos = arm64.ReadRTC().Unix() * 1e9
	}
	bootStep(stepClock)
	core.FDs.Init()
	console.Init()
	if devBlock != 0 {
		serial.InitTraceDevice(devBlock)
		core.EnableDeviceIRQ(serial.DeviceBase)
	}
	observe.InitTracing(ringBlock)
	bootStep(stepDevices)
	startProgram(shareBlock)
}

// readDeviceTree reads the board description at dtb into board and the boot info (memory,
// command line); without a usable device tree the boot cannot go on.
func readDeviceTree(dtb uintptr) {
	size, err := fdt.TotalSize(machine.BytesAt(dtb, 40))
	if err != fdt.OK {
		klog.Log().S("device tree at ").X(uint64(dtb)).S(": ").S(err.String()).NL()
		klog.BootFault("no device tree")
	}
	blob := fdt.Blob(machine.BytesAt(dtb, uintptr(min(size, dtbMax))))
	if err := blob.ReadMachine(&machine.Board); err != fdt.OK {
		klog.Log().S("device tree: ").S(err.String()).NL()
		klog.BootFault("unreadable device tree")
	}
	var addrs, sizes [fdt.MaxMemory]uint64
	for i := 0; i < machine.Board.NumMemory; i++ {
		addrs[i], sizes[i] = machine.Board.Memory[i].Addr, machine.Board.Memory[i].Size
	}
	if e := options.Boot.SetRAM(addrs[:machine.Board.NumMemory], sizes[:machine.Board.NumMemory]); e != 0 {
		klog.BootFault("device tree: unusable memory map")
	}
	if e := options.Boot.SetCmdline(machine.Board.Bootargs.Bytes(blob)); e != 0 {
		klog.BootFault("device tree: command line too long")
	}
}

// initGIC brings up the interrupt controller the device tree names (GICv2, or v3).
func initGIC() {
	g := &machine.Board.GIC
	switch {
	case g.Version == 3 && g.NumRedist > 0:
		if !arm64.InitGICv3(uintptr(g.Dist.Addr), uintptr(g.Redist[0].Addr)) {
			klog.BootFault("GICv3 without system-register access")
		}
	case g.Version == 2:
		arm64.InitGIC(uintptr(g.Dist.Addr), uintptr(g.CPU.Addr))
	default:
		arm64.InitGIC(arm64.DefaultGICDBase, arm64.DefaultGICCBase)
	}
}
