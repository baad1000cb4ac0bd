package kernel

import (
	"github.com/unitrace/unitrace/kernel/core"
	"github.com/unitrace/unitrace/kernel/klog"
	"github.com/unitrace/unitrace/kernel/machine"
	"github.com/unitrace/unitrace/kernel/observe"
	"github.com/unitrace/unitrace/trace/wire"
)

// exitProgram ends the program: the other CPUs stop first (so no record is produced behind the
// final flush), then the console's last line says the status, and the machine stops.
func exitProgram(code int) {
	if !core.StopOtherCPUs() {
		core.ParkForGood() // another CPU is stopping the machine already
	}
	observe.StopSampler()
	observe.StopSweep()
	observe.ReportSampler()
	observe.FlushOffCPU()
	observe.ReportOffCPU()
	observe.ReportWakers()
	reportSVCBranches()
	if core.NumCPUs > 1 {
		core.ReportLock()
	}
	observe.TraceFinish(wire.EndExit, int32(code&0xff))
	klog.Log().S("exit status ").D(int64(code & 0xff)).NL()
	machine.Exit(uint32(code & 0xff))
}
