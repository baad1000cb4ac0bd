package syscalls

import (
	"github.com/unitrace/unitrace/kernel/abi"
	"github.com/unitrace/unitrace/kernel/core"
	"github.com/unitrace/unitrace/kernel/dev/console"
	"github.com/unitrace/unitrace/kernel/dev/serial"
	"github.com/unitrace/unitrace/kernel/fd"
	"github.com/unitrace/unitrace/kernel/machine"
	"github.com/unitrace/unitrace/kernel/observe"
	"github.com/unitrace/unitrace/kernel/syscalls/files"
	"github.com/unitrace/unitrace/kernel/tp"
)

// The system-call handlers that sysTable names (kernel/systab/calls.go lists which call each
// serves): each takes the arguments from their registers, in Linux's order for the call, and
// runs the call's implementation with them. The handlers of calls only some arches have are in
// syscall_handlers_<arch>.go.

// Descriptors.

func sysRead(f *machine.Frame, a machine.SyscallArgs) (uint64, bool) {
	return files.SysReadFD(f, int(a[0]), uintptr(a[1]), uintptr(a[2]))
}

func sysWrite(f *machine.Frame, a machine.SyscallArgs) (uint64, bool) {
	switch core.FDs.Kind(int(a[0])) {
	case fd.KindDevice:
		return files.SysWriteDevice(f, int(a[0]), uintptr(a[1]), uintptr(a[2]))
	case fd.KindPipe, fd.KindPair:
		return files.PipeCall(f, int(a[0]), true, false, uintptr(a[1]), uintptr(a[2]))
	case fd.KindSocket:
		return files.SockWrite(f, int(a[0]), uintptr(a[1]), uintptr(a[2]), false)
	}
	return files.SysWriteFD(int(a[0]), uintptr(a[1]), uintptr(a[2])), true
}

func sysClose(f *machine.Frame, a machine.SyscallArgs) (uint64, bool) {
	return files.CloseFD(int(a[0])), true
}

func sysFcntl(f *machine.Frame, a machine.SyscallArgs) (uint64, bool) {
	return files.SysFcntlImpl(f, int(a[0]), int(int32(a[1])), uintptr(a[2]))
}

func sysFlock(f *machine.Frame, a machine.SyscallArgs) (uint64, bool) {
	return files.SysFlockImpl(f, int(a[0]), int(int32(a[1])))
}

func sysDup(f *machine.Frame, a machine.SyscallArgs) (uint64, bool) {
	return files.SysDupImpl(int(a[0])), true
}

func sysDup3(f *machine.Frame, a machine.SyscallArgs) (uint64, bool) {
	return files.SysDup3Impl(int(a[0]), int(a[1]), int(a[2])), true
}

func sysEpollCreate1(f *machine.Frame, a machine.SyscallArgs) (uint64, bool) {
	r, e := core.FDs.EpollCreate(int(a[0]))
	return abi.ErrnoOr(e, uint64(r)), true
}

func sysEpollCtl(f *machine.Frame, a machine.SyscallArgs) (uint64, bool) {
	return files.SysEpollCtlImpl(int(a[0]), int(a[1]), int(a[2]), uintptr(a[3])), true
}

func sysEpollPwait(f *machine.Frame, a machine.SyscallArgs) (uint64, bool) {
	return files.SysEpollPwaitImpl(f, false, int(a[0]), uintptr(a[1]), int(a[2]), a[3], uintptr(a[4]), uintptr(a[5]))
}

func sysEpollPwait2(f *machine.Frame, a machine.SyscallArgs) (uint64, bool) {
	return files.SysEpollPwaitImpl(f, true, int(a[0]), uintptr(a[1]), int(a[2]), a[3], uintptr(a[4]), uintptr(a[5]))
}

func sysPipe2(f *machine.Frame, a machine.SyscallArgs) (uint64, bool) {
	return files.SysPipe2Impl(uintptr(a[0]), int(int32(a[1]))), true
}

func sysEventfd2(f *machine.Frame, a machine.SyscallArgs) (uint64, bool) {
	r, e := core.FDs.Eventfd(uint32(a[0]), int(a[1]))
	return abi.ErrnoOr(e, uint64(r)), true
}

func sysSplice(f *machine.Frame, a machine.SyscallArgs) (uint64, bool) {
	return files.SpliceCall(f, files.KindSplice, a)
}
func sysTee(f *machine.Frame, a machine.SyscallArgs) (uint64, bool) {
	return files.SpliceCall(f, files.KindTee, a)
}
func sysSendfile(f *machine.Frame, a machine.SyscallArgs) (uint64, bool) {
	return files.SpliceCall(f, files.KindSendfile, a)
}
func sysCopyFileRange(f *machine.Frame, a machine.SyscallArgs) (uint64, bool) {
	return files.SpliceCall(f, files.KindCopyFileRange, a)
}

// Files (sys_file.go, sys_namei.go).

func sysOpenat(f *machine.Frame, a machine.SyscallArgs) (uint64, bool) {
	return files.SysOpenatImpl(f, files.DirFDArg(a[0]), uintptr(a[1]), int(int32(a[2])), uint32(a[3]))
}

func sysPread64(f *machine.Frame, a machine.SyscallArgs) (uint64, bool) {
	return files.SysPreadImpl(int(a[0]), uintptr(a[1]), uintptr(a[2]), int64(a[3])), true
}

func sysPwrite64(f *machine.Frame, a machine.SyscallArgs) (uint64, bool) {
	return files.SysPwriteImpl(int(a[0]), uintptr(a[1]), uintptr(a[2]), int64(a[3])), true
}

func sysReadv(f *machine.Frame, a machine.SyscallArgs) (uint64, bool) {
	switch core.FDs.Kind(int(a[0])) {
	case fd.KindConsole:
		return console.Call(f, int(a[0]), true, uintptr(a[1]), uintptr(int32(a[2])))
	case fd.KindPipe, fd.KindPair:
		return files.PipeCall(f, int(a[0]), false, true, uintptr(a[1]), uintptr(int32(a[2])))
	case fd.KindSocket:
		return files.SockRead(f, int(a[0]), uintptr(a[1]), uintptr(int32(a[2])), true)
	}
	return files.VectorIO(int(a[0]), uintptr(a[1]), int(int32(a[2])), -1, false), true
}

func sysWritev(f *machine.Frame, a machine.SyscallArgs) (uint64, bool) {
	switch core.FDs.Kind(int(a[0])) {
	case fd.KindPipe, fd.KindPair:
		return files.PipeCall(f, int(a[0]), true, true, uintptr(a[1]), uintptr(int32(a[2])))
	case fd.KindSocket:
		return files.SockWrite(f, int(a[0]), uintptr(a[1]), uintptr(int32(a[2])), true)
	}
	return files.VectorIO(int(a[0]), uintptr(a[1]), int(int32(a[2])), -1, true), true
}

// sysPreadv and sysPwritev: the offset is one register on 64-bit machines (pos_l; pos_h is 0).
func sysPreadv(f *machine.Frame, a machine.SyscallArgs) (uint64, bool) {
	return vectorPos(a, false), true
}

func sysPwritev(f *machine.Frame, a machine.SyscallArgs) (uint64, bool) {
	return vectorPos(a, true), true
}

// vectorPos checks as Linux's do_preadv: a negative offset, then the descriptor (EBADF), then
// whether it can seek (ESPIPE), before the iovecs.
func vectorPos(a machine.SyscallArgs, write bool) uint64 {
	if int64(a[3]) < 0 {
		return abi.Neg(abi.EINVAL)
	}
	switch core.FDs.Kind(int(a[0])) {
	case fd.KindNone:
		return abi.Neg(abi.EBADF)
	case fd.KindFile:
	default:
		return abi.Neg(abi.ESPIPE)
	}
	return files.VectorIO(int(a[0]), uintptr(a[1]), int(int32(a[2])), int64(a[3]), write)
}

func sysLseek(f *machine.Frame, a machine.SyscallArgs) (uint64, bool) {
	return files.SysLseekImpl(int(a[0]), int64(a[1]), int(int32(a[2]))), true
}

func sysGetdents64(f *machine.Frame, a machine.SyscallArgs) (uint64, bool) {
	return files.SysGetdents64Impl(int(a[0]), uintptr(a[1]), uintptr(uint32(a[2]))), true
}

func sysFstat(f *machine.Frame, a machine.SyscallArgs) (uint64, bool) {
	return files.SysFstatImpl(int(a[0]), uintptr(a[1])), true
}

func sysNewfstatat(f *machine.Frame, a machine.SyscallArgs) (uint64, bool) {
	return files.SysNewfstatatImpl(files.DirFDArg(a[0]), uintptr(a[1]), uintptr(a[2]), int(int32(a[3]))), true
}

func sysStatx(f *machine.Frame, a machine.SyscallArgs) (uint64, bool) {
	return files.SysStatxImpl(files.DirFDArg(a[0]), uintptr(a[1]), int(int32(a[2])), uint32(a[3]), uintptr(a[4])), true
}

func sysFtruncate(f *machine.Frame, a machine.SyscallArgs) (uint64, bool) {
	return files.SysFtruncateImpl(int(a[0]), int64(a[1])), true
}

func sysTruncate(f *machine.Frame, a machine.SyscallArgs) (uint64, bool) {
	return files.SysTruncateImpl(uintptr(a[0]), int64(a[1])), true
}

func sysFsync(f *machine.Frame, a machine.SyscallArgs) (uint64, bool) {
	return files.SysFsyncImpl(int(a[0])), true
}
func sysFdatasync(f *machine.Frame, a machine.SyscallArgs) (uint64, bool) {
	return files.SysFsyncImpl(int(a[0])), true
}

func sysGetcwd(f *machine.Frame, a machine.SyscallArgs) (uint64, bool) {
	return files.SysGetcwdImpl(uintptr(a[0]), uintptr(a[1])), true
}

func sysChdir(f *machine.Frame, a machine.SyscallArgs) (uint64, bool) {
	return files.SysChdirImpl(uintptr(a[0])), true
}
func sysFchdir(f *machine.Frame, a machine.SyscallArgs) (uint64, bool) {
	return files.SysFchdirImpl(int(a[0])), true
}

func sysMkdirat(f *machine.Frame, a machine.SyscallArgs) (uint64, bool) {
	return files.SysMkdiratImpl(files.DirFDArg(a[0]), uintptr(a[1]), uint32(a[2])), true
}

func sysMknodat(f *machine.Frame, a machine.SyscallArgs) (uint64, bool) {
	return files.SysMknodatImpl(files.DirFDArg(a[0]), uintptr(a[1]), uint32(a[2]), uint32(a[3])), true
}

func sysUnlinkat(f *machine.Frame, a machine.SyscallArgs) (uint64, bool) {
	return files.SysUnlinkatImpl(files.DirFDArg(a[0]), uintptr(a[1]), int(int32(a[2]))), true
}

func sysRenameat(f *machine.Frame, a machine.SyscallArgs) (uint64, bool) {
	return files.SysRenameat2Impl(files.DirFDArg(a[0]), uintptr(a[1]), files.DirFDArg(a[2]), uintptr(a[3]), 0), true
}

func sysRenameat2(f *machine.Frame, a machine.SyscallArgs) (uint64, bool) {
	return files.SysRenameat2Impl(files.DirFDArg(a[0]), uintptr(a[1]), files.DirFDArg(a[2]), uintptr(a[3]), uint32(a[4])), true
}

func sysLinkat(f *machine.Frame, a machine.SyscallArgs) (uint64, bool) {
	return files.SysLinkatImpl(files.DirFDArg(a[0]), uintptr(a[1]), files.DirFDArg(a[2]), uintptr(a[3]), int(int32(a[4]))), true
}

func sysSymlinkat(f *machine.Frame, a machine.SyscallArgs) (uint64, bool) {
	return files.SysSymlinkatImpl(uintptr(a[0]), files.DirFDArg(a[1]), uintptr(a[2])), true
}

func sysReadlinkat(f *machine.Frame, a machine.SyscallArgs) (uint64, bool) {
	return files.SysReadlinkatImpl(files.DirFDArg(a[0]), uintptr(a[1]), uintptr(a[2]), int(int32(a[3]))), true
}

func sysFaccessat(f *machine.Frame, a machine.SyscallArgs) (uint64, bool) {
	return files.SysFaccessatImpl(files.DirFDArg(a[0]), uintptr(a[1]), uint32(a[2]), 0), true
}

func sysFaccessat2(f *machine.Frame, a machine.SyscallArgs) (uint64, bool) {
	return files.SysFaccessatImpl(files.DirFDArg(a[0]), uintptr(a[1]), uint32(a[2]), int(int32(a[3]))), true
}

func sysFchmod(f *machine.Frame, a machine.SyscallArgs) (uint64, bool) {
	return files.SysFchmodImpl(int(a[0]), uint32(a[1])), true
}

func sysFchmodat(f *machine.Frame, a machine.SyscallArgs) (uint64, bool) {
	return files.SysFchmodatImpl(files.DirFDArg(a[0]), uintptr(a[1]), uint32(a[2]), 0), true
}

func sysFchmodat2(f *machine.Frame, a machine.SyscallArgs) (uint64, bool) {
	return files.SysFchmodatImpl(files.DirFDArg(a[0]), uintptr(a[1]), uint32(a[2]), int(int32(a[3]))), true
}

func sysFchown(f *machine.Frame, a machine.SyscallArgs) (uint64, bool) {
	return files.SysFchownImpl(int(a[0])), true
}

func sysFchownat(f *machine.Frame, a machine.SyscallArgs) (uint64, bool) {
	return files.SysFchownatImpl(files.DirFDArg(a[0]), uintptr(a[1]), int(int32(a[4]))), true
}

func sysUtimensat(f *machine.Frame, a machine.SyscallArgs) (uint64, bool) {
	return files.SysUtimensatImpl(files.DirFDArg(a[0]), uintptr(a[1]), uintptr(a[2]), int(int32(a[3]))), true
}

func sysUmask(f *machine.Frame, a machine.SyscallArgs) (uint64, bool) {
	return files.SysUmaskImpl(uint32(a[0])), true
}

func sysStatfs(f *machine.Frame, a machine.SyscallArgs) (uint64, bool) {
	return files.SysStatfsImpl(uintptr(a[0]), uintptr(a[1])), true
}

func sysFstatfs(f *machine.Frame, a machine.SyscallArgs) (uint64, bool) {
	return files.SysFstatfsImpl(int(a[0]), uintptr(a[1])), true
}

// Memory.

func sysMmap(f *machine.Frame, a machine.SyscallArgs) (uint64, bool) {
	return SysMmapImpl(uintptr(a[0]), uintptr(a[1]), uint32(a[2]), uint32(a[3]), int32(a[4]), a[5]), true
}

func sysMunmap(f *machine.Frame, a machine.SyscallArgs) (uint64, bool) {
	return sysMunmapImpl(uintptr(a[0]), uintptr(a[1])), true
}

func sysMprotect(f *machine.Frame, a machine.SyscallArgs) (uint64, bool) {
	return SysMprotectImpl(uintptr(a[0]), uintptr(a[1]), uint32(a[2])), true
}

func sysMsync(f *machine.Frame, a machine.SyscallArgs) (uint64, bool) {
	return sysMsyncImpl(uintptr(a[0]), uintptr(a[1]), int(int32(a[2]))), true
}

func sysShmget(f *machine.Frame, a machine.SyscallArgs) (uint64, bool) {
	return sysShmgetImpl(int32(a[0]), uintptr(a[1]), int32(a[2])), true
}

func sysShmat(f *machine.Frame, a machine.SyscallArgs) (uint64, bool) {
	return sysShmatImpl(int32(a[0]), uintptr(a[1]), int32(a[2])), true
}

func sysShmdt(f *machine.Frame, a machine.SyscallArgs) (uint64, bool) {
	return sysShmdtImpl(uintptr(a[0])), true
}

func sysShmctl(f *machine.Frame, a machine.SyscallArgs) (uint64, bool) {
	return sysShmctlImpl(int32(a[0]), int32(a[1]), uintptr(a[2])), true
}

func sysMremap(f *machine.Frame, a machine.SyscallArgs) (uint64, bool) {
	return sysMremapImpl(uintptr(a[0]), uintptr(a[1]), uintptr(a[2]), uint32(a[3]), uintptr(a[4])), true
}

func sysMadvise(f *machine.Frame, a machine.SyscallArgs) (uint64, bool) {
	return sysMadviseImpl(uintptr(a[0]), uintptr(a[1]), int(a[2])), true
}

// sysBrk: there is no heap break; the Go runtime never uses brk.
func sysBrk(f *machine.Frame, a machine.SyscallArgs) (uint64, bool) { return 0, true }

// Signals.

func sysRtSigaction(f *machine.Frame, a machine.SyscallArgs) (uint64, bool) {
	return core.SysSigaction(int(a[0]), uintptr(a[1]), uintptr(a[2]), uintptr(a[3])), true
}

func sysRtSigprocmask(f *machine.Frame, a machine.SyscallArgs) (uint64, bool) {
	return core.SysSigprocmask(int(a[0]), uintptr(a[1]), uintptr(a[2]), uintptr(a[3])), true
}

func sysSigaltstack(f *machine.Frame, a machine.SyscallArgs) (uint64, bool) {
	return core.SysSigaltstackImpl(f, uintptr(a[0]), uintptr(a[1])), true
}

func sysRtSigreturn(f *machine.Frame, a machine.SyscallArgs) (uint64, bool) {
	return core.SysSigreturn(f)
}

func sysTgkill(f *machine.Frame, a machine.SyscallArgs) (uint64, bool) {
	return core.SysTgkillImpl(f, int32(a[0]), int32(a[1]), int(a[2])), true
}

func sysTkill(f *machine.Frame, a machine.SyscallArgs) (uint64, bool) {
	return core.SysTgkillImpl(f, core.ProcessID, int32(a[0]), int(a[1])), true
}

func sysKill(f *machine.Frame, a machine.SyscallArgs) (uint64, bool) {
	return core.SysKillImpl(f, int32(a[0]), int(a[1])), true
}

// Threads and scheduling.

func sysClone(f *machine.Frame, a machine.SyscallArgs) (uint64, bool) {
	flags, stack, ptid, ctid, tls := cloneArgs(&a)
	return sysCloneImpl(f, flags, stack, ptid, ctid, tls), true
}

func sysExit(f *machine.Frame, a machine.SyscallArgs) (uint64, bool) {
	sysExitThread(f, int(a[0]))
	return 0, false
}

func sysExitGroup(f *machine.Frame, a machine.SyscallArgs) (uint64, bool) {
	core.ExitGroup(int(a[0]))
	return 0, false
}

func sysSetTidAddress(f *machine.Frame, a machine.SyscallArgs) (uint64, bool) {
	core.Cur().ClearChild = uintptr(a[0])
	return uint64(core.Cur().Tid), true
}

func sysFutex(f *machine.Frame, a machine.SyscallArgs) (uint64, bool) {
	return sysFutexImpl(f, uintptr(a[0]), int(a[1]), uint32(a[2]), uintptr(a[3]), uint32(a[5]))
}

// sysSchedYield stores its result and fires syscall_exit itself: yield switches threads without
// a wait to complete.
func sysSchedYield(f *machine.Frame, a machine.SyscallArgs) (uint64, bool) {
	machine.SetSysRet(f, 0)
	tp.SyscallExit.Emit2(nrSchedYield, 0)
	core.Yield(f)
	return 0, false
}

func sysSchedGetaffinity(f *machine.Frame, a machine.SyscallArgs) (uint64, bool) {
	return sysSchedGetaffinityImpl(int32(a[0]), uintptr(a[1]), uintptr(a[2])), true
}

func sysSchedSetaffinity(f *machine.Frame, a machine.SyscallArgs) (uint64, bool) {
	return sysSchedSetaffinityImpl(int32(a[0]), uintptr(a[1]), uintptr(a[2])), true
}

func sysSchedSetscheduler(f *machine.Frame, a machine.SyscallArgs) (uint64, bool) {
	return sysSchedSetschedulerImpl(int32(a[0]), int(a[1]), uintptr(a[2])), true
}

func sysSchedGetscheduler(f *machine.Frame, a machine.SyscallArgs) (uint64, bool) {
	return sysSchedGetschedulerImpl(int32(a[0])), true
}

func sysSchedGetparam(f *machine.Frame, a machine.SyscallArgs) (uint64, bool) {
	return sysSchedGetparamImpl(int32(a[0]), uintptr(a[1])), true
}

// Time.

func sysClockGettime(f *machine.Frame, a machine.SyscallArgs) (uint64, bool) {
	return sysClockGettimeImpl(int32(a[0]), uintptr(a[1])), true
}

func sysClockGetres(f *machine.Frame, a machine.SyscallArgs) (uint64, bool) {
	return sysClockGetresImpl(int32(a[0]), uintptr(a[1])), true
}

func sysNanosleep(f *machine.Frame, a machine.SyscallArgs) (uint64, bool) {
	return sysNanosleepImpl(f, uintptr(a[0]), uintptr(a[1]))
}

func sysClockNanosleep(f *machine.Frame, a machine.SyscallArgs) (uint64, bool) {
	return sysClockNanosleepImpl(f, int32(a[0]), int(a[1]), uintptr(a[2]), uintptr(a[3]))
}

func sysGetrusage(f *machine.Frame, a machine.SyscallArgs) (uint64, bool) {
	return core.SysGetrusageImpl(int32(a[0]), uintptr(a[1])), true
}

func sysTimes(f *machine.Frame, a machine.SyscallArgs) (uint64, bool) {
	return core.SysTimesImpl(uintptr(a[0])), true
}

// Timers (timers.go).

func sysSetitimer(f *machine.Frame, a machine.SyscallArgs) (uint64, bool) {
	return core.SysSetitimerImpl(int(int32(a[0])), uintptr(a[1]), uintptr(a[2])), true
}

func sysGetitimer(f *machine.Frame, a machine.SyscallArgs) (uint64, bool) {
	return core.SysGetitimerImpl(int(int32(a[0])), uintptr(a[1])), true
}

func sysTimerCreate(f *machine.Frame, a machine.SyscallArgs) (uint64, bool) {
	return core.SysTimerCreateImpl(int32(a[0]), uintptr(a[1]), uintptr(a[2])), true
}

func sysTimerSettime(f *machine.Frame, a machine.SyscallArgs) (uint64, bool) {
	return core.SysTimerSettimeImpl(int32(a[0]), int(a[1]), uintptr(a[2]), uintptr(a[3])), true
}

func sysTimerGettime(f *machine.Frame, a machine.SyscallArgs) (uint64, bool) {
	return core.SysTimerGettimeImpl(int32(a[0]), uintptr(a[1])), true
}

func sysTimerGetoverrun(f *machine.Frame, a machine.SyscallArgs) (uint64, bool) {
	return core.SysTimerGetoverrunImpl(int32(a[0])), true
}

func sysTimerDelete(f *machine.Frame, a machine.SyscallArgs) (uint64, bool) {
	return core.SysTimerDeleteImpl(int32(a[0])), true
}

// Identity and the machine: one process, run by root, with no parent.

func sysGetpid(f *machine.Frame, a machine.SyscallArgs) (uint64, bool)  { return core.ProcessID, true }
func sysGetppid(f *machine.Frame, a machine.SyscallArgs) (uint64, bool) { return 0, true }
func sysGettid(f *machine.Frame, a machine.SyscallArgs) (uint64, bool) {
	return uint64(core.Cur().Tid), true
}
func sysGetuid(f *machine.Frame, a machine.SyscallArgs) (uint64, bool)  { return 0, true }
func sysGetgid(f *machine.Frame, a machine.SyscallArgs) (uint64, bool)  { return 0, true }
func sysGeteuid(f *machine.Frame, a machine.SyscallArgs) (uint64, bool) { return 0, true }
func sysGetegid(f *machine.Frame, a machine.SyscallArgs) (uint64, bool) { return 0, true }

// sysGetgroups reports no supplementary groups. Linux reads the size as an int and
// rejects a negative one before looking at the list, so the list is never written.
func sysGetgroups(f *machine.Frame, a machine.SyscallArgs) (uint64, bool) {
	if int32(a[0]) < 0 {
		return abi.Neg(abi.EINVAL), true
	}
	return 0, true
}

func sysGetrandom(f *machine.Frame, a machine.SyscallArgs) (uint64, bool) {
	return files.SysGetrandomImpl(uintptr(a[0]), uintptr(a[1]), uint32(a[2])), true
}

func sysUname(f *machine.Frame, a machine.SyscallArgs) (uint64, bool) {
	return files.SysUnameImpl(uintptr(a[0])), true
}

// The trace agent's private calls (traceCalls).

func sysTraceDrain(f *machine.Frame, a machine.SyscallArgs) (uint64, bool) {
	return observe.TracePortCall(f, serial.OpTraceDrain, a[0], 0, 0)
}

func sysTraceSend(f *machine.Frame, a machine.SyscallArgs) (uint64, bool) {
	return observe.TracePortCall(f, serial.OpTraceSend, a[0], uintptr(a[1]), uintptr(a[2]))
}

func sysTraceCtl(f *machine.Frame, a machine.SyscallArgs) (uint64, bool) {
	return observe.TraceCtl(a[0], a[1], a[2]), true
}

func sysSetxattr(f *machine.Frame, a machine.SyscallArgs) (uint64, bool) {
	return sysSetxattrImpl(uintptr(a[0]), -1, false, uintptr(a[1]), uintptr(a[2]), uintptr(a[3]), int(int32(a[4]))), true
}

func sysLsetxattr(f *machine.Frame, a machine.SyscallArgs) (uint64, bool) {
	return sysSetxattrImpl(uintptr(a[0]), -1, true, uintptr(a[1]), uintptr(a[2]), uintptr(a[3]), int(int32(a[4]))), true
}

func sysFsetxattr(f *machine.Frame, a machine.SyscallArgs) (uint64, bool) {
	return sysSetxattrImpl(0, int(int32(a[0])), false, uintptr(a[1]), uintptr(a[2]), uintptr(a[3]), int(int32(a[4]))), true
}

func sysGetxattr(f *machine.Frame, a machine.SyscallArgs) (uint64, bool) {
	return sysGetxattrImpl(uintptr(a[0]), -1, false, uintptr(a[1]), uintptr(a[2]), uintptr(a[3])), true
}

func sysLgetxattr(f *machine.Frame, a machine.SyscallArgs) (uint64, bool) {
	return sysGetxattrImpl(uintptr(a[0]), -1, true, uintptr(a[1]), uintptr(a[2]), uintptr(a[3])), true
}

func sysFgetxattr(f *machine.Frame, a machine.SyscallArgs) (uint64, bool) {
	return sysGetxattrImpl(0, int(int32(a[0])), false, uintptr(a[1]), uintptr(a[2]), uintptr(a[3])), true
}

func sysListxattr(f *machine.Frame, a machine.SyscallArgs) (uint64, bool) {
	return sysListxattrImpl(uintptr(a[0]), -1, false, uintptr(a[1]), uintptr(a[2])), true
}

func sysLlistxattr(f *machine.Frame, a machine.SyscallArgs) (uint64, bool) {
	return sysListxattrImpl(uintptr(a[0]), -1, true, uintptr(a[1]), uintptr(a[2])), true
}

func sysFlistxattr(f *machine.Frame, a machine.SyscallArgs) (uint64, bool) {
	return sysListxattrImpl(0, int(int32(a[0])), false, uintptr(a[1]), uintptr(a[2])), true
}

func sysRemovexattr(f *machine.Frame, a machine.SyscallArgs) (uint64, bool) {
	return sysRemovexattrImpl(uintptr(a[0]), -1, false, uintptr(a[1])), true
}

func sysLremovexattr(f *machine.Frame, a machine.SyscallArgs) (uint64, bool) {
	return sysRemovexattrImpl(uintptr(a[0]), -1, true, uintptr(a[1])), true
}

func sysFremovexattr(f *machine.Frame, a machine.SyscallArgs) (uint64, bool) {
	return sysRemovexattrImpl(0, int(int32(a[0])), false, uintptr(a[1])), true
}

func sysSyncFileRange(f *machine.Frame, a machine.SyscallArgs) (uint64, bool) {
	return files.SysSyncFileRangeImpl(int(int32(a[0])), int64(a[1]), int64(a[2]), uint32(a[3])), true
}

// prctl's options (linux/prctl.h).
const (
	prSetNoNewPrivs = 38
	prGetNoNewPrivs = 39
)

// sysPrctl serves PR_SET_NO_NEW_PRIVS and PR_GET_NO_NEW_PRIVS; other options are EINVAL.
func sysPrctl(f *machine.Frame, a machine.SyscallArgs) (uint64, bool) {
	switch uint32(a[0]) {
	case prSetNoNewPrivs:
		if a[1] != 1 || a[2]|a[3]|a[4] != 0 {
			return abi.Neg(abi.EINVAL), true
		}
		core.Cur().NoNewPrivs = true
		return 0, true
	case prGetNoNewPrivs:
		if a[1]|a[2]|a[3]|a[4] != 0 {
			return abi.Neg(abi.EINVAL), true
		}
		if core.Cur().NoNewPrivs {
			return 1, true
		}
		return 0, true
	}
	return abi.Neg(abi.EINVAL), true
}

func sysOpenat2(f *machine.Frame, a machine.SyscallArgs) (uint64, bool) {
	return files.SysOpenat2Impl(f, files.DirFDArg(a[0]), uintptr(a[1]), uintptr(a[2]), uintptr(a[3]))
}

// Timerfds (sys_timerfd.go), poll and select (sys_poll.go), ioctl (sys_ioctl.go).

func sysTimerfdCreate(f *machine.Frame, a machine.SyscallArgs) (uint64, bool) {
	return files.SysTimerfdCreateImpl(int32(a[0]), int(int32(a[1]))), true
}

func sysTimerfdSettime(f *machine.Frame, a machine.SyscallArgs) (uint64, bool) {
	return files.SysTimerfdSettimeImpl(int(int32(a[0])), int(int32(a[1])), uintptr(a[2]), uintptr(a[3])), true
}

func sysTimerfdGettime(f *machine.Frame, a machine.SyscallArgs) (uint64, bool) {
	return files.SysTimerfdGettimeImpl(int(int32(a[0])), uintptr(a[1])), true
}

func sysPpoll(f *machine.Frame, a machine.SyscallArgs) (uint64, bool) {
	return sysPollImpl(f, uintptr(a[0]), uint64(uint32(a[1])), 0, uintptr(a[2]), uintptr(a[3]), uintptr(a[4]), true)
}

func sysPselect6(f *machine.Frame, a machine.SyscallArgs) (uint64, bool) {
	return sysSelectImpl(f, int(int32(a[0])), uintptr(a[1]), uintptr(a[2]), uintptr(a[3]), uintptr(a[4]), uintptr(a[5]), true)
}

func sysIoctl(f *machine.Frame, a machine.SyscallArgs) (uint64, bool) {
	return sysIoctlImpl(f, int(int32(a[0])), uint32(a[1]), uintptr(a[2]))
}

func sysSetns(f *machine.Frame, a machine.SyscallArgs) (uint64, bool) {
	return sysSetnsImpl(int(int32(a[0])), uint32(a[1])), true
}

// The machine and the process (sys_info.go, sys_mem.go).

func sysSysinfo(f *machine.Frame, a machine.SyscallArgs) (uint64, bool) {
	return sysSysinfoImpl(uintptr(a[0])), true
}

func sysGettimeofday(f *machine.Frame, a machine.SyscallArgs) (uint64, bool) {
	return sysGettimeofdayImpl(uintptr(a[0]), uintptr(a[1])), true
}

func sysRtSigpending(f *machine.Frame, a machine.SyscallArgs) (uint64, bool) {
	return sysRtSigpendingImpl(uintptr(a[0]), uintptr(a[1])), true
}

func sysPrlimit64(f *machine.Frame, a machine.SyscallArgs) (uint64, bool) {
	return sysPrlimit64Impl(int32(a[0]), int(uint32(a[1])), uintptr(a[2]), uintptr(a[3])), true
}

func sysGetrlimit(f *machine.Frame, a machine.SyscallArgs) (uint64, bool) {
	return sysGetrlimitImpl(int(uint32(a[0])), uintptr(a[1])), true
}

func sysSetrlimit(f *machine.Frame, a machine.SyscallArgs) (uint64, bool) {
	return sysSetrlimitImpl(int(uint32(a[0])), uintptr(a[1])), true
}

func sysMincore(f *machine.Frame, a machine.SyscallArgs) (uint64, bool) {
	return sysMincoreImpl(uintptr(a[0]), uintptr(a[1]), uintptr(a[2])), true
}
