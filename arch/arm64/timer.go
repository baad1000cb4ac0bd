package arm64

import "math/bits"

// Time: the generic timer. The virtual counter (CNTVCT_EL0) is the clock; the virtual timer
// (PPI 27) is the scheduler tick and the non-secure physical timer (PPI 30) the sampler's, so
// the two never share a comparator. Both timers are programmed with absolute compare values.

// Timer selects one of the CPU's two EL1 timers.
type Timer uint8

const (
	TimerVirtual  Timer = iota // CNTV: the scheduler tick, INTID 27
	TimerPhysical              // CNTP: the sampler, INTID 30
)

// CNTx_CTL_EL0 bits.
const (
	timerEnable  = 1 << 0
	timerIMask   = 1 << 1
	timerIStatus = 1 << 2
)

// INTID returns the timer's interrupt ID.
func (t Timer) INTID() uint32 {
	if t == TimerPhysical {
		return IntidPhysicalTimer
	}
	return IntidVirtualTimer
}

// nanosMult returns the 32.32 fixed-point nanoseconds per tick at hz (0 for 0 Hz).
func nanosMult(hz uint64) uint64 {
	if hz == 0 {
		return 0
	}
	return (1_000_000_000 << 32) / hz
}

// ticksToNanos converts a tick count to nanoseconds with a 32.32 multiplier.
func ticksToNanos(ticks, mult uint64) int64 {
	hi, lo := bits.Mul64(ticks, mult)
	return int64(hi<<32 | lo>>32)
}
