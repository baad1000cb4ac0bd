//go:build unitrace_host && amd64

package core_test

import (
	"testing"

	"github.com/unitrace/unitrace/kernel/core"
	"github.com/unitrace/unitrace/kernel/core/coretest"
	"github.com/unitrace/unitrace/kernel/machine"
)

// The tick stops where it has nothing to do (core.UpdateTick): on an idle CPU, and on a CPU
// that runs the one thread it may run while no CPU-time timer is armed. These tests drive CPU 0
// of the host machine through the cases and check its deadline and the timer it armed.

const (
	period  = 4_000_000     // 250 Hz at the host's 1 GHz counter
	stretch = 1_000_000_000 // a second
)

func freshTick(t *testing.T) *core.CPULocal {
	t.Helper()
	coretest.Fresh(t)
	savedPeriod, savedStretch, savedKeep := core.TickPeriod, core.TickStretch, core.KeepTick
	l := core.Here()
	t.Cleanup(func() {
		core.TickPeriod, core.TickStretch, core.KeepTick = savedPeriod, savedStretch, savedKeep
		l.TickStopped.Store(false)
		core.SchedHints.RunnableOn.Store(0)
		core.SetCPUTimersArmed(false)
	})
	core.TickPeriod, core.TickStretch, core.KeepTick = period, stretch, false
	machine.Host.Clock = 10 * period
	core.StartTick()
	return l
}

func TestTickStopsWhenIdle(t *testing.T) {
	l := freshTick(t)
	core.UpdateTick()
	now := uint64(machine.Host.Clock)
	if !l.TickStopped.Load() || l.TickNext != now+stretch {
		t.Fatalf("idle, nothing runnable: stopped %v, next tick %d ns away; want stopped, a stretch away", l.TickStopped.Load(), l.TickNext-now)
	}
	// The stopped tick's own interrupt moves it a stretch on again.
	machine.Host.Clock += stretch
	core.NextTick(l, uint64(machine.Host.Clock))
	if l.TickNext != uint64(machine.Host.Clock)+stretch {
		t.Errorf("after the stretched tick: next %d ns away, want a stretch", l.TickNext-uint64(machine.Host.Clock))
	}
	// A CPU-time timer does not keep an idle CPU's tick: no thread runs to be measured.
	core.SetCPUTimersArmed(true)
	core.UpdateTick()
	if !l.TickStopped.Load() {
		t.Error("a CPU-time timer restarted an idle CPU's tick")
	}
}

func TestTickRestartsForRunnable(t *testing.T) {
	l := freshTick(t)
	core.UpdateTick()
	machine.Host.Clock += period / 2
	core.SchedHints.RunnableOn.Store(1) // a thread queued that may run on CPU 0
	core.RestartTick()                  // the end of the entry that queued it
	now := uint64(machine.Host.Clock)
	if l.TickStopped.Load() || l.TickNext != now+period || machine.Host.TickAt != l.TickNext {
		t.Fatalf("runnable here: stopped %v, next tick %d ns away, timer at %d; want running, a period away, armed", l.TickStopped.Load(), l.TickNext-now, machine.Host.TickAt)
	}
	// While it runs, the tick moves on by whole periods.
	machine.Host.Clock += 3*period + period/2
	core.NextTick(l, uint64(machine.Host.Clock))
	if l.TickNext != now+4*period {
		t.Errorf("running tick after 3.5 periods: next at %d, want %d", l.TickNext, now+4*period)
	}
}

func TestTickKeptForCPUTimers(t *testing.T) {
	l := freshTick(t)
	var f machine.Frame
	coretest.Running(t, &f)
	core.UpdateTick()
	if !l.TickStopped.Load() {
		t.Fatal("one thread, nothing else runnable, no CPU-time timer: the tick still runs")
	}
	core.SetCPUTimersArmed(true)
	core.UpdateTick() // the stretched tick's own interrupt, which arms the timer after it
	if l.TickStopped.Load() || l.TickNext != uint64(machine.Host.Clock)+period {
		t.Error("a CPU-time timer with a thread running: the tick stays stopped")
	}
}

func TestKeepTick(t *testing.T) {
	l := freshTick(t)
	core.KeepTick = true
	core.UpdateTick()
	if l.TickStopped.Load() {
		t.Error("unitrace.tickless=0: the tick stopped")
	}
}
