package kernel

import (
	"math/bits"

	"github.com/unitrace/unitrace/kernel/klog"
	"github.com/unitrace/unitrace/kernel/machine"
	"github.com/unitrace/unitrace/kernel/options"
)

// The boot's steps, timed: each records the counter when it ended, and unitrace.verbose=1 prints
// them just before the kernel enters the program, as microseconds since the kernel's entry
// (the counter's value then is the clock's base, known once the clock is calibrated, so the
// stamps are raw ticks until the report converts them).
var bootSteps struct {
	n     int
	names [24]string
	ticks [24]uint64
}

// bootStep records that the boot step name has just ended.
func bootStep(name string) {
	s := &bootSteps
	if s.n < len(s.names) {
		s.names[s.n], s.ticks[s.n] = name, machine.Ticks()
		s.n++
	}
}

// reportBootSteps prints the steps under unitrace.verbose=1: when each ended and what it took.
func reportBootSteps() {
	if !options.Kernel.Verbose {
		return
	}
	base, mult := machine.ClockParams()
	us := func(ticks uint64) int64 {
		if ticks < base {
			return 0
		}
		return ticksToNanos(ticks-base, mult) / 1000
	}
	klog.Log().S("boot: timer at ").U(machine.TimerHz()).S(" Hz").NL()
	l := klog.Log().S("boot: steps (us since entry, and each one's own):")
	prev := int64(0)
	for i := 0; i < bootSteps.n; i++ {
		at := us(bootSteps.ticks[i])
		l.S(" ").S(bootSteps.names[i]).S(" ").D(at).S(" (").D(at - prev).S(")")
		prev = at
	}
	l.NL()
}

// ticksToNanos is the clock's conversion (machine.ClockParams): ns = ticks * mult >> 32.
func ticksToNanos(ticks, mult uint64) int64 {
	hi, lo := bits.Mul64(ticks, mult)
	return int64(hi<<32 | lo>>32)
}
