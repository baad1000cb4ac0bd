package amd64

import "math/bits"

// Time: the TSC is the clock (calibrated against the PIT at boot), the local APIC timer is the
// scheduler tick.

const (
	pitHz       = 1193182
	pitCh0      = 0x40
	pitCommand  = 0x43
	lapicBase   = 0xfee00000
	lapicEOI    = 0xb0
	lapicSVR    = 0xf0
	lapicTPR    = 0x80
	lapicLVTTmr = 0x320
	lapicInit   = 0x380
	lapicCount  = 0x390
	lapicDivide = 0x3e0
	msrAPICBase = 0x1b

	lvtMasked  = 1 << 16
	divideBy16 = 0x3
)

var (
	tscHz   uint64 // TSC ticks per second
	tscBase uint64 // TSC at boot: monotonic time zero
	tscMult uint64 // ns = (tsc-tscBase) * tscMult >> 32
	lapicHz uint64 // LAPIC timer ticks per second (after the divider)
	// lapicPerTSC is lapicHz/tscHz in 32.32 fixed point: ArmTimer converts a TSC interval to a
	// count by a multiplication, not a division, which TCG runs slowly.
	lapicPerTSC uint64
)

func pitCount() uint16 {
	Outb(pitCommand, 0x00) // latch channel 0
	lo := Inb(pitCh0)
	hi := Inb(pitCh0)
	return uint16(hi)<<8 | uint16(lo)
}

// Calibration windows, each a stretch of boot spent waiting. Under TCG the guest's TSC, PIT and
// local APIC timer all run from the host's clocks, but every PIT or local APIC access waits for
// QEMU's global lock, so an access lands some microseconds, now and then milliseconds, from the
// TSC reading beside it. Reading the PIT plainly, a 5 ms window gave rates 3% apart from boot to
// boot, and 10 ms ones up to 2%. So each end of the TSC's window is a bracketed stamp (pitStamp):
// the PIT's latch between two TSC reads, the narrowest of a few tries, taken at the bracket's
// middle; what is left is the narrowest bracket's half and a PIT count's quantum at each end,
// about a microsecond in 2 ms. The local APIC timer is measured against the calibrated TSC over
// the window it actually took, so its one read's delay is all its error: about 0.2% in 5 ms.
const (
	tscWindowsPerSecond   = 500 // a 2 ms window
	lapicWindowsPerSecond = 200 // a 5 ms window
	pitStampTries         = 4
)

// pitStamp latches PIT channel 0's count between two TSC reads, pitStampTries times, and returns
// the count and the TSC at the middle of the narrowest bracket: a latch that waited for QEMU's
// lock has a wide one.
func pitStamp() (count uint16, tsc uint64) {
	best := ^uint64(0)
	for i := 0; i < pitStampTries; i++ {
		t0 := Rdtsc()
		Outb(pitCommand, 0x00) // latch channel 0: the count is the one at this instant
		t1 := Rdtsc()
		lo := Inb(pitCh0)
		hi := Inb(pitCh0)
		if w := t1 - t0; w < best {
			best, count, tsc = w, uint16(hi)<<8|uint16(lo), t0+w/2
		}
	}
	return count, tsc
}

// pitElapsed is how far the PIT counted down from count a to count b, with at most one reload
// from 65535 between (the count runs 65535..1 in mode 2: 55 ms a period).
func pitElapsed(a, b uint16) uint64 {
	if b <= a {
		return uint64(a - b)
	}
	return uint64(a) + 65535 - uint64(b)
}

// calibrateTSC measures the TSC against PIT channel 0 counting down at 1.193182 MHz for about
// 2 ms, between two bracketed stamps. It reads the counter by latching (no speaker-gate port
// 0x61, which -M microvm lacks). It returns 0 if no PIT answers.
func calibrateTSC() uint64 {
	Outb(pitCommand, 0x34) // channel 0, lobyte/hibyte, mode 2 (rate generator), binary
	Outb(pitCh0, 0xff)
	Outb(pitCh0, 0xff)
	startCount, startTSC := pitStamp()
	prev := startCount
	var elapsed uint64
	for spins := 0; elapsed < pitHz/tscWindowsPerSecond; spins++ {
		cur := pitCount()
		elapsed += pitElapsed(prev, cur)
		prev = cur
		if spins > 50_000_000 && elapsed == 0 {
			return 0
		}
	}
	endCount, endTSC := pitStamp()
	elapsed += pitElapsed(prev, endCount)
	if elapsed == 0 {
		return 0
	}
	return (endTSC - startTSC) * pitHz / elapsed
}

// cpuidTSCHz returns the TSC frequency from CPUID leaf 0x15 (crystal ratio) or the hypervisor
// leaf 0x40000010, or 0.
func cpuidTSCHz() uint64 {
	if max, _, _, _ := cpuid(0, 0); max >= 0x15 {
		den, num, crystal, _ := cpuid(0x15, 0)
		if den != 0 && num != 0 && crystal != 0 {
			return uint64(crystal) * uint64(num) / uint64(den)
		}
	}
	if max, _, _, _ := cpuid(0x40000000, 0); max >= 0x40000010 {
		khz, _, _, _ := cpuid(0x40000010, 0)
		return uint64(khz) * 1000
	}
	return 0
}

// entryTSC is the TSC when the CPU first ran 64-bit code (start64): monotonic time zero, so
// CLOCK_MONOTONIC read in main.main is the guest's boot time.
var entryTSC uint64

// InitClock calibrates the TSC; monotonic time counts from entryTSC.
func InitClock() {
	tscHz = calibrateTSC()
	if tscHz == 0 {
		tscHz = cpuidTSCHz()
	}
	if tscHz == 0 {
		tscHz = 1_000_000_000 // last resort: a guess, reported at boot
	}
	tscMult = (1_000_000_000 << 32) / tscHz
	tscBase = entryTSC
}

// TSCHz returns the calibrated TSC frequency.
func TSCHz() uint64 { return tscHz }

// Nanotime returns nanoseconds since the kernel's entry.
//
//go:nosplit
func Nanotime() int64 { return NanosAt(Rdtsc()) }

// NanosAt is the kernel's clock (Nanotime) at TSC reading tsc.
//
//go:nosplit
func NanosAt(tsc uint64) int64 {
	hi, lo := bits.Mul64(tsc-tscBase, tscMult)
	return int64(hi<<32 | lo>>32)
}

func lapicRead(reg uintptr) uint32     { return mmioRead32(lapicBase + reg) }
func lapicWrite(reg uintptr, v uint32) { mmioWrite32(lapicBase+reg, v) }

// InitLocalAPIC enables the calling CPU's local APIC with its timer masked, at the divider
// InitLocalTimer calibrated. The boot CPU gets it from InitLocalTimer; each application
// processor calls it once (the rate measured on the boot CPU holds for all: one bus clock).
func InitLocalAPIC() {
	wrmsr(msrAPICBase, rdmsr(msrAPICBase)|1<<11) // global enable
	lapicWrite(lapicTPR, 0)
	lapicWrite(lapicSVR, 0x100|VectorSpurious) // software enable
	lapicWrite(lapicDivide, divideBy16)
	writeTimerLVT(lvtMasked | VectorTimer)
}

// writeTimerLVT sets this CPU's LVT timer entry to v, unless it holds v already: under TCG every
// local APIC access takes QEMU's global lock, which its main loop holds while it runs timers and
// devices, so an access can wait tens of microseconds, and the one-shot timer keeps its entry
// from one arming to the next.
//
//go:nosplit
func writeTimerLVT(v uint32) {
	c := cpuArea(int(CPUIndex()))
	if c.TimerLVT == v {
		return
	}
	lapicWrite(lapicLVTTmr, v)
	c.TimerLVT = v
}

// TimerHz returns the local APIC timer's calibrated rate (after its divider).
func TimerHz() uint64 { return lapicHz }

// lapicCalStart is the TSC when StartTimerCalibration set the boot CPU's local APIC timer
// counting down from its largest count (its interrupt masked), 0 if it did not.
var lapicCalStart uint64

// StartTimerCalibration enables the boot CPU's local APIC and sets its timer counting down,
// masked, so that InitLocalTimer measures it over the rest of the boot instead of a window
// spent waiting: the boot's other steps, some tens of milliseconds under TCG, are the window.
func StartTimerCalibration() {
	InitLocalAPIC()
	lapicWrite(lapicInit, 0xffffffff)
	lapicCalStart = Rdtsc()
}

// InitLocalTimer enables the local APIC and measures its timer against the calibrated TSC; the
// timer stays masked until ArmTimer. The count down StartTimerCalibration began is the
// measurement when it ran (its one read's delay, some microseconds under TCG, against tens of
// milliseconds); otherwise, or if the count ran out, a window of 1/lapicWindowsPerSecond.
func InitLocalTimer() {
	start := lapicCalStart
	left := uint64(lapicRead(lapicCount)) // 0 if never started, or if the count ran out
	if left == 0 {
		InitLocalAPIC()
		lapicWrite(lapicInit, 0xffffffff)
		start = Rdtsc()
		for Rdtsc()-start < tscHz/lapicWindowsPerSecond {
			Pause()
		}
		left = uint64(lapicRead(lapicCount))
	}
	used := 0xffffffff - left
	hi, lo := bits.Mul64(used, tscHz)
	elapsed := max(Rdtsc()-start, 1)
	if hi < elapsed {
		lapicHz, _ = bits.Div64(hi, lo, elapsed)
	}
	if lapicHz == 0 {
		lapicHz = 62_500_000
	}
	lapicPerTSC = lapicHz << 32 / tscHz
	writeTimerLVT(lvtMasked | VectorTimer) // ArmTimer starts it
}

// ArmTimer programs this CPU's local APIC timer to interrupt once, on vector, when the TSC
// reaches deadline (at once if it has). One timer serves the scheduler tick and the sampler:
// the kernel arms it for whichever deadline comes first, with that one's vector. The deadline is
// converted to a one-shot count at the calibrated rates, so the interrupt may come a little
// early; the kernel then finds nothing due and arms again for the rest.
//
// Arming costs one write of the initial count, and under TCG that write is the dearest thing
// the sampler does: QEMU moves its timer and wakes its main loop to wait for the new deadline,
// 16-32 µs in most writes (docs/measurements.md). So a call for the deadline and vector the
// timer is armed for already, whose interrupt is surely still to come, writes nothing: the
// scheduler tick's handler arms the timer for the deadline the sampler's handler armed it for
// just before.
//
//go:nosplit
func ArmTimer(deadline uint64, vector uint8) {
	now := Rdtsc()
	c := cpuArea(int(CPUIndex()))
	if c.TimerDeadline == deadline && c.TimerVector == vector && armedFor(deadline, c.TimerArmedAt, now) {
		return
	}
	c.TimerDeadline, c.TimerArmedAt, c.TimerVector = deadline, now, vector
	count := uint64(1)
	if deadline > now {
		hi, lo := bits.Mul64(deadline-now, lapicPerTSC)
		if hi < 1<<32 {
			count = max(hi<<32|lo>>32, 1)
		} else {
			count = 0xffffffff  // beyond the counter: as far as it goes
			c.TimerDeadline = 0 // and it fires before the deadline: arm again every time
		}
	}
	writeTimerLVT(uint32(vector)) // one-shot, unmasked
	lapicWrite(lapicInit, uint32(min(count, 0xffffffff)))
	c.TimerWrites++
}

// TimerWrites returns how many times cpu's timer was armed (its initial count written).
func TimerWrites(cpu int) uint64 { return cpuArea(cpu).TimerWrites }

// armedFor reports whether a timer armed at armedAt for deadline has surely not fired by now.
// The count ArmTimer converts a deadline to is off by the calibration's error (about 0.2%), so
// the interrupt may come that much of the interval early; a timer is taken as still armed only
// until a sixteenth of the interval before its deadline, and never when the interval was short.
//
//go:nosplit
func armedFor(deadline, armedAt, now uint64) bool {
	if deadline <= armedAt || now < armedAt {
		return false
	}
	return now < deadline-(deadline-armedAt)/16
}

// EOI acknowledges the interrupt being handled to the local APIC.
//
//go:nosplit
func EOI() { lapicWrite(lapicEOI, 0) }

// Random returns 64 bits from RDRAND when the CPU has it (CPUID.1:ECX bit 30).
func Random() (uint64, bool) {
	_, _, c, _ := cpuid(1, 0)
	if c&(1<<30) == 0 {
		return 0, false
	}
	for i := 0; i < 10; i++ {
		if v, ok := rdrand(); ok {
			return v, true
		}
	}
	return 0, false
}
