package arm64

// The generic timer's registers (timer.go has the pure parts).

var (
	ticksHz    uint64 // counter frequency
	ticksMult  uint64 // ns = (ticks-entryTicks) * ticksMult >> 32
	physOffset uint64 // CNTPCT - CNTVCT (CNTVOFF_EL2), so physical deadlines use virtual ticks
)

// Ticks reads the virtual counter.
//
//go:nosplit
func Ticks() uint64 { return cntvct() }

// TicksHz returns the counter frequency (CNTFRQ_EL0; 62.5 MHz on QEMU -M virt).
func TicksHz() uint64 { return ticksHz }

// InitClock reads the counter frequency and the physical-virtual counter offset; monotonic time
// counts from entryTicks, the counter when the boot code started.
func InitClock() {
	hz := cntfrq()
	if hz == 0 {
		hz = 62_500_000 // the frequency QEMU sets: a guess, for a broken CNTFRQ_EL0
	}
	ticksHz, ticksMult = hz, nanosMult(hz)
	// Virtual first: the offset comes out at most a few ticks large, so a physical deadline
	// is at most that late, never early.
	v := cntvct()
	physOffset = cntpct() - v
}

// Nanotime returns nanoseconds since the kernel's entry.
//
//go:nosplit
func Nanotime() int64 { return NanosAt(cntvct()) }

// NanosAt is the kernel's clock (Nanotime) at virtual counter reading ticks.
//
//go:nosplit
func NanosAt(ticks uint64) int64 { return ticksToNanos(ticks-entryTicks, ticksMult) }

// ArmTimer programs timer which to interrupt once when the virtual counter reaches deadline (at
// once if it has): the compare value, then the control register with the timer enabled and
// its interrupt unmasked. The interrupt is level-triggered and stays asserted until the timer
// is re-armed or stopped, so the handler must do one of the two before its EOI.
//
// Under TCG a compare-value write is the dearest step of a timer interrupt: QEMU moves its
// timer and wakes its main loop for the new deadline (docs/measurements.md). The kernel arms
// both timers whenever either's deadline may have moved, so a call for the deadline the timer
// holds already, not yet reached (its interrupt still to come, its line low), writes nothing.
//
//go:nosplit
func ArmTimer(deadline uint64, which Timer) {
	c := &cpus[CPUIndex()&(MaxCPUs-1)]
	if c.TimerArmed[which&1] == deadline && deadline > cntvct() {
		return
	}
	c.TimerArmed[which&1] = deadline
	c.TimerWrites++
	if which == TimerPhysical {
		writeCNTPCVAL(deadline + physOffset)
		writeCNTPCTL(timerEnable)
		return
	}
	writeCNTVCVAL(deadline)
	writeCNTVCTL(timerEnable)
}

// StopTimer disables timer which, withdrawing its interrupt.
//
//go:nosplit
func StopTimer(which Timer) {
	cpus[CPUIndex()&(MaxCPUs-1)].TimerArmed[which&1] = 0
	if which == TimerPhysical {
		writeCNTPCTL(0)
		return
	}
	writeCNTVCTL(0)
}

// TimerFired reports whether timer which is enabled, unmasked and has reached its deadline:
// whether it is the one asserting its interrupt.
//
//go:nosplit
func TimerFired(which Timer) bool {
	ctl := readCNTVCTL()
	if which == TimerPhysical {
		ctl = readCNTPCTL()
	}
	return ctl&(timerEnable|timerIMask|timerIStatus) == timerEnable|timerIStatus
}

// TimerWrites returns how many times cpu's timers were armed (a compare value written).
func TimerWrites(cpu int) uint64 { return cpus[cpu&(MaxCPUs-1)].TimerWrites }
