package syscalls

import (
	"github.com/unitrace/unitrace/kernel/abi"
	"github.com/unitrace/unitrace/kernel/core"
	"github.com/unitrace/unitrace/kernel/machine"
	"github.com/unitrace/unitrace/kernel/tp"
)

// futex, sleeping and clocks.

const (
	futexOpWait      = 0
	futexOpWake      = 1
	futexPrivateFlag = 128
	futexClockRT     = 256
	futexWaitBitset  = 9
	futexWakeBitset  = 10

	futexLockPI        = 6
	futexWaitRequeuePI = 11
	futexLockPI2       = 13
)

// futexHasTimeout reports whether Linux reads operation cmd's timeout argument as a timespec.
func futexHasTimeout(cmd int) bool {
	switch cmd {
	case futexOpWait, futexWaitBitset, futexLockPI, futexWaitRequeuePI, futexLockPI2:
		return true
	}
	return false
}

// Futex serves FUTEX_WAIT and FUTEX_WAKE (private or not: one process), with a relative
// CLOCK_MONOTONIC timeout for WAIT, and their BITSET forms with a full mask (absolute timeout).
// The compare is on the 32-bit word, as Linux does: the runtime waits with val = 0xffffffff.
func Futex(f *machine.Frame, a machine.SyscallArgs) (uint64, bool) {
	uaddr := uintptr(a[0])
	op := int(a[1])
	val := uint32(a[2])
	timeout := uintptr(a[3])
	val3 := uint32(a[5])
	cmd := op &^ (futexPrivateFlag | futexClockRT)
	// Linux's order: the timeout first (for the operations that take one), then
	// FUTEX_CLOCK_REALTIME (only WAIT_BITSET, WAIT_REQUEUE_PI and LOCK_PI2 take it), then the
	// operation, its bitset, and the word's alignment and address.
	var ns int64
	if timeout != 0 && futexHasTimeout(cmd) {
		v, ok := core.ReadTimespec(timeout)
		if !ok {
			return abi.Neg(abi.EFAULT), true
		}
		if v < 0 {
			return abi.Neg(abi.EINVAL), true
		}
		ns = v
	}
	if op&futexClockRT != 0 && cmd != futexWaitBitset && cmd != futexWaitRequeuePI && cmd != futexLockPI2 {
		return abi.Neg(abi.ENOSYS), true
	}
	switch cmd {
	case futexOpWake, futexWakeBitset, futexOpWait, futexWaitBitset:
	default:
		return abi.Neg(abi.ENOSYS), true
	}
	if (cmd == futexWakeBitset || cmd == futexWaitBitset) && val3 == 0 {
		return abi.Neg(abi.EINVAL), true
	}
	if uaddr&3 != 0 {
		return abi.Neg(abi.EINVAL), true
	}
	if uaddr+4 > core.UserHi {
		return abi.Neg(abi.EFAULT), true
	}
	if cmd == futexOpWake || cmd == futexWakeBitset {
		// A shared futex's key is its page: Linux faults on an unmapped word.
		if op&futexPrivateFlag == 0 {
			if _, ok := core.ReadUser32(uaddr); !ok {
				return abi.Neg(abi.EFAULT), true
			}
		}
		return uint64(core.FutexWake(uaddr, int(int32(val)))), true
	}
	word, ok := core.ReadUser32(uaddr)
	if !ok {
		return abi.Neg(abi.EFAULT), true
	}
	if word != val {
		return abi.Neg(abi.EAGAIN), true
	}
	var deadline int64
	if timeout != 0 {
		if cmd == futexWaitBitset {
			if op&futexClockRT != 0 {
				ns -= wallOffset()
			}
			deadline = ns
		} else {
			deadline = machine.Nanotime() + ns
		}
		if deadline <= machine.Nanotime() {
			return abi.Neg(abi.ETIMEDOUT), true
		}
	}
	tp.FutexWait.Emit2(uint64(uaddr), uint64(val))
	if !core.Waiters.Enqueue(uaddr, core.CurSlot()) {
		return abi.Neg(abi.ENOMEM), true
	}
	core.Cur().Deadline = deadline
	if deadline != 0 {
		core.SleepUntil(deadline, 0)
	}
	core.Block(f, core.WaitFutex)
	return 0, false
}

func wallOffset() int64 { return core.BootWallNanos }

func ClockGettime(_ *machine.Frame, a machine.SyscallArgs) (uint64, bool) {
	id := int32(a[0])
	ts := uintptr(a[1])
	now, ok := core.ClockNow(id)
	if !ok {
		return abi.Neg(abi.EINVAL), true
	}
	if !core.WriteTimespec(ts, now) {
		return abi.Neg(abi.EFAULT), true
	}
	return 0, true
}

func ClockGetres(_ *machine.Frame, a machine.SyscallArgs) (uint64, bool) {
	id := int32(a[0])
	ts := uintptr(a[1])
	if _, ok := core.ClockNow(id); !ok {
		return abi.Neg(abi.EINVAL), true
	}
	if ts != 0 && !core.WriteTimespec(ts, 1) {
		return abi.Neg(abi.EFAULT), true
	}
	return 0, true
}

func Nanosleep(f *machine.Frame, a machine.SyscallArgs) (uint64, bool) {
	req := uintptr(a[0])
	rem := uintptr(a[1])
	ns, ok := core.ReadTimespec(req)
	if !ok {
		return abi.Neg(abi.EFAULT), true
	}
	if ns < 0 {
		return abi.Neg(abi.EINVAL), true
	}
	return sleepFor(f, machine.Nanotime()+ns, rem)
}

// ClockNanosleep is clock_nanosleep(id, flags, req, rem): a sleep on clock id, relative
// or (TIMER_ABSTIME) to an absolute time.
//
// In Linux's order: a clock that does not exist EINVAL, one that cannot sleep (the coarse
// clocks, CLOCK_MONOTONIC_RAW, a dynamic clock's descriptor) EOPNOTSUPP, then the request
// (EFAULT, EINVAL), and only then a CPU-time clock's own checks: sleeping on one is not served
// here (EINVAL, Linux's answer for a thread's; a process's it would sleep on), nor on a
// negative id that names no process or thread.
func ClockNanosleep(f *machine.Frame, a machine.SyscallArgs) (uint64, bool) {
	id := int32(a[0])
	flags := int(a[1])
	req := uintptr(a[2])
	rem := uintptr(a[3])
	const clockFDMask, clockFD = 7, 3
	kind, _, canSleep := core.ResolveClock(id)
	switch {
	case id < 0 && id&clockFDMask == clockFD:
		return abi.Neg(abi.EOPNOTSUPP), true
	case kind == core.ClockBad && id >= 0:
		return abi.Neg(abi.EINVAL), true
	case kind != core.ClockBad && kind != core.ClockCPU && !canSleep:
		return abi.Neg(abi.EOPNOTSUPP), true
	}
	ns, ok := core.ReadTimespec(req)
	if !ok {
		return abi.Neg(abi.EFAULT), true
	}
	if ns < 0 {
		return abi.Neg(abi.EINVAL), true
	}
	if kind == core.ClockCPU || kind == core.ClockBad {
		return abi.Neg(abi.EINVAL), true
	}
	now, ok := core.ClockNow(id)
	if !ok {
		return abi.Neg(abi.EINVAL), true
	}
	deadline := machine.Nanotime() + ns
	if flags&core.TimerAbstime != 0 {
		deadline = machine.Nanotime() + (ns - now)
		rem = 0 // an absolute sleep has no time left to report
	}
	return sleepFor(f, deadline, rem)
}

// sleepFor blocks the running thread until deadline; a signal that interrupts the sleep writes
// the time left to rem, if not 0.
func sleepFor(f *machine.Frame, deadline int64, rem uintptr) (uint64, bool) {
	if deadline <= machine.Nanotime() {
		return 0, true
	}
	core.Cur().Deadline = deadline
	core.Cur().WaitAddr = rem
	core.SleepUntil(deadline, core.SleepSlack)
	core.Block(f, core.WaitSleep)
	return 0, false
}
