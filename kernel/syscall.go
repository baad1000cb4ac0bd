package kernel

import (
	"github.com/unitrace/unitrace/kernel/fd"
	"github.com/unitrace/unitrace/trace"
)

// The system-call dispatcher. Each handler takes the trap Frame (so a blocking call can switch
// threads by rewriting it) and the six arguments, and returns the raw result (a value, or
// -errno); handlers that block return through the thread's wait completion instead, and say so
// with ok=false.

// syscall is the kernel's entry for a system call, before the kernel lock: it fires
// syscall_enter and serves the calls that need no lock (fastSyscall). It reports whether the
// call still has to run, under the lock (syscallLocked).
func syscall(f *Frame) (needsLock bool) {
	if opts.debugFault {
		crashForTest()
	}
	nr := sysNum(f)
	a := [6]uint64{}
	sysArgs(f, &a)
	tpSyscallEnter.Emit4(nr, a[0], a[1], a[2])
	if ret, ok := fastSyscall(nr, &a); ok {
		setSysRet(f, ret)
		tpSyscallExit.Emit2(nr, ret)
		return false
	}
	return true
}

// syscallLocked runs the system call in f under the kernel lock.
func syscallLocked(f *Frame) {
	nr := sysNum(f)
	a := [6]uint64{}
	sysArgs(f, &a)
	tid := cur().tid // before dispatch: a blocking call switches threads
	cur().sysNr = nr
	ret, done := dispatch(f, nr, &a)
	if done {
		setSysRet(f, ret)
		tpSyscallExit.Emit2(nr, ret)
	} else if nr == sysRtSigreturn && cur().tid == tid {
		tpSyscallExit.Emit2(nr, sysRet(f)) // the restored context's rax, as Linux reports it
	} // else syscall_exit fires when the wait completes (completeWait)
	if opts.strace {
		l := klog().s("[").d(int64(tid)).s("] ").s(syscallName(nr)).s("(").u(nr).s(")")
		for i := 0; i < 3; i++ {
			l.s(" ").x(a[i])
		}
		if done {
			l.s(" = ").d(int64(ret))
		} else {
			l.s(" blocked")
		}
		l.nl()
	}
}

// dispatch runs system call nr. done=false means the call blocked: the Frame now holds another
// thread, and the result will be stored when the blocked one completes.
func dispatch(f *Frame, nr uint64, a *[6]uint64) (ret uint64, done bool) {
	switch nr {
	case sysWrite:
		if fds.Kind(int(a[0])) == fd.KindDevice {
			return sysWriteDevice(f, int(a[0]), uintptr(a[1]), uintptr(a[2]))
		}
		return sysWriteFD(int(a[0]), uintptr(a[1]), uintptr(a[2])), true
	case sysRead:
		return sysReadFD(f, int(a[0]), uintptr(a[1]), uintptr(a[2]))
	case sysClose:
		return errnoOr(fds.Close(int(a[0])), 0), true
	case sysMmap:
		return sysMmapImpl(uintptr(a[0]), uintptr(a[1]), uint32(a[2]), uint32(a[3]), int32(a[4]), a[5]), true
	case sysMunmap:
		return sysMunmapImpl(uintptr(a[0]), uintptr(a[1])), true
	case sysMprotect:
		return sysMprotectImpl(uintptr(a[0]), uintptr(a[1]), uint32(a[2])), true
	case sysMadvise:
		return sysMadviseImpl(uintptr(a[0]), uintptr(a[1]), int(a[2])), true
	case sysBrk:
		return 0, true // no heap break: the runtime never uses brk on linux/amd64
	case sysRtSigaction:
		return sysSigaction(int(a[0]), uintptr(a[1]), uintptr(a[2]), uintptr(a[3])), true
	case sysRtSigprocmask:
		return sysSigprocmask(int(a[0]), uintptr(a[1]), uintptr(a[2]), uintptr(a[3])), true
	case sysSigaltstack:
		return sysSigaltstackImpl(f, uintptr(a[0]), uintptr(a[1])), true
	case sysRtSigreturn:
		return sysSigreturn(f)
	case sysSchedYield:
		setSysRet(f, 0)
		tpSyscallExit.Emit2(nr, 0) // yield switches threads without a wait to complete
		yield(f)
		return 0, false
	case sysNanosleep:
		return sysNanosleepImpl(f, uintptr(a[0]), uintptr(a[1]))
	case sysClockNanosleep:
		return sysClockNanosleepImpl(f, int(a[0]), int(a[1]), uintptr(a[2]), uintptr(a[3]))
	case sysGetpid:
		return processID, true
	case sysGetppid:
		return 0, true
	case sysGettid:
		return uint64(cur().tid), true
	case sysGetuid, sysGetgid, sysGeteuid, sysGetegid:
		return 0, true
	case sysClone:
		flags, stack, ptid, ctid, tls := cloneArgs(a)
		return sysCloneImpl(f, flags, stack, ptid, ctid, tls), true
	case sysExit:
		sysExitThread(f, int(a[0]))
		return 0, false
	case sysExitGroup:
		exitGroup(int(a[0]))
		return 0, false
	case sysTgkill:
		return sysTgkillImpl(f, int32(a[0]), int32(a[1]), int(a[2])), true
	case sysTkill:
		return sysTgkillImpl(f, processID, int32(a[0]), int(a[1])), true
	case sysKill:
		return sysKillImpl(f, int32(a[0]), int(a[1])), true
	case sysFcntl:
		r, e := fds.Fcntl(int(a[0]), int(a[1]), uintptr(a[2]))
		return errnoOr(e, uint64(r)), true
	case sysArchPrctl:
		return sysArchPrctlImpl(f, int(a[0]), uintptr(a[1])), true
	case sysPrctl:
		return neg(EINVAL), true // PR_SET_VMA naming and the rest: the runtime stops asking
	case sysFutex:
		return sysFutexImpl(f, uintptr(a[0]), int(a[1]), uint32(a[2]), uintptr(a[3]))
	case sysSchedGetaffinity:
		return sysSchedGetaffinityImpl(int32(a[0]), uintptr(a[1]), uintptr(a[2])), true
	case sysSchedSetaffinity:
		return sysSchedSetaffinityImpl(int32(a[0]), uintptr(a[1]), uintptr(a[2])), true
	case sysSchedSetscheduler:
		return sysSchedSetschedulerImpl(int32(a[0]), int(a[1]), uintptr(a[2])), true
	case sysSchedGetscheduler:
		return sysSchedGetschedulerImpl(int32(a[0])), true
	case sysSchedGetparam:
		return sysSchedGetparamImpl(int32(a[0]), uintptr(a[1])), true
	case sysSetTidAddress:
		cur().clearChild = uintptr(a[0])
		return uint64(cur().tid), true
	case sysClockGettime:
		return sysClockGettimeImpl(int(a[0]), uintptr(a[1])), true
	case sysClockGetres:
		return sysClockGetresImpl(int(a[0]), uintptr(a[1])), true
	case sysEpollCreate1:
		r, e := fds.EpollCreate(int(a[0]))
		return errnoOr(e, uint64(r)), true
	case sysEpollCtl:
		return sysEpollCtlImpl(int(a[0]), int(a[1]), int(a[2]), uintptr(a[3])), true
	case sysEpollPwait, sysEpollPwait2:
		return sysEpollPwaitImpl(f, nr, int(a[0]), uintptr(a[1]), int(a[2]), a[3])
	case sysEventfd2:
		r, e := fds.Eventfd(uint32(a[0]), int(a[1]))
		return errnoOr(e, uint64(r)), true
	case sysOpen, sysOpenat:
		return neg(ENOENT), true // no file system: the runtime probes /sys and /proc files
	case sysPrlimit64, sysSetitimer, sysRseq, sysMincore:
		return neg(ENOSYS), true // optional for the runtime; no need to report them
	case sysGetrandom:
		return sysGetrandomImpl(uintptr(a[0]), uintptr(a[1])), true
	case sysUname:
		return sysUnameImpl(uintptr(a[0])), true
	case sysIoctl:
		return neg(ENOTTY), true
	case trace.SysDrain:
		return tracePortCall(f, opTraceDrain, a[0], 0, 0)
	case trace.SysSend:
		return tracePortCall(f, opTraceSend, a[0], uintptr(a[1]), uintptr(a[2]))
	case trace.SysCtl:
		return traceCtl(a[0], a[1], a[2]), true
	}
	reportUnknownSyscall(nr)
	return neg(ENOSYS), true
}

func errnoOr(errno int, v uint64) uint64 {
	if errno != 0 {
		return neg(errno)
	}
	return v
}

// reportUnknownSyscall prints each unknown system call once.
func reportUnknownSyscall(nr uint64) {
	if nr < uint64(len(reportedSyscalls)) {
		if reportedSyscalls[nr] {
			return
		}
		reportedSyscalls[nr] = true
	}
	klog().s("unknown system call ").u(nr).s(" (").s(syscallName(nr)).s(") returns ENOSYS").nl()
}

var reportedSyscalls [512]bool

func nanotime() int64 { return archNanotime() }
