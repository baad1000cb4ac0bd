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

func Read(f *machine.Frame, a machine.SyscallArgs) (uint64, bool) {
	return files.ReadFD(f, int(a[0]), uintptr(a[1]), uintptr(a[2]))
}

func Write(f *machine.Frame, a machine.SyscallArgs) (uint64, bool) {
	switch core.FDs.Kind(int(a[0])) {
	case fd.KindDevice:
		return files.WriteDevice(f, int(a[0]), uintptr(a[1]), uintptr(a[2]))
	case fd.KindPipe, fd.KindPair:
		return files.PipeCall(f, int(a[0]), true, false, uintptr(a[1]), uintptr(a[2]))
	case fd.KindSocket:
		return files.SockWrite(f, int(a[0]), uintptr(a[1]), uintptr(a[2]), false)
	}
	return files.WriteFD(int(a[0]), uintptr(a[1]), uintptr(a[2])), true
}

func Close(f *machine.Frame, a machine.SyscallArgs) (uint64, bool) {
	return files.CloseFD(int(a[0])), true
}

func Dup3(f *machine.Frame, a machine.SyscallArgs) (uint64, bool) {
	return files.DoDup3(int(a[0]), int(a[1]), int(a[2])), true
}

func EpollCreate1(f *machine.Frame, a machine.SyscallArgs) (uint64, bool) {
	r, e := core.FDs.EpollCreate(int(a[0]))
	return abi.ErrnoOr(e, uint64(r)), true
}

func EpollPwait(f *machine.Frame, a machine.SyscallArgs) (uint64, bool) {
	return files.DoEpollPwait(f, false, int(a[0]), uintptr(a[1]), int(a[2]), a[3], uintptr(a[4]), uintptr(a[5]))
}

func EpollPwait2(f *machine.Frame, a machine.SyscallArgs) (uint64, bool) {
	return files.DoEpollPwait(f, true, int(a[0]), uintptr(a[1]), int(a[2]), a[3], uintptr(a[4]), uintptr(a[5]))
}

func Pipe2(f *machine.Frame, a machine.SyscallArgs) (uint64, bool) {
	return files.DoPipe2(uintptr(a[0]), int(int32(a[1]))), true
}

func Eventfd2(f *machine.Frame, a machine.SyscallArgs) (uint64, bool) {
	r, e := core.FDs.Eventfd(uint32(a[0]), int(a[1]))
	return abi.ErrnoOr(e, uint64(r)), true
}

func Splice(f *machine.Frame, a machine.SyscallArgs) (uint64, bool) {
	return files.SpliceCall(f, files.KindSplice, a)
}
func Tee(f *machine.Frame, a machine.SyscallArgs) (uint64, bool) {
	return files.SpliceCall(f, files.KindTee, a)
}
func Sendfile(f *machine.Frame, a machine.SyscallArgs) (uint64, bool) {
	return files.SpliceCall(f, files.KindSendfile, a)
}
func CopyFileRange(f *machine.Frame, a machine.SyscallArgs) (uint64, bool) {
	return files.SpliceCall(f, files.KindCopyFileRange, a)
}

// Files (sys_file.go, sys_namei.go).

func Openat(f *machine.Frame, a machine.SyscallArgs) (uint64, bool) {
	return files.DoOpenat(f, files.DirFDArg(a[0]), uintptr(a[1]), int(int32(a[2])), uint32(a[3]))
}

func Readv(f *machine.Frame, a machine.SyscallArgs) (uint64, bool) {
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

func Writev(f *machine.Frame, a machine.SyscallArgs) (uint64, bool) {
	switch core.FDs.Kind(int(a[0])) {
	case fd.KindPipe, fd.KindPair:
		return files.PipeCall(f, int(a[0]), true, true, uintptr(a[1]), uintptr(int32(a[2])))
	case fd.KindSocket:
		return files.SockWrite(f, int(a[0]), uintptr(a[1]), uintptr(int32(a[2])), true)
	}
	return files.VectorIO(int(a[0]), uintptr(a[1]), int(int32(a[2])), -1, true), true
}

// Preadv and Pwritev: the offset is one register on 64-bit machines (pos_l; pos_h is 0).
func Preadv(f *machine.Frame, a machine.SyscallArgs) (uint64, bool) {
	return vectorPos(a, false), true
}

func Pwritev(f *machine.Frame, a machine.SyscallArgs) (uint64, bool) {
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

func Newfstatat(f *machine.Frame, a machine.SyscallArgs) (uint64, bool) {
	return files.DoNewfstatat(files.DirFDArg(a[0]), uintptr(a[1]), uintptr(a[2]), int(int32(a[3]))), true
}

func Fsync(f *machine.Frame, a machine.SyscallArgs) (uint64, bool) {
	return files.DoFsync(int(a[0])), true
}
func Fdatasync(f *machine.Frame, a machine.SyscallArgs) (uint64, bool) {
	return files.DoFsync(int(a[0])), true
}

func Mkdirat(f *machine.Frame, a machine.SyscallArgs) (uint64, bool) {
	return files.DoMkdirat(files.DirFDArg(a[0]), uintptr(a[1]), uint32(a[2])), true
}

func Mknodat(f *machine.Frame, a machine.SyscallArgs) (uint64, bool) {
	return files.DoMknodat(files.DirFDArg(a[0]), uintptr(a[1]), uint32(a[2]), uint32(a[3])), true
}

func Unlinkat(f *machine.Frame, a machine.SyscallArgs) (uint64, bool) {
	return files.DoUnlinkat(files.DirFDArg(a[0]), uintptr(a[1]), int(int32(a[2]))), true
}

func Renameat(f *machine.Frame, a machine.SyscallArgs) (uint64, bool) {
	return files.DoRenameat2(files.DirFDArg(a[0]), uintptr(a[1]), files.DirFDArg(a[2]), uintptr(a[3]), 0), true
}

func Renameat2(f *machine.Frame, a machine.SyscallArgs) (uint64, bool) {
	return files.DoRenameat2(files.DirFDArg(a[0]), uintptr(a[1]), files.DirFDArg(a[2]), uintptr(a[3]), uint32(a[4])), true
}

func Linkat(f *machine.Frame, a machine.SyscallArgs) (uint64, bool) {
	return files.DoLinkat(files.DirFDArg(a[0]), uintptr(a[1]), files.DirFDArg(a[2]), uintptr(a[3]), int(int32(a[4]))), true
}

func Symlinkat(f *machine.Frame, a machine.SyscallArgs) (uint64, bool) {
	return files.DoSymlinkat(uintptr(a[0]), files.DirFDArg(a[1]), uintptr(a[2])), true
}

func Readlinkat(f *machine.Frame, a machine.SyscallArgs) (uint64, bool) {
	return files.DoReadlinkat(files.DirFDArg(a[0]), uintptr(a[1]), uintptr(a[2]), int(int32(a[3]))), true
}

func Faccessat(f *machine.Frame, a machine.SyscallArgs) (uint64, bool) {
	return files.DoFaccessat(files.DirFDArg(a[0]), uintptr(a[1]), uint32(a[2]), 0), true
}

func Faccessat2(f *machine.Frame, a machine.SyscallArgs) (uint64, bool) {
	return files.DoFaccessat(files.DirFDArg(a[0]), uintptr(a[1]), uint32(a[2]), int(int32(a[3]))), true
}

func Fchmodat(f *machine.Frame, a machine.SyscallArgs) (uint64, bool) {
	return files.DoFchmodat(files.DirFDArg(a[0]), uintptr(a[1]), uint32(a[2]), 0), true
}

func Fchmodat2(f *machine.Frame, a machine.SyscallArgs) (uint64, bool) {
	return files.DoFchmodat(files.DirFDArg(a[0]), uintptr(a[1]), uint32(a[2]), int(int32(a[3]))), true
}

func Fchownat(f *machine.Frame, a machine.SyscallArgs) (uint64, bool) {
	return files.DoFchownat(files.DirFDArg(a[0]), uintptr(a[1]), int(int32(a[4]))), true
}

// Memory.

func Mmap(f *machine.Frame, a machine.SyscallArgs) (uint64, bool) {
	return DoMmap(uintptr(a[0]), uintptr(a[1]), uint32(a[2]), uint32(a[3]), int32(a[4]), a[5]), true
}

func Mprotect(f *machine.Frame, a machine.SyscallArgs) (uint64, bool) {
	return DoMprotect(uintptr(a[0]), uintptr(a[1]), uint32(a[2])), true
}

// Brk: there is no heap break; the Go runtime never uses brk.
func Brk(f *machine.Frame, a machine.SyscallArgs) (uint64, bool) { return 0, true }

// Signals.

func RtSigaction(f *machine.Frame, a machine.SyscallArgs) (uint64, bool) {
	return core.SysSigaction(int(a[0]), uintptr(a[1]), uintptr(a[2]), uintptr(a[3])), true
}

func RtSigprocmask(f *machine.Frame, a machine.SyscallArgs) (uint64, bool) {
	return core.SysSigprocmask(int(a[0]), uintptr(a[1]), uintptr(a[2]), uintptr(a[3])), true
}

func Sigaltstack(f *machine.Frame, a machine.SyscallArgs) (uint64, bool) {
	return core.DoSigaltstack(f, uintptr(a[0]), uintptr(a[1])), true
}

func RtSigreturn(f *machine.Frame, a machine.SyscallArgs) (uint64, bool) {
	return core.SysSigreturn(f)
}

func Tgkill(f *machine.Frame, a machine.SyscallArgs) (uint64, bool) {
	return core.DoTgkill(f, int32(a[0]), int32(a[1]), int(a[2])), true
}

func Tkill(f *machine.Frame, a machine.SyscallArgs) (uint64, bool) {
	return core.DoTgkill(f, core.ProcessID, int32(a[0]), int(a[1])), true
}

func Kill(f *machine.Frame, a machine.SyscallArgs) (uint64, bool) {
	return core.DoKill(f, int32(a[0]), int(a[1])), true
}

// Threads and scheduling.

func Clone(f *machine.Frame, a machine.SyscallArgs) (uint64, bool) {
	flags, stack, ptid, ctid, tls := cloneArgs(&a)
	return doClone(f, flags, stack, ptid, ctid, tls), true
}

func Exit(f *machine.Frame, a machine.SyscallArgs) (uint64, bool) {
	exitThread(f, int(a[0]))
	return 0, false
}

func ExitGroup(f *machine.Frame, a machine.SyscallArgs) (uint64, bool) {
	core.ExitGroup(int(a[0]))
	return 0, false
}

func SetTidAddress(f *machine.Frame, a machine.SyscallArgs) (uint64, bool) {
	core.Cur().ClearChild = uintptr(a[0])
	return uint64(core.Cur().Tid), true
}

// SchedYield stores its result and fires syscall_exit itself: yield switches threads without
// a wait to complete.
func SchedYield(f *machine.Frame, a machine.SyscallArgs) (uint64, bool) {
	machine.SetSysRet(f, 0)
	tp.SyscallExit.Emit2(nrSchedYield, 0)
	core.Yield(f)
	return 0, false
}

// Time.

func Getrusage(f *machine.Frame, a machine.SyscallArgs) (uint64, bool) {
	return core.DoGetrusage(int32(a[0]), uintptr(a[1])), true
}

func Times(f *machine.Frame, a machine.SyscallArgs) (uint64, bool) {
	return core.DoTimes(uintptr(a[0])), true
}

// Timers (timers.go).

func Setitimer(f *machine.Frame, a machine.SyscallArgs) (uint64, bool) {
	return core.DoSetitimer(int(int32(a[0])), uintptr(a[1]), uintptr(a[2])), true
}

func Getitimer(f *machine.Frame, a machine.SyscallArgs) (uint64, bool) {
	return core.DoGetitimer(int(int32(a[0])), uintptr(a[1])), true
}

func TimerCreate(f *machine.Frame, a machine.SyscallArgs) (uint64, bool) {
	return core.DoTimerCreate(int32(a[0]), uintptr(a[1]), uintptr(a[2])), true
}

func TimerSettime(f *machine.Frame, a machine.SyscallArgs) (uint64, bool) {
	return core.DoTimerSettime(int32(a[0]), int(a[1]), uintptr(a[2]), uintptr(a[3])), true
}

func TimerGettime(f *machine.Frame, a machine.SyscallArgs) (uint64, bool) {
	return core.DoTimerGettime(int32(a[0]), uintptr(a[1])), true
}

func TimerGetoverrun(f *machine.Frame, a machine.SyscallArgs) (uint64, bool) {
	return core.DoTimerGetoverrun(int32(a[0])), true
}

func TimerDelete(f *machine.Frame, a machine.SyscallArgs) (uint64, bool) {
	return core.DoTimerDelete(int32(a[0])), true
}

// Identity and the machine: one process, run by root, with no parent.

func Getpid(f *machine.Frame, a machine.SyscallArgs) (uint64, bool)  { return core.ProcessID, true }
func Getppid(f *machine.Frame, a machine.SyscallArgs) (uint64, bool) { return 0, true }
func Gettid(f *machine.Frame, a machine.SyscallArgs) (uint64, bool) {
	return uint64(core.Cur().Tid), true
}
func Getuid(f *machine.Frame, a machine.SyscallArgs) (uint64, bool)  { return 0, true }
func Getgid(f *machine.Frame, a machine.SyscallArgs) (uint64, bool)  { return 0, true }
func Geteuid(f *machine.Frame, a machine.SyscallArgs) (uint64, bool) { return 0, true }
func Getegid(f *machine.Frame, a machine.SyscallArgs) (uint64, bool) { return 0, true }

// Getgroups reports no supplementary groups. Linux reads the size as an int and
// rejects a negative one before looking at the list, so the list is never written.
func Getgroups(f *machine.Frame, a machine.SyscallArgs) (uint64, bool) {
	if int32(a[0]) < 0 {
		return abi.Neg(abi.EINVAL), true
	}
	return 0, true
}

// The trace agent's private calls (traceCalls).

func TraceDrain(f *machine.Frame, a machine.SyscallArgs) (uint64, bool) {
	return observe.TracePortCall(f, serial.OpTraceDrain, a[0], 0, 0)
}

func TraceSend(f *machine.Frame, a machine.SyscallArgs) (uint64, bool) {
	return observe.TracePortCall(f, serial.OpTraceSend, a[0], uintptr(a[1]), uintptr(a[2]))
}

func TraceCtl(f *machine.Frame, a machine.SyscallArgs) (uint64, bool) {
	return observe.TraceCtl(a[0], a[1], a[2]), true
}

func Setxattr(f *machine.Frame, a machine.SyscallArgs) (uint64, bool) {
	return doSetxattr(uintptr(a[0]), -1, false, uintptr(a[1]), uintptr(a[2]), uintptr(a[3]), int(int32(a[4]))), true
}

func Lsetxattr(f *machine.Frame, a machine.SyscallArgs) (uint64, bool) {
	return doSetxattr(uintptr(a[0]), -1, true, uintptr(a[1]), uintptr(a[2]), uintptr(a[3]), int(int32(a[4]))), true
}

func Fsetxattr(f *machine.Frame, a machine.SyscallArgs) (uint64, bool) {
	return doSetxattr(0, int(int32(a[0])), false, uintptr(a[1]), uintptr(a[2]), uintptr(a[3]), int(int32(a[4]))), true
}

func Getxattr(f *machine.Frame, a machine.SyscallArgs) (uint64, bool) {
	return doGetxattr(uintptr(a[0]), -1, false, uintptr(a[1]), uintptr(a[2]), uintptr(a[3])), true
}

func Lgetxattr(f *machine.Frame, a machine.SyscallArgs) (uint64, bool) {
	return doGetxattr(uintptr(a[0]), -1, true, uintptr(a[1]), uintptr(a[2]), uintptr(a[3])), true
}

func Fgetxattr(f *machine.Frame, a machine.SyscallArgs) (uint64, bool) {
	return doGetxattr(0, int(int32(a[0])), false, uintptr(a[1]), uintptr(a[2]), uintptr(a[3])), true
}

func Listxattr(f *machine.Frame, a machine.SyscallArgs) (uint64, bool) {
	return doListxattr(uintptr(a[0]), -1, false, uintptr(a[1]), uintptr(a[2])), true
}

func Llistxattr(f *machine.Frame, a machine.SyscallArgs) (uint64, bool) {
	return doListxattr(uintptr(a[0]), -1, true, uintptr(a[1]), uintptr(a[2])), true
}

func Flistxattr(f *machine.Frame, a machine.SyscallArgs) (uint64, bool) {
	return doListxattr(0, int(int32(a[0])), false, uintptr(a[1]), uintptr(a[2])), true
}

func Removexattr(f *machine.Frame, a machine.SyscallArgs) (uint64, bool) {
	return doRemovexattr(uintptr(a[0]), -1, false, uintptr(a[1])), true
}

func Lremovexattr(f *machine.Frame, a machine.SyscallArgs) (uint64, bool) {
	return doRemovexattr(uintptr(a[0]), -1, true, uintptr(a[1])), true
}

func Fremovexattr(f *machine.Frame, a machine.SyscallArgs) (uint64, bool) {
	return doRemovexattr(0, int(int32(a[0])), false, uintptr(a[1])), true
}

// prctl's options (linux/prctl.h).
const (
	prSetNoNewPrivs = 38
	prGetNoNewPrivs = 39
)

// Prctl serves PR_SET_NO_NEW_PRIVS and PR_GET_NO_NEW_PRIVS; other options are EINVAL.
func Prctl(f *machine.Frame, a machine.SyscallArgs) (uint64, bool) {
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

// Timerfds (sys_timerfd.go), poll and select (sys_poll.go), ioctl (sys_ioctl.go).

func Ppoll(f *machine.Frame, a machine.SyscallArgs) (uint64, bool) {
	return doPoll(f, uintptr(a[0]), uint64(uint32(a[1])), 0, uintptr(a[2]), uintptr(a[3]), uintptr(a[4]), true)
}

func Pselect6(f *machine.Frame, a machine.SyscallArgs) (uint64, bool) {
	return doSelect(f, int(int32(a[0])), uintptr(a[1]), uintptr(a[2]), uintptr(a[3]), uintptr(a[4]), uintptr(a[5]), true)
}

// The machine and the process (sys_info.go, sys_mem.go).
