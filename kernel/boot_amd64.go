package kernel

import (
	"unsafe"

	"github.com/unitrace/unitrace/arch/amd64"
	"github.com/unitrace/unitrace/boot"
	"github.com/unitrace/unitrace/kernel/core"
	"github.com/unitrace/unitrace/kernel/dev/console"
	"github.com/unitrace/unitrace/kernel/dev/serial"
	"github.com/unitrace/unitrace/kernel/klog"
	"github.com/unitrace/unitrace/kernel/machine"
	"github.com/unitrace/unitrace/kernel/observe"
	"github.com/unitrace/unitrace/kernel/options"
)

// bootMain is the kernel's first Go code, called by arch/amd64's start64 on the boot kernel
// stack with interrupts masked and the boot page tables (4 GiB identity map). It brings up the
// machine, builds the program's initial stack and enters the Go runtime's own entry point as
// the first thread. It never returns.
func bootMain(startInfoAddr uintptr) {
	wireKernel() // before anything that may reach a hook
	amd64.InitConsole()
	if err := boot.ParsePVH(startInfoAddr, core.ReadPhys, &options.Boot); err != boot.OK {
		klog.BootFault(err.String())
	}
	parseCommandLine()
	bootStep(stepConsole)
	amd64.SetAVX(!options.Kernel.NoAVX)
	amd64.InitCPU()
	amd64.SetTrapEntry(funcCodeAddr(trap))
	amd64.InitIOAPIC()
	amd64.StartTimerCalibration() // the boot's next steps are its window (InitLocalTimer)
	bootStep(stepCPU)
	devBlock, ringBlock, shareBlock := carveMemory()
	bootStep(stepMemory)
	amd64.InitClock()
	core.BootWallNanos = amd64.ReadRTC().Unix() * 1e9
	bootStep(stepClock)
	core.FDs.Init()
	console.Init()
	if devBlock != 0 {
		serial.InitTraceDevice(devBlock)
		amd64.UnmaskSharedGSIs()
	}
	observe.InitTracing(ringBlock)
	bootStep(stepDevices)
	startProgram(shareBlock)
}

// funcCodeAddr is the code address of the function f names: a func value of a top-level function
// points to a word holding the function's own entry (its register-ABI body, not a wrapper).
func funcCodeAddr(f func(*machine.Frame)) uintptr { return **(**uintptr)(unsafe.Pointer(&f)) }
