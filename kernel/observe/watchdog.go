package observe

import (
	"strings"
	"sync/atomic"

	"github.com/unitrace/unitrace/kernel/core"
	"github.com/unitrace/unitrace/kernel/dev/serial"
	"github.com/unitrace/unitrace/kernel/klog"
	"github.com/unitrace/unitrace/kernel/machine"
	"github.com/unitrace/unitrace/trace"
	"github.com/unitrace/unitrace/trace/record"
)

// The watchdog. A runnable thread that no CPU it may run on has switched to for
// unitrace.watchdog=SECONDS (default 10, 0 turns it off) means the scheduler is making no
// progress for it: a CPU hogged by a thread that never yields, a lost wake-up IPI, a CPU that
// stopped taking interrupts. The watchdog then prints every CPU's and thread's stack on the
// console (the same snapshot as the stacks command, symbolized by the kernel from its own
// pclntab) and goes on; it reports the same stall once. A CPU whose timer tick stands still for
// that long is reported too.

const defaultWatchdogSeconds = 10

// WatchdogPeriod is unitrace.watchdog's value in ns (0: off). Set by the boot options, before the
// Go runtime runs: a package init would overwrite it.
var WatchdogPeriod int64 = defaultWatchdogSeconds * 1e9

var Watchdog struct {
	NextScan int64 // when the next scan is due
	reported struct {
		slot     int32
		queuedAt int64
	}
	lastTicks [core.MaxCPUs]uint64
	tickSeen  [core.MaxCPUs]int64  // when lastTicks last changed
	trapsSeen [core.MaxCPUs]uint64 // the CPU's kernel entries then
	tickLate  [core.MaxCPUs]bool   // reported as not ticking
}

// WatchdogOption reads unitrace.watchdog=SECONDS; it reports whether o was that option.
func WatchdogOption(o string) bool {
	v, ok := strings.CutPrefix(o, "unitrace.watchdog=")
	if !ok {
		return false
	}
	n, ok := ParseSmallUint(v)
	if !ok || n > 3600 {
		klog.Log().S("unitrace.watchdog: want seconds from 0 (off) to 3600, got ").S(v).NL()
		return true
	}
	WatchdogPeriod = int64(n) * 1e9
	return true
}

// WatchdogScan runs from the scheduler tick under the kernel lock, at most ten times a period.
func WatchdogScan() {
	if WatchdogPeriod == 0 {
		return
	}
	now := machine.Nanotime()
	if now < Watchdog.NextScan {
		return
	}
	Watchdog.NextScan = now + WatchdogPeriod/10
	watchTicks(now)
	oldest, queuedAt, ok := core.Scheduler.Waiting()
	if !ok {
		return
	}
	t := &core.Threads[oldest]
	waited := now - queuedAt
	if waited < WatchdogPeriod || (Watchdog.reported.slot == oldest && Watchdog.reported.queuedAt == queuedAt) {
		return
	}
	Watchdog.reported.slot, Watchdog.reported.queuedAt = oldest, queuedAt
	klog.Log().S("watchdog: no scheduling progress: thread ").D(int64(t.Tid)).S(" gen ").U(uint64(t.Gen)).
		S(" runnable for ").D(waited / 1e6).S(" ms; no CPU it may run on (mask ").X(core.Scheduler.Affinity(oldest)).S(") switched to it").NL()
	dumpStacks()
}

// watchTicks reports a CPU whose timer tick count has not moved for a watchdog period.
func watchTicks(now int64) {
	for c := 0; c < core.NumCPUs; c++ {
		l := &core.CPULocals[c]
		if !l.Online.Load() || l.Halted.Load() {
			continue
		}
		if n := l.Ticks.Load(); n != Watchdog.lastTicks[c] || Watchdog.tickSeen[c] == 0 {
			Watchdog.lastTicks[c], Watchdog.tickSeen[c], Watchdog.tickLate[c] = n, now, false
			Watchdog.trapsSeen[c] = atomic.LoadUint64(&l.Traps)
			continue
		}
		if now-Watchdog.tickSeen[c] >= WatchdogPeriod && !Watchdog.tickLate[c] {
			Watchdog.tickLate[c] = true
			entries := atomic.LoadUint64(&l.Traps) - Watchdog.trapsSeen[c]
			klog.Log().S("watchdog: cpu ").D(int64(c)).S(" took no timer tick for ").D((now - Watchdog.tickSeen[c]) / 1e6).
				S(" ms (interrupts masked, or its vCPU not running); ").U(entries).S(" kernel entries meanwhile").NL()
			if entries != 0 {
				klog.Log().S("watchdog: the last of kind ").X(atomic.LoadUint64(&l.LastTrap)).S(" from:").NL()
				syms, ok := machine.ImageSymtab()
				printFrame(&syms, ok, uintptr(atomic.LoadUint64(&l.LastTrapPC)), false)
			}
			reportWhereCPUIs(c)
		}
	}
}

// dumpStacks prints the stacks snapshot on the console, symbolized.
func dumpStacks() {
	sink := stackSink{console: true}
	n := snapshotStacks(&sink)
	klog.Log().S("watchdog: end of stacks (").D(int64(n)).S(" entries)").NL()
	serial.PrintTraceDevice()
}

// printStackEntry prints one snapshot entry: a CPU's line, or a thread's line and its frames.
func printStackEntry(e *trace.StackEntry, frames *[trace.MaxDepth]uint64, n int) {
	if e.Kind == trace.EntryCPU {
		l := klog.Log().S("cpu ").D(int64(e.CPU)).S(": ").S(e.State.String())
		if e.TID != 0 {
			l.S(" tid ").D(int64(e.TID)).S(" gen ").U(uint64(e.Gen))
		}
		l.NL()
		return
	}
	l := klog.Log().S("thread ").D(int64(e.TID)).S(" gen ").U(uint64(e.Gen)).S(": ").S(e.State.String())
	if w := e.Wait.String(); w != "" {
		l.S(" (").S(w).S(")")
	}
	switch {
	case e.State == trace.StateRunning:
		l.S(" on cpu ").D(int64(e.CPU))
	case e.CPU >= 0:
		l.S(", last on cpu ").D(int64(e.CPU))
	}
	if e.Flags&trace.StackByIPI != 0 {
		l.S(" (captured by IPI)")
	}
	if e.State == trace.StateNeverRun {
		l.S(" (created, not yet scheduled: no stack)")
	}
	l.NL()
	if e.PC == 0 || e.State == trace.StateNeverRun {
		return
	}
	syms, ok := machine.ImageSymtab()
	first := 0
	if e.Flags&trace.StackKernelPath != 0 {
		// The kernel's path that blocked the thread, above the thread's own frames.
		for first < n && frames[first] != record.StackMarkThread {
			printFrame(&syms, ok, uintptr(frames[first]), true)
			first++
		}
		first++
	}
	printFrame(&syms, ok, uintptr(e.PC), false)
	for i := first; i < n; i++ {
		if frames[i] == record.StackMarkTable {
			continue // the next return address came from the tables: printed as any other
		}
		if frames[i] == record.StackMarkSignal {
			// A signal handler's chain goes on in the code it interrupted: its exact pc next.
			klog.Log().S("  (interrupted by a signal:)").NL()
			if i+1 < n {
				i++
				printFrame(&syms, ok, uintptr(frames[i]), false)
			}
			continue
		}
		printFrame(&syms, ok, uintptr(frames[i]), true)
	}
	if e.Flags&trace.StackFlags(record.WalkStop) != 0 {
		klog.Log().S("  (walk stopped at a frame that failed a check)").NL()
	}
}

// ParseSmallUint parses a decimal number of at most 9 digits (boot options run before the Go
// runtime: no strconv errors, which allocate).
func ParseSmallUint(v string) (int, bool) {
	if len(v) == 0 || len(v) > 9 {
		return 0, false
	}
	n := 0
	for i := 0; i < len(v); i++ {
		if v[i] < '0' || v[i] > '9' {
			return 0, false
		}
		n = n*10 + int(v[i]-'0')
	}
	return n, true
}
