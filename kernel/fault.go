package kernel

import (
	"github.com/unitrace/unitrace/kernel/core"
	"github.com/unitrace/unitrace/kernel/klog"
	"github.com/unitrace/unitrace/kernel/machine"
	"github.com/unitrace/unitrace/kernel/observe"
	"github.com/unitrace/unitrace/trace/wire"
)

// kernelFault reports a fault the kernel cannot hand to the program (a fault in the kernel
// itself, a double fault, an exception in the idle thread) and stops the machine: vector, error
// code, fault address, all registers, and a backtrace from the exception frame's pc followed by
// its frame-pointer chain, every step validated. It never returns.
func kernelFault(f *machine.Frame, why string) {
	if core.OtherCPUStopping() {
		core.ParkForGood() // one report at a time: the machine is stopping already
	}
	if observe.InFaultReport {
		// The report itself faulted: say where, and stop without trying again.
		pc, _, _ := machine.FramePCSPFP(f)
		klog.Log().S("kernel fault while reporting a kernel fault: pc ").X(uint64(pc)).NL()
		klog.Log().S("kernel fault, halting").NL()
		machine.Exit(machine.FaultExitValue)
	}
	observe.InFaultReport = true
	if !core.StopOtherCPUs() {
		core.ParkForGood() // another CPU is reporting its own fault, or exiting
	}
	klog.Log().S("kernel fault: ").S(why).NL()
	if core.NumCPUs > 1 {
		klog.Log().S("on cpu ").D(int64(machine.CPUIndex())).S(" of ").D(int64(core.NumCPUs)).S("; the others are stopped").NL()
	}
	printTrap(f)
	dumpRegs(f)
	klog.Log().S("backtrace (exception pc, then the frame-pointer chain):").NL()
	pc, sp, fp := machine.FramePCSPFP(f)
	observe.PrintKernelBacktrace(pc, sp, fp)
	observe.TraceFinish(wire.EndPanic, 0) // the trace up to the fault is the best evidence there is
	klog.Log().S("kernel fault, halting").NL()
	machine.Exit(machine.FaultExitValue)
}
