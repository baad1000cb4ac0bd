package kernel

import (
	"strings"
	"sync/atomic"

	"github.com/unitrace/unitrace/kernel/core"
	"github.com/unitrace/unitrace/kernel/klog"
	"github.com/unitrace/unitrace/kernel/machine"
	"github.com/unitrace/unitrace/kernel/observe"
	"github.com/unitrace/unitrace/kernel/options"
	"github.com/unitrace/unitrace/trace"
)

// Multiprocessor bring-up. The boot CPU finds the machine's CPUs before memory management starts
// (setupCPUs: their kernel stacks and trace rings are sized from the count), and starts the
// others just before it enters the program (startSecondaries). Each secondary arrives at
// secondaryMain on its own kernel stack with interrupts masked, sets up its interrupt controller
// side, its idle thread and timers, and enters its idle thread; from then on it schedules like
// the boot CPU.

// smpLimit is unitrace.smp=N: run at most N CPUs (0: all).
var smpLimit int

// smpOption reads unitrace.smp=N; it reports whether o was that option.
func smpOption(o string) bool {
	v, ok := strings.CutPrefix(o, "unitrace.smp=")
	if !ok {
		return false
	}
	n, ok := observe.ParseSmallUint(v)
	if !ok || n < 1 {
		klog.Log().S("unitrace.smp: want a CPU count of at least 1, got ").S(v).NL()
		return true
	}
	smpLimit = n
	return true
}

// setupCPUs counts the CPUs the kernel will run and reserves what they need.
func setupCPUs() {
	n := core.DiscoverCPUs()
	if smpLimit > 0 && n > smpLimit {
		n = smpLimit
	}
	core.NumCPUs = core.ReserveCPUs(n)
	core.Scheduler.SetCPUs(core.NumCPUs)
	core.CPULocals[0].Online.Store(true)
}

// secondaryWait bounds how long the boot CPU waits for the secondaries to report in.
const secondaryWait = 10_000_000_000 // ns

// startSecondaries starts every other CPU and waits until each runs its idle thread (or the
// wait runs out), then says how many are online.
func startSecondaries() {
	core.EnableIPIHere()
	for c := 1; c < core.NumCPUs; c++ {
		if !core.StartCPU(c) {
			klog.Log().S("smp: cpu ").D(int64(c)).S(" did not start").NL()
		}
	}
	deadline := machine.Nanotime() + secondaryWait
	for core.OnlineCPUs() < core.NumCPUs && machine.Nanotime() < deadline {
		machine.CPURelax()
	}
	if core.NumCPUs > 1 || options.Kernel.Verbose {
		klog.Log().S("smp: ").D(int64(core.OnlineCPUs())).S(" CPUs online").NL()
	}
}

// secondaryMain is where a CPU started by the hardware layer (amd64.StartAP, arm64.StartCPU)
// enters the kernel, on its own kernel stack with interrupts masked.
func secondaryMain(cpu uint64) {
	c := int(cpu)
	if c <= 0 || c >= core.NumCPUs || c != machine.CPUIndex() {
		for {
			machine.ParkCPU() // not a CPU the kernel asked for: keep out of everything
		}
	}
	core.InitSecondaryCPU()
	l := &core.CPULocals[c]
	idle := &core.Threads[c]
	machine.IdleFrame(&idle.Frame) // the scheduler has every CPU on its idle thread until it picks another
	trace.SetThread(c, 0)
	core.StartTick()
	if hz := atomic.LoadUint64(&observe.SamplerHz); hz != 0 {
		observe.StartLocalSampler(hz)
	}
	l.XcallAck.Store(core.Xcall.Seq.Load()) // requests posted before it came online are not its
	l.Online.Store(true)
	if options.Kernel.MaskSpin && c == core.NumCPUs-1 {
		spinMaskedForTest()
	}
	machine.Enter(&idle.Frame)
}

// spinMaskedForTest keeps this CPU busy in the kernel with interrupts masked for 3 s
// (unitrace.debug=maskspin): a CPU the watchdog sees take no tick, and has to probe.
func spinMaskedForTest() {
	for end := machine.Nanotime() + 3e9; machine.Nanotime() < end; {
		machine.CPURelax()
	}
}
