package observe

import (
	"sync/atomic"

	"github.com/unitrace/unitrace/kernel/core"
	"github.com/unitrace/unitrace/kernel/klog"
	"github.com/unitrace/unitrace/kernel/machine"
)

// Probing a CPU that takes no interrupts. A CPU that stopped taking timer ticks runs with
// interrupts masked (or its vCPU is not running), so neither an IPI nor the stacks capture
// reaches it. On amd64 an NMI still does: its handler records the frame it interrupted, and the
// watchdog prints where that CPU is and how it got there, as Linux's NMI backtrace does. arm64
// has no NMI here (GICv3 pseudo-NMIs are not used), and says so.

// probe is one CPU's answer to a probe: the context its NMI interrupted.
type probe struct {
	want           atomic.Uint32 // set by the prober before it sends the NMI
	done           atomic.Uint32 // set by the NMI handler once the fields below are written
	pc, sp, fp     uint64
	kernel, masked bool // the CPU was in the kernel; with interrupts masked
}

var probes [core.MaxCPUs]probe

// probeWait is how long the prober waits for the answer, in ns.
const probeWait = 100e6

// AnswerProbe runs in the NMI handler: if a probe is wanted it records the interrupted context.
//
//go:nosplit
func AnswerProbe(f *machine.Frame) {
	p := &probes[machine.CPUIndex()&(core.MaxCPUs-1)]
	if p.want.Load() == 0 {
		return
	}
	p.want.Store(0)
	pc, sp, fp := machine.FramePCSPFP(f)
	p.pc, p.sp, p.fp = uint64(pc), uint64(sp), uint64(fp)
	_, _, p.kernel = machine.KernelStackBounds(sp)
	p.masked = machine.FrameInterruptsMasked(f)
	p.done.Store(1)
}

// ReportWhereCPUsAre probes every CPU in mask (reportWhereCPUIs).
func ReportWhereCPUsAre(mask uint64) {
	for c := 0; c < core.NumCPUs; c++ {
		if mask&(1<<uint(c)) != 0 {
			reportWhereCPUIs(c)
		}
	}
}

// reportWhereCPUIs probes CPU c and prints where it is: its pc and, in the kernel, the
// frame-pointer chain on its kernel stack.
func reportWhereCPUIs(c int) {
	p := &probes[c&(core.MaxCPUs-1)]
	p.done.Store(0)
	p.want.Store(1)
	if !core.SendProbe(c) {
		p.want.Store(0)
		klog.Log().S("cpu ").D(int64(c)).S(": no NMI on this architecture to ask where it is").NL()
		return
	}
	deadline := machine.Nanotime() + probeWait
	for p.done.Load() == 0 && machine.Nanotime() < deadline {
		machine.CPURelax()
	}
	if p.done.Load() == 0 {
		p.want.Store(0)
		klog.Log().S("cpu ").D(int64(c)).S(" did not answer an NMI within ").D(probeWait / 1e6).S(" ms").NL()
		return
	}
	l := klog.Log().S("cpu ").D(int64(c)).S(" was ")
	if p.kernel {
		l.S("in the kernel")
	} else {
		l.S("in the program")
	}
	if p.masked {
		l.S(", interrupts masked")
	}
	l.S(":").NL()
	if p.kernel {
		PrintKernelBacktrace(uintptr(p.pc), uintptr(p.sp), uintptr(p.fp))
		return
	}
	syms, ok := machine.ImageSymtab()
	printFrame(&syms, ok, uintptr(p.pc), false)
}
