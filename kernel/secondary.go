package kernel

import (
	"strings"
	"sync/atomic"

	"github.com/unitrace/unitrace/kernel/klog"
	"github.com/unitrace/unitrace/kernel/machine"
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
	n, ok := parseSmallUint(v)
	if !ok || n < 1 {
		klog.Log().S("unitrace.smp: want a CPU count of at least 1, got ").S(v).NL()
		return true
	}
	smpLimit = n
	return true
}

// setupCPUs counts the CPUs the kernel will run and reserves what they need.
func setupCPUs() {
	n := discoverCPUs()
	if smpLimit > 0 && n > smpLimit {
		n = smpLimit
	}
	numCPUs = reserveCPUs(n)
	scheduler.SetCPUs(numCPUs)
	cpuLocals[0].online.Store(true)
}

// secondaryWait bounds how long the boot CPU waits for the secondaries to report in.
const secondaryWait = 10_000_000_000 // ns

// startSecondaries starts every other CPU and waits until each runs its idle thread (or the
// wait runs out), then says how many are online.
func startSecondaries() {
	enableIPIHere()
	for c := 1; c < numCPUs; c++ {
		if !startCPU(c) {
			klog.Log().S("smp: cpu ").D(int64(c)).S(" did not start").NL()
		}
	}
	deadline := machine.Nanotime() + secondaryWait
	for onlineCPUs() < numCPUs && machine.Nanotime() < deadline {
		machine.CPURelax()
	}
	if numCPUs > 1 || options.Kernel.Verbose {
		klog.Log().S("smp: ").D(int64(onlineCPUs())).S(" CPUs online").NL()
	}
}

// secondaryMain is where a CPU started by the hardware layer (amd64.StartAP, arm64.StartCPU)
// enters the kernel, on its own kernel stack with interrupts masked.
func secondaryMain(cpu uint64) {
	c := int(cpu)
	if c <= 0 || c >= numCPUs || c != machine.CPUIndex() {
		for {
			machine.ParkCPU() // not a CPU the kernel asked for: keep out of everything
		}
	}
	initSecondaryCPU()
	l := &cpuLocals[c]
	idle := &threads[c]
	machine.IdleFrame(&idle.frame) // the scheduler has every CPU on its idle thread until it picks another
	trace.SetThread(c, 0)
	startTick()
	if hz := atomic.LoadUint64(&samplerHz); hz != 0 {
		startLocalSampler(hz)
	}
	l.xcallAck.Store(xcall.seq.Load()) // requests posted before it came online are not its
	l.online.Store(true)
	if options.Kernel.MaskSpin && c == numCPUs-1 {
		spinMaskedForTest()
	}
	machine.Enter(&idle.frame)
}

// spinMaskedForTest keeps this CPU busy in the kernel with interrupts masked for 3 s
// (unitrace.debug=maskspin): a CPU the watchdog sees take no tick, and has to probe.
func spinMaskedForTest() {
	for end := machine.Nanotime() + 3e9; machine.Nanotime() < end; {
		machine.CPURelax()
	}
}
