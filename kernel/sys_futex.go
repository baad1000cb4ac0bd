package kernel

import (
	"encoding/binary"

	"github.com/unitrace/unitrace/kernel/abi"
	"github.com/unitrace/unitrace/kernel/machine"
	"github.com/unitrace/unitrace/kernel/tp"

	"github.com/unitrace/unitrace/kernel/waitq"
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

// futexes holds every blocked thread, keyed by what it waits for: a futex word's address, or a
// synthetic key above the user address range (fdKey, portKey).
var futexes waitq.Table

// fdKey is what a thread blocked on descriptor fd waits for: epoll_pwait on an epoll instance,
// a blocking read of an eventfd. Whatever may change fd's readiness wakes it (wakeFDWaiters).
func fdKey(fd int) uintptr { return 1<<63 | uintptr(fd) }

// sysFutexImpl serves FUTEX_WAIT and FUTEX_WAKE (private or not: one process), with a relative
// CLOCK_MONOTONIC timeout for WAIT, and their BITSET forms with a full mask (absolute timeout).
// The compare is on the 32-bit word, as Linux does: the runtime waits with val = 0xffffffff.
func sysFutexImpl(f *machine.Frame, uaddr uintptr, op int, val uint32, timeout uintptr, val3 uint32) (uint64, bool) {
	cmd := op &^ (futexPrivateFlag | futexClockRT)
	// Linux's order: the timeout first (for the operations that take one), then
	// FUTEX_CLOCK_REALTIME (only WAIT_BITSET, WAIT_REQUEUE_PI and LOCK_PI2 take it), then the
	// operation, its bitset, and the word's alignment and address.
	var ns int64
	if timeout != 0 && futexHasTimeout(cmd) {
		v, ok := readTimespec(timeout)
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
	if uaddr+4 > userHi {
		return abi.Neg(abi.EFAULT), true
	}
	if cmd == futexOpWake || cmd == futexWakeBitset {
		// A shared futex's key is its page: Linux faults on an unmapped word.
		if op&futexPrivateFlag == 0 {
			if _, ok := readUser32(uaddr); !ok {
				return abi.Neg(abi.EFAULT), true
			}
		}
		return uint64(futexWake(uaddr, int(int32(val)))), true
	}
	word, ok := readUser32(uaddr)
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
			deadline = nanotime() + ns
		}
		if deadline <= nanotime() {
			return abi.Neg(abi.ETIMEDOUT), true
		}
	}
	tp.FutexWait.Emit2(uint64(uaddr), uint64(val))
	if !futexes.Enqueue(uaddr, curSlot()) {
		return abi.Neg(abi.ENOMEM), true
	}
	cur().deadline = deadline
	if deadline != 0 {
		sleepUntil(deadline, 0)
	}
	block(f, waitFutex)
	return 0, false
}

// futexWake wakes up to n threads waiting on uaddr and returns how many it woke.
func futexWake(uaddr uintptr, n int) int {
	if n <= 0 {
		return 0
	}
	if n > len(woken) {
		n = len(woken)
	}
	k := futexes.Wake(uaddr, n, woken[:])
	for i := 0; i < k; i++ {
		wake(woken[i], false)
	}
	if uaddr < 1<<47 {
		tp.FutexWake.Emit2(uint64(uaddr), uint64(k)) // real futex words, not the kernel's own keys
	}
	return k
}

// completeWait finishes the system call of a thread that blocked, now that it runs again: it
// stores the result in f, or blocks the thread again if the wake-up was spurious.
func completeWait(f *machine.Frame, slot int32) {
	t := &threads[slot]
	kind := t.wait
	t.wait = waitNone
	if t.interrupted {
		t.interrupted = false
		tp.SyscallExit.Emit2(t.sysNr, completeInterrupted(f, slot, kind))
		return
	}
	switch kind {
	case waitFutex:
		if t.timedOut {
			machine.SetSysRet(f, abi.Neg(abi.ETIMEDOUT))
		} else {
			machine.SetSysRet(f, 0)
		}
	case waitSleep:
		machine.SetSysRet(f, 0)
	case waitEpoll:
		n, errno := epollCollect(int(t.waitFD), t.waitAddr, int(t.waitCount))
		switch {
		case errno != 0:
			machine.SetSysRet(f, abi.Neg(errno))
		case n > 0 || t.timedOut:
			machine.SetSysRet(f, uint64(n))
		default:
			t.wait = kind
			rearm(slot, fdKey(int(t.waitFD)))
		}
	case waitDevice:
		completeDeviceWait(f, slot)
	case waitPipe:
		completePipeWait(f, slot)
	case waitFIFO:
		completeFIFOWait(f, slot)
	case waitLock:
		completeLockWait(f, slot)
	case waitRerun:
		completeRerun(f, slot)
	case waitConsole:
		completeConsoleWait(f, slot)
	case waitPoll:
		completePollWait(f, slot)
	case waitNet:
		completeNetWait(f, slot)
	case waitShare:
		completeShareWait(f, slot)
	case waitSplice:
		completeSpliceWait(f, slot)
	case waitEventfd:
		if ret, done := counterRead(int(t.waitFD), t.waitAddr); done {
			machine.SetSysRet(f, ret)
		} else {
			t.wait = kind
			rearm(slot, fdKey(int(t.waitFD)))
		}
	}
	if t.wait == waitNone && kind != waitNone {
		tp.SyscallExit.Emit2(t.sysNr, machine.SysRet(f)) // the pair of the syscall_enter before the wait
	}
}

// readTimespec reads a struct timespec and returns it in nanoseconds, or -1 if it is invalid.
func readTimespec(addr uintptr) (int64, bool) {
	b, ok := userBytes(addr, 16, false)
	if !ok {
		return 0, false
	}
	sec, nsec := int64(binary.LittleEndian.Uint64(b[0:8])), int64(binary.LittleEndian.Uint64(b[8:16]))
	if sec < 0 || nsec < 0 || nsec >= 1e9 {
		return -1, true
	}
	if sec > (1<<62)/1_000_000_000 {
		sec = (1 << 62) / 1_000_000_000 // far enough in the future
	}
	return sec*1e9 + nsec, true
}

func writeTimespec(addr uintptr, ns int64) bool {
	b, ok := userBytes(addr, 16, true)
	if !ok {
		return false
	}
	putTimespec(b, ns)
	return true
}

// putTimespec stores ns as a struct timespec in b (16 bytes).
func putTimespec(b []byte, ns int64) {
	binary.LittleEndian.PutUint64(b[0:8], uint64(ns/1e9))
	binary.LittleEndian.PutUint64(b[8:16], uint64(ns%1e9))
}

// bootWallNanos is the wall-clock time at monotonic zero, from the CMOS clock at boot.
var bootWallNanos int64

func wallOffset() int64 { return bootWallNanos }

func sysClockGettimeImpl(id int32, ts uintptr) uint64 {
	now, ok := clockNow(id)
	if !ok {
		return abi.Neg(abi.EINVAL)
	}
	if !writeTimespec(ts, now) {
		return abi.Neg(abi.EFAULT)
	}
	return 0
}

func sysClockGetresImpl(id int32, ts uintptr) uint64 {
	if _, ok := clockNow(id); !ok {
		return abi.Neg(abi.EINVAL)
	}
	if ts != 0 && !writeTimespec(ts, 1) {
		return abi.Neg(abi.EFAULT)
	}
	return 0
}

func sysNanosleepImpl(f *machine.Frame, req, rem uintptr) (uint64, bool) {
	ns, ok := readTimespec(req)
	if !ok {
		return abi.Neg(abi.EFAULT), true
	}
	if ns < 0 {
		return abi.Neg(abi.EINVAL), true
	}
	return sleepFor(f, nanotime()+ns, rem)
}

// sysClockNanosleepImpl is clock_nanosleep(id, flags, req, rem): a sleep on clock id, relative
// or (TIMER_ABSTIME) to an absolute time.
//
// In Linux's order: a clock that does not exist EINVAL, one that cannot sleep (the coarse
// clocks, CLOCK_MONOTONIC_RAW, a dynamic clock's descriptor) EOPNOTSUPP, then the request
// (EFAULT, EINVAL), and only then a CPU-time clock's own checks: sleeping on one is not served
// here (EINVAL, Linux's answer for a thread's; a process's it would sleep on), nor on a
// negative id that names no process or thread.
func sysClockNanosleepImpl(f *machine.Frame, id int32, flags int, req, rem uintptr) (uint64, bool) {
	const clockFDMask, clockFD = 7, 3
	kind, _, canSleep := resolveClock(id)
	switch {
	case id < 0 && id&clockFDMask == clockFD:
		return abi.Neg(abi.EOPNOTSUPP), true
	case kind == clockBad && id >= 0:
		return abi.Neg(abi.EINVAL), true
	case kind != clockBad && kind != clockCPU && !canSleep:
		return abi.Neg(abi.EOPNOTSUPP), true
	}
	ns, ok := readTimespec(req)
	if !ok {
		return abi.Neg(abi.EFAULT), true
	}
	if ns < 0 {
		return abi.Neg(abi.EINVAL), true
	}
	if kind == clockCPU || kind == clockBad {
		return abi.Neg(abi.EINVAL), true
	}
	now, ok := clockNow(id)
	if !ok {
		return abi.Neg(abi.EINVAL), true
	}
	deadline := nanotime() + ns
	if flags&timerAbstime != 0 {
		deadline = nanotime() + (ns - now)
		rem = 0 // an absolute sleep has no time left to report
	}
	return sleepFor(f, deadline, rem)
}

// sleepFor blocks the running thread until deadline; a signal that interrupts the sleep writes
// the time left to rem, if not 0.
func sleepFor(f *machine.Frame, deadline int64, rem uintptr) (uint64, bool) {
	if deadline <= nanotime() {
		return 0, true
	}
	cur().deadline = deadline
	cur().waitAddr = rem
	sleepUntil(deadline, sleepSlack)
	block(f, waitSleep)
	return 0, false
}
