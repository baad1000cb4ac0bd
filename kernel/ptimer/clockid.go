package ptimer

// Clock ids (include/uapi/linux/time.h), and the CPU-time clock ids built from a pid or a tid
// (include/linux/posix-timers_types.h: CPUCLOCK_PID, CPUCLOCK_PERTHREAD_MASK, CPUCLOCK_WHICH).
const (
	ClockRealtime         = 0
	ClockMonotonic        = 1
	ClockProcessCPUTimeID = 2
	ClockThreadCPUTimeID  = 3
	ClockMonotonicRaw     = 4
	ClockRealtimeCoarse   = 5
	ClockMonotonicCoarse  = 6
	ClockBoottime         = 7
	ClockRealtimeAlarm    = 8
	ClockBoottimeAlarm    = 9
	ClockTAI              = 11

	cpuclockPerthread = 4 // the id names a thread's clock, else a process's
	cpuclockWhichMask = 3 // CPUCLOCK_PROF (user+system), VIRT (user), SCHED (run time)
	cpuclockVirt      = 1
	cpuclockFD        = 3 // a clock behind a descriptor (FD_TO_CLOCKID)
)

// ClockID is what a clock id names.
type ClockID struct {
	Valid bool
	// Static is the id itself for the fixed clocks (CLOCK_REALTIME ... CLOCK_TAI); -1 for a
	// dynamic CPU-time clock.
	Static int32
	// For a dynamic CPU-time clock: whose (a pid, or a tid with PerThread; 0 is the caller's
	// own) and whether it counts user time only (CPUCLOCK_VIRT).
	ID        int32
	PerThread bool
	UserOnly  bool
}

// DecodeClockID decodes a clock id as Linux's clock_gettime and timer_create do: the fixed
// clocks, and negative ids that name a process's or a thread's CPU-time clock. A clock behind a
// descriptor (whose low bits are 3) and the unused numbers are not valid.
func DecodeClockID(id int32) ClockID {
	switch id {
	case ClockRealtime, ClockMonotonic, ClockProcessCPUTimeID, ClockThreadCPUTimeID, ClockMonotonicRaw,
		ClockRealtimeCoarse, ClockMonotonicCoarse, ClockBoottime, ClockRealtimeAlarm, ClockBoottimeAlarm, ClockTAI:
		return ClockID{Valid: true, Static: id}
	}
	if id >= 0 || id&cpuclockWhichMask == cpuclockFD {
		return ClockID{}
	}
	return ClockID{
		Valid:     true,
		Static:    -1,
		ID:        ^(id >> 3),
		PerThread: id&cpuclockPerthread != 0,
		UserOnly:  id&cpuclockWhichMask == cpuclockVirt,
	}
}

// ThreadClockID is the clock id of thread tid's CPU time (MAKE_THREAD_CPUCLOCK(tid,
// CPUCLOCK_SCHED)), as pthread_getcpuclockid builds it.
func ThreadClockID(tid int32) int32 { return ^tid<<3 | cpuclockPerthread | 2 }

// ProcessClockID is the clock id of process pid's CPU time (MAKE_PROCESS_CPUCLOCK(pid,
// CPUCLOCK_SCHED)), as clock_getcpuclockid builds it.
func ProcessClockID(pid int32) int32 { return ^pid<<3 | 2 }
