package kernel

import (
	"github.com/unitrace/unitrace/kernel/klog"
	"github.com/unitrace/unitrace/kernel/machine"
	"github.com/unitrace/unitrace/kernel/options"
)

// The boot's steps, timed: each records the counter when it ended, and unitrace.verbose=1 prints
// them just before the kernel enters the program, as microseconds since the kernel's entry
// (the counter's value then is the clock's base, known once the clock is calibrated, so the
// stamps are raw ticks until the report converts them).
var bootSteps struct {
	ticks [numBootSteps]uint64 // 0: the step did not run
}

// The boot's steps, in order.
type bootStepID uint8

const (
	stepConsole bootStepID = iota
	stepCPU
	stepMemory
	stepClock
	stepDevices
	stepFiles
	stepFirstThread
	stepTimers
	stepImageTables
	stepSamplers
	numBootSteps
)

var bootStepNames = [numBootSteps]string{"console and command line", "CPU and interrupts", "memory", "clock",
	"devices and tracing", "files", "first thread", "timers", "image tables", "samplers and CPUs"}

// bootStep records that the boot step id has just ended. It stores one word: the stamps are taken
// before the kernel may allocate or use write barriers.
func bootStep(id bootStepID) {
	if id < numBootSteps {
		bootSteps.ticks[id] = machine.Ticks()
	}
}

// reportBootSteps prints the steps under unitrace.verbose=1: when each ended and what it took.
func reportBootSteps() {
	if !options.Kernel.Verbose {
		return
	}
	klog.Log().S("boot: timer at ").U(machine.TimerHz()).S(" Hz").NL()
	l := klog.Log().S("boot: steps (us since entry, and each one's own):")
	prev := int64(0)
	for id, t := range bootSteps.ticks {
		if t == 0 {
			continue
		}
		at := machine.NanosAt(t) / 1000
		l.S(" ").S(bootStepNames[id]).S(" ").D(at).S(" (").D(at - prev).S(")")
		prev = at
	}
	l.NL()
}
