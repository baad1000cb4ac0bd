package kernel

import "github.com/unitrace/unitrace/trace"

// The boot steps both architectures share, between their own bring-up (boot_<arch>.go: boot
// protocol, console, CPU tables, interrupt controller, clock) and the program.

// carveMemory builds memory management over the RAM above kernelEnd, with physically contiguous
// blocks carved first for the trace device and the trace rings when tracing is on; it returns
// each block's address, 0 for one not needed.
func carveMemory(kernelEnd uintptr) (devBlock, ringBlock uintptr) {
	devMem := traceDeviceMemory()
	ringMem := traceRingMemory()
	carved := initMemory(kernelEnd, devMem+ringMem)
	if devMem != 0 {
		devBlock = carved
	}
	if ringMem != 0 {
		ringBlock = carved + devMem
	}
	return devBlock, ringBlock
}

// startProgram creates the idle thread and the program's main thread on a Linux initial stack,
// starts the timers (and the sampler, if the command line asked), and enters the Go runtime's
// own entry point. It never returns.
func startProgram() {
	archIdleFrame(&threads[idleSlot].frame)
	threads[idleSlot].state = threadRunnable
	main := newThread()
	t := &threads[main]
	sp := buildInitialStack()
	archThreadFrame(&t.frame, archRuntimeEntry(), sp)
	t.state = threadRunning
	curSlot = main
	trace.SetThread(cpuIndex(), uint32(t.tid))
	t.runStart = nanotime()
	bootNanos = nanotime()
	if opts.verbose {
		klog().s("boot: ticks at ").u(ticksHz()).s(" Hz, kernel ready in ").d(bootNanos / 1000).s(" us").nl()
	}
	initTimers()
	startBootSampler()
	archEnter(&t.frame)
}
