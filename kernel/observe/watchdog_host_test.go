//go:build unitrace_host && amd64

package observe

import (
	"strconv"
	"strings"
	"testing"

	"github.com/unitrace/unitrace/kernel/core"
	"github.com/unitrace/unitrace/kernel/core/coretest"
	"github.com/unitrace/unitrace/kernel/machine"
)

// The watchdog on the host machine: a thread runnable for a whole period while CPU 0 runs
// another is reported once, with the stacks; a thread that ran in time is not.
func TestWatchdogReportsAStall(t *testing.T) {
	var f machine.Frame
	coretest.Fresh(t)
	period := WatchdogPeriod
	t.Cleanup(func() {
		WatchdogPeriod, Watchdog.NextScan, Watchdog.reported.slot, Watchdog.reported.queuedAt = period, 0, 0, 0
	})
	WatchdogPeriod = 10e9
	coretest.Running(t, &f) // the hog
	waiting := core.NewThread()
	core.Enqueue(waiting) // queued at time 0, behind the hog

	machine.Host.Clock = 9e9
	WatchdogScan()
	if strings.Contains(string(machine.Host.Console), "watchdog: no scheduling progress") {
		t.Fatalf("reported before the period passed:\n%s", machine.Host.Console)
	}
	machine.Host.Clock = 11e9
	WatchdogScan()
	out := string(machine.Host.Console)
	want := "watchdog: no scheduling progress: thread " + strconv.Itoa(int(core.Threads[waiting].Tid))
	if !strings.Contains(out, want) || !strings.Contains(out, "watchdog: end of stacks") {
		t.Fatalf("the stall was not reported with the stacks; console:\n%s", out)
	}
	machine.Host.Console = nil
	machine.Host.Clock = 13e9
	WatchdogScan()
	if strings.Contains(string(machine.Host.Console), "no scheduling progress") {
		t.Fatalf("the same stall was reported twice:\n%s", machine.Host.Console)
	}
}

func TestWatchdogOption(t *testing.T) {
	period := WatchdogPeriod
	t.Cleanup(func() { WatchdogPeriod = period; machine.Host = machine.HostMachine{} })
	for _, c := range []struct {
		word  string
		taken bool
		want  int64
	}{
		{"unitrace.watchdog=3", true, 3e9},
		{"unitrace.watchdog=0", true, 0},
		{"unitrace.watchdog=3601", true, 0}, // refused: the period stays
		{"unitrace.watchdog=x", true, 0},
		{"unitrace.watchdogs=3", false, 0},
	} {
		if got := WatchdogOption(c.word); got != c.taken || WatchdogPeriod != c.want {
			t.Errorf("%s: taken %v, period %d; want %v, %d", c.word, got, WatchdogPeriod, c.taken, c.want)
		}
	}
}
