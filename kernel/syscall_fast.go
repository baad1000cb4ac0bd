package kernel

// System calls served without the kernel lock. The Go runtime reads the clock through a system
// call many thousand times a second (there is no vDSO here), and its idle Ms call sched_yield
// and gettid in their spin loops; under one kernel lock these would serialise every CPU for
// nothing, since they only read the caller's own state or the clock. Each is served here when
// its user memory is already present (a page to fault in needs the lock), else it falls back to
// the ordinary, locked path. Tracepoints fire as on that path.

// fastSyscall serves the system call in f if it can do so without the kernel lock, and reports
// whether it did.
func fastSyscall(f *Frame) bool {
	if opts.strace || opts.debugFault {
		return false // the ordinary path prints and crashes for these
	}
	nr := sysNum(f)
	var a [6]uint64
	sysArgs(f, &a)
	var ret uint64
	switch nr {
	case sysClockGettime:
		id := int(a[0])
		if id == clockProcessCPU {
			return false // reads every thread
		}
		now, ok := clockNow(id)
		if !ok {
			return false
		}
		b, ok := presentUserBytes(uintptr(a[1]), 16)
		if !ok {
			return false
		}
		putTimespec(b, now)
	case sysGettid:
		ret = uint64(cur().tid)
	case sysGetpid:
		ret = processID
	case sysSchedYield:
		if schedHints.runnable.Load() != 0 {
			return false // someone may be waiting for this CPU: yield for real
		}
	default:
		return false
	}
	tpSyscallEnter.Emit4(nr, a[0], a[1], a[2])
	setSysRet(f, ret)
	tpSyscallExit.Emit2(nr, ret)
	return true
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
