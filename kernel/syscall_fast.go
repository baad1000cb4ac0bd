package kernel

import "github.com/unitrace/unitrace/kernel/ptimer"

// System calls served without the kernel lock. The Go runtime reads the clock through a system
// call many thousand times a second (there is no vDSO here), and its idle Ms call sched_yield
// and gettid in their spin loops; under one kernel lock these would serialise every CPU for
// nothing, since they only read the caller's own state, constants or the clock. Each is served here when
// its user memory is already present (a page to fault in needs the lock), else it falls back to
// the ordinary, locked path. syscall (syscall.go) fires the tracepoints for both.

// fastSyscall serves system call nr with arguments a if it can do so without the kernel lock,
// and reports whether it did.
func fastSyscall(nr uint64, a *syscallArgs) (ret uint64, ok bool) {
	if opts.strace {
		return 0, false // the ordinary path prints every call
	}
	switch nr {
	case nrClockGettime:
		id := int32(a[0])
		if id < 0 || id == ptimer.ClockProcessCPUTimeID {
			return 0, false // reads every thread, or looks one up
		}
		now, ok := clockNow(id)
		if !ok {
			return 0, false
		}
		b, ok := presentUserBytes(uintptr(a[1]), 16)
		if !ok {
			return 0, false
		}
		putTimespec(b, now)
		return 0, true
	case nrGettid:
		return uint64(cur().tid), true
	case nrGetpid:
		return processID, true
	case nrGetppid, nrGetuid, nrGeteuid, nrGetgid, nrGetegid:
		return 0, true // no parent; root: constants, as their locked handlers answer
	case nrSchedYield:
		// With nobody waiting who may run here, yielding is a no-op; otherwise yield for real.
		return 0, !runnableHere()
	}
	return 0, false
}

// presentUserBytes returns n bytes of user memory at addr, writable, if every page of it is
// already present and writable in the page tables; it never faults a page in (that takes the
// lock).
func presentUserBytes(addr, n uintptr) ([]byte, bool) {
	end := addr + n
	if end < addr || addr < identEnd || end > userHi {
		return nil, false
	}
	for p := addr &^ (pageSize - 1); p < end; p += pageSize {
		if _, flags, ok := archLookup(p); !ok || !archWritable(flags) {
			return nil, false
		}
	}
	return bytesAt(addr, n), true
}
