package kernel

import (
	"github.com/unitrace/unitrace/kernel/core"
	"github.com/unitrace/unitrace/kernel/dev/serial"
	"github.com/unitrace/unitrace/kernel/dev/shares"
	"github.com/unitrace/unitrace/kernel/klog"
	"github.com/unitrace/unitrace/kernel/machine"
	"github.com/unitrace/unitrace/kernel/observe"
	"github.com/unitrace/unitrace/kernel/options"
	"github.com/unitrace/unitrace/kernel/syscalls"
	"github.com/unitrace/unitrace/trace"
	"github.com/unitrace/unitrace/unwind"
)

// The boot steps both architectures share, between their own bring-up (boot_<arch>.go: boot
// protocol, console, CPU tables, interrupt controller, clock) and the program.

// carveMemory counts the CPUs and builds memory management over the RAM above the kernel's
// stacks (core.KernelStacksEnd, which depends on the count), with physically contiguous
// blocks carved first for the trace device, the trace rings when tracing is on and the shared
// directories' devices; it returns each block's address, 0 for one not needed.
func carveMemory() (devBlock, ringBlock, shareBlock uintptr) {
	setupCPUs() // kernel stacks and rings are per CPU: count them first
	devMem := serial.TraceDeviceMemory()
	ringMem := observe.TraceRingMemory()
	shareMem := shares.Memory()
	carved := core.InitMemory(core.KernelStacksEnd(), devMem+ringMem+shareMem)
	if devMem != 0 {
		devBlock = carved
	}
	if ringMem != 0 {
		ringBlock = carved + devMem
	}
	if shareMem != 0 {
		shareBlock = carved + devMem + ringMem
	}
	return devBlock, ringBlock, shareBlock
}

// startProgram makes the file system (with the shared directories, whose devices get
// shareBlock) and enters the working directory the command line names, creates CPU 0's idle thread and the program's main thread on a Linux initial
// stack, starts the timers (and the sampler, if the command line asked) and the other CPUs, and
// enters the Go runtime's own entry point. It never returns.
func startProgram(shareBlock uintptr) {
	syscalls.Init()
	initFiles()
	shares.Init(shareBlock)
	initNetFiles()
	applyCwd() // may name a directory in a share
	bootStep(stepFiles)
	machine.IdleFrame(&core.Threads[0].Frame)
	main := core.NewThread()
	t := &core.Threads[main]
	core.ProcSources.Threads[main] = t.Tid
	sp := buildInitialStack()
	machine.ThreadFrame(&t.Frame, machine.RuntimeEntry(), sp)
	now := machine.Nanotime()
	core.Scheduler.Ready(main, now)
	core.Scheduler.Next(0, now, core.KernelClock) // CPU 0 runs it from now on: machine.Enter enters it
	trace.SetThread(0, uint32(t.Tid))
	options.BootNanos = machine.Nanotime()
	if options.Kernel.Verbose {
		klog.Log().S("boot: ticks at ").U(machine.TicksHz()).S(" Hz, kernel ready in ").D(options.BootNanos / 1000).S(" us").NL()
	}
	bootStep(stepFirstThread)
	core.KeepTick = options.Kernel.NoTickless
	core.InitTimers(tickStretch())
	bootStep(stepTimers)
	observe.InitGoLayout()
	if !options.Kernel.FPOnly && !unwind.LoadFuncTable() {
		klog.Log().S("unwind: the image's function table did not load: walks follow frame pointers alone").NL()
	}
	bootStep(stepImageTables)
	observe.StartBootSampler()
	observe.StartBootOffCPU()
	observe.StartBootWakers()
	startSecondaries()
	bootStep(stepSamplers)
	reportBootSteps()
	machine.Enter(&t.Frame)
}

// tickStretch is how long a CPU may go without a tick (core.TickStretch, ns): a second, or a
// quarter of the watchdog's period, which reports a CPU whose tick count stands still that long.
func tickStretch() int64 {
	stretch := int64(1e9)
	if p := observe.WatchdogPeriod; p != 0 {
		stretch = min(stretch, p/4)
	}
	return stretch
}
