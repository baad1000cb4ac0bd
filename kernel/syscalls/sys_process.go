package syscalls

import (
	"github.com/unitrace/unitrace/kernel/abi"
	"github.com/unitrace/unitrace/kernel/core"
	"github.com/unitrace/unitrace/kernel/klog"
	"github.com/unitrace/unitrace/kernel/machine"
)

// One process: the program is the only one there is, and it cannot start another. fork, vfork
// and clone without CLONE_THREAD (doClone), execve and execveat fail with ENOSYS, and the
// first of them says so on the console. ENOSYS rather than EAGAIN, Linux's errno for a fork
// past a resource limit: os/exec then reports "fork/exec PATH: function not implemented", which
// says that it cannot work here, where "resource temporarily unavailable" would invite a retry
// (shells retry a fork that fails with EAGAIN). wait4 and waitid find no child (ECHILD), as
// Linux answers a process that has none.

var warnedProcess bool

// noNewProcess is the answer to a call that would start or replace a process.
func noNewProcess() uint64 {
	klog.Once(&warnedProcess, "unitrace runs one process and cannot start another")
	return abi.Neg(abi.ENOSYS)
}

func NoProcess(f *machine.Frame, a machine.SyscallArgs) (uint64, bool) {
	return noNewProcess(), true
}

func NoChild(f *machine.Frame, a machine.SyscallArgs) (uint64, bool) {
	return abi.Neg(abi.ECHILD), true
}

// wait options (include/uapi/linux/wait.h).
const (
	wNohang    = 1
	wUntraced  = 2 // WSTOPPED too
	wExited    = 4
	wContinued = 8
	wNowait    = 0x01000000
	wNothread  = 0x20000000
	wAll       = 0x40000000
	wClone     = 0x80000000
)

// Wait4 checks wait4's options as Linux does before it finds no child (ECHILD).
func Wait4(f *machine.Frame, a machine.SyscallArgs) (uint64, bool) {
	if uint32(a[2])&^(wNohang|wUntraced|wContinued|wNothread|wClone|wAll) != 0 {
		return abi.Neg(abi.EINVAL), true
	}
	if int32(a[0]) == -1<<31 {
		return abi.Neg(abi.ESRCH), true
	}
	return abi.Neg(abi.ECHILD), true
}

// Waitid checks waitid's options and idtype as Linux does before it finds no child.
func Waitid(f *machine.Frame, a machine.SyscallArgs) (uint64, bool) {
	which, id, options := uint32(a[0]), int32(a[1]), uint32(a[3])
	if options&^(wNohang|wNowait|wExited|wUntraced|wContinued|wNothread|wClone|wAll) != 0 ||
		options&(wExited|wUntraced|wContinued) == 0 {
		return waitidResult(uintptr(a[2]), abi.EINVAL)
	}
	switch which {
	case 0: // P_ALL
	case 1: // P_PID
		if id <= 0 {
			return waitidResult(uintptr(a[2]), abi.EINVAL)
		}
	case 2: // P_PGID
		if id < 0 {
			return waitidResult(uintptr(a[2]), abi.EINVAL)
		}
	case 3: // P_PIDFD: the descriptor must be a pidfd
		if id < 0 {
			return waitidResult(uintptr(a[2]), abi.EINVAL)
		}
		return waitidResult(uintptr(a[2]), abi.EBADF)
	default:
		return waitidResult(uintptr(a[2]), abi.EINVAL)
	}
	return waitidResult(uintptr(a[2]), abi.ECHILD)
}

// waitidResult is what Linux's waitid does after the wait failed with errno: with an infop, it
// still writes the siginfo's signo, errno, code, pid, uid and status (zeros), and a fault there
// is EFAULT in errno's place.
func waitidResult(infop uintptr, errno int) (uint64, bool) {
	if infop == 0 {
		return abi.Neg(errno), true
	}
	if infop+128 < infop || infop+128 > core.UserHi {
		return abi.Neg(abi.EFAULT), true
	}
	b, ok := core.UserBytes(infop, 28, true)
	if !ok {
		return abi.Neg(abi.EFAULT), true
	}
	clear(b)
	return abi.Neg(errno), true
}
