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
func Nanotime() int64 { return ticksToNanos(cntvct()-entryTicks, ticksMult) }

// ArmTimer programs timer which to interrupt once when the virtual counter reaches deadline (at
// once if it has): the compare value, then the control register with the timer enabled and
// its interrupt unmasked. The interrupt is level-triggered and stays asserted until the timer
// is re-armed or stopped, so the handler must do one of the two before its EOI.
//
//go:nosplit
func ArmTimer(deadline uint64, which Timer) {
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
