package core

import (
	"encoding/binary"
	"math/bits"

	"github.com/unitrace/unitrace/kernel/abi"
	"github.com/unitrace/unitrace/kernel/machine"

	"github.com/unitrace/unitrace/kernel/mm"
	"github.com/unitrace/unitrace/kernel/ptimer"
)

// CPU time: the scheduler counts each thread's run time and, within it, the system time: how far
// its CPU's kernel clock moved during the run (kernel/sched/cputime.go). The entry stubs keep
// that clock, per CPU and in counter ticks: the time from a thread's trap to the return into a
// Thread (machine.KernelClock). The clocks of clock_gettime, getrusage, times and the CPU-time timers
// read it here.

// KernelClock is the scheduler's KernelClock: CPU c's kernel clock at now, in ns. The stubs'
// ticks are converted once, at the end, so that the reading never goes back: not as a stretch
// ends (its ticks move from the running part into the total), nor from one reading to the next.
func KernelClock(c int, now int64) int64 {
	since, total := machine.KernelClock(c)
	if since != 0 {
		if t := nsToTicks(now); t > since {
			total += t - since
		}
	}
	_, mult := machine.ClockParams()
	hi, lo := bits.Mul64(total, mult)
	return int64(hi<<32 | lo>>32)
}

// threadTimes is the CPU time of the thread in slot and its system part.
func threadTimes(slot int32) (total, system int64) {
	return Scheduler.Times(slot, machine.Nanotime(), KernelClock)
}

// threadCPUNanos is the CPU time the running thread has used.
func threadCPUNanos() int64 { return Scheduler.CPUTime(CurSlot(), machine.Nanotime()) }

// processCPUNanos is the CPU time all of the program's threads have used, including the time
// of those running on other CPUs now.
func processCPUNanos() int64 { return Scheduler.ProcessCPUTime(machine.Nanotime()) }

// clockRead reads clock c as a timer sees it: the monotonic clock for a wall-clock timer, or a
// CPU-time clock.
func clockRead(c ptimer.Clock) int64 {
	now := machine.Nanotime()
	switch c.Kind {
	case ptimer.ThreadCPU, ptimer.ThreadUser:
		total, sys := Scheduler.Times(c.Thread, now, KernelClock)
		if c.Kind == ptimer.ThreadUser {
			return total - sys
		}
		return total
	case ptimer.ProcessCPU, ptimer.ProcessUser:
		total, sys := Scheduler.ProcessTimes(now, KernelClock)
		if c.Kind == ptimer.ProcessUser {
			return total - sys
		}
		return total
	}
	return now
}

const TimerAbstime = 1 // TIMER_ABSTIME (include/uapi/linux/time.h)

// ClockKind says how a clock id reads.
type ClockKind uint8

const (
	ClockBad      ClockKind = iota
	clockWallTime           // realtime: the monotonic clock plus the boot's wall time
	clockMono               // monotonic, raw, coarse, boot time
	ClockCPU                // a CPU-time clock (clock.Kind and clock.Thread say which)
)

// ResolveClock turns a clock id into what reads it, for the calling thread: the fixed ids, and
// the CPU-time ids of this process or of one of its threads (ptimer.DecodeClockID). timers says
// whether a timer may run on it (the raw and coarse clocks have none, as on Linux).
func ResolveClock(id int32) (kind ClockKind, c ptimer.Clock, timers bool) {
	d := ptimer.DecodeClockID(id)
	wall := ptimer.Clock{Kind: ptimer.Wall}
	realtime := ptimer.Clock{Kind: ptimer.Wall, Realtime: true}
	switch {
	case !d.Valid:
		return ClockBad, ptimer.Clock{}, false
	case d.Static == ptimer.ClockRealtime, d.Static == ptimer.ClockRealtimeAlarm, d.Static == ptimer.ClockTAI:
		return clockWallTime, realtime, true
	case d.Static == ptimer.ClockRealtimeCoarse:
		return clockWallTime, realtime, false
	case d.Static == ptimer.ClockMonotonic, d.Static == ptimer.ClockBoottime, d.Static == ptimer.ClockBoottimeAlarm:
		return clockMono, wall, true
	case d.Static == ptimer.ClockMonotonicRaw, d.Static == ptimer.ClockMonotonicCoarse:
		return clockMono, wall, false
	case d.Static == ptimer.ClockProcessCPUTimeID:
		return ClockCPU, ptimer.Clock{Kind: ptimer.ProcessCPU}, true
	case d.Static == ptimer.ClockThreadCPUTimeID:
		return ClockCPU, ptimer.Clock{Kind: ptimer.ThreadCPU, Thread: CurSlot()}, true
	case d.PerThread:
		slot := CurSlot()
		if d.ID != 0 {
			if slot = SlotOfTID(d.ID); slot < 0 {
				return ClockBad, ptimer.Clock{}, false
			}
		}
		c = ptimer.Clock{Kind: ptimer.ThreadCPU, Thread: slot}
		if d.UserOnly {
			c.Kind = ptimer.ThreadUser
		}
		return ClockCPU, c, true
	case d.ID != 0 && d.ID != ProcessID:
		return ClockBad, ptimer.Clock{}, false
	}
	c = ptimer.Clock{Kind: ptimer.ProcessCPU}
	if d.UserOnly {
		c.Kind = ptimer.ProcessUser
	}
	return ClockCPU, c, true
}

// ClockNow reads clock id for the calling thread.
func ClockNow(id int32) (int64, bool) {
	kind, c, _ := ResolveClock(id)
	switch kind {
	case clockWallTime:
		return BootWallNanos + machine.Nanotime(), true
	case clockMono:
		return machine.Nanotime(), true
	case ClockCPU:
		return clockRead(c), true
	}
	return 0, false
}

// struct rusage (include/uapi/linux/resource.h): two timevals, then fourteen longs.
const (
	rusageSize     = 144
	rusageMaxRSS   = 32 // ru_maxrss, in KiB
	rusageNVCSW    = 128
	rusageSelf     = 0
	rusageChildren = -1
	rusageThread   = 1
)

func DoGetrusage(who int32, addr uintptr) uint64 {
	var total, sys int64
	switch who {
	case rusageSelf:
		total, sys = Scheduler.ProcessTimes(machine.Nanotime(), KernelClock)
	case rusageThread:
		total, sys = threadTimes(CurSlot())
	case rusageChildren: // no children: all zero
	default:
		return abi.Neg(abi.EINVAL)
	}
	b, ok := UserBytes(addr, rusageSize, true)
	if !ok {
		return abi.Neg(abi.EFAULT)
	}
	clear(b)
	PutTimeval(b[0:], total-sys)
	PutTimeval(b[16:], sys)
	if who != rusageChildren {
		binary.LittleEndian.PutUint64(b[rusageMaxRSS:], residentKiB())
	}
	return 0
}

// userHz is the unit of times(2) (USER_HZ, include/asm-generic/param.h).
const userHz = 100

func DoTimes(addr uintptr) uint64 {
	if addr != 0 {
		b, ok := UserBytes(addr, 32, true) // struct tms: four clock_t
		if !ok {
			return abi.Neg(abi.EFAULT)
		}
		total, sys := Scheduler.ProcessTimes(machine.Nanotime(), KernelClock)
		clear(b)
		binary.LittleEndian.PutUint64(b[0:], uint64((total-sys)/(1e9/userHz)))
		binary.LittleEndian.PutUint64(b[8:], uint64(sys/(1e9/userHz)))
	}
	return uint64(machine.Nanotime() / (1e9 / userHz))
}

// PutTimeval stores ns as a struct timeval (16 bytes), rounded down to the microsecond.
func PutTimeval(b []byte, ns int64) {
	binary.LittleEndian.PutUint64(b[0:8], uint64(ns/1e9))
	binary.LittleEndian.PutUint64(b[8:16], uint64(ns%1e9/1e3))
}

// residentKiB is ru_maxrss: the most memory the machine has had allocated at once, in KiB (the
// kernel's own included: it and the program are one).
func residentKiB() uint64 { return Frames.Stats().HighWater * mm.PageSize / 1024 }
