package syscalls

import (
	"github.com/unitrace/unitrace/kernel/core"
	"github.com/unitrace/unitrace/kernel/fs"
	"github.com/unitrace/unitrace/kernel/machine"
	"github.com/unitrace/unitrace/kernel/syscalls/files"
)

// The handlers of the system calls only amd64 has (see syscall_handlers.go).

func Pipe(f *machine.Frame, a machine.SyscallArgs) (uint64, bool) {
	return files.DoPipe2(uintptr(a[0]), 0), true
}

// EpollWait is epoll_pwait without a signal mask (arm64 never had it).
func EpollWait(f *machine.Frame, a machine.SyscallArgs) (uint64, bool) {
	return files.DoEpollPwait(f, false, int(a[0]), uintptr(a[1]), int(a[2]), a[3], 0, 0)
}

// The file system calls without a dirfd, which arm64 never had: the *at calls from AT_FDCWD.

func Open(f *machine.Frame, a machine.SyscallArgs) (uint64, bool) {
	return files.DoOpenat(f, files.AtFDCWD, uintptr(a[0]), int(int32(a[1])), uint32(a[2]))
}

func Creat(f *machine.Frame, a machine.SyscallArgs) (uint64, bool) {
	return files.DoOpenat(f, files.AtFDCWD, uintptr(a[0]), fs.O_CREAT|fs.O_WRONLY|fs.O_TRUNC, uint32(a[1]))
}

func Stat(f *machine.Frame, a machine.SyscallArgs) (uint64, bool) {
	return files.DoNewfstatat(files.AtFDCWD, uintptr(a[0]), uintptr(a[1]), 0), true
}

func Lstat(f *machine.Frame, a machine.SyscallArgs) (uint64, bool) {
	return files.DoNewfstatat(files.AtFDCWD, uintptr(a[0]), uintptr(a[1]), fs.AT_SYMLINK_NOFOLLOW), true
}

func Mkdir(f *machine.Frame, a machine.SyscallArgs) (uint64, bool) {
	return files.DoMkdirat(files.AtFDCWD, uintptr(a[0]), uint32(a[1])), true
}

func Mknod(f *machine.Frame, a machine.SyscallArgs) (uint64, bool) {
	return files.DoMknodat(files.AtFDCWD, uintptr(a[0]), uint32(a[1]), uint32(a[2])), true
}

func Unlink(f *machine.Frame, a machine.SyscallArgs) (uint64, bool) {
	return files.DoUnlinkat(files.AtFDCWD, uintptr(a[0]), 0), true
}

func Rmdir(f *machine.Frame, a machine.SyscallArgs) (uint64, bool) {
	return files.DoUnlinkat(files.AtFDCWD, uintptr(a[0]), fs.AT_REMOVEDIR), true
}

func Rename(f *machine.Frame, a machine.SyscallArgs) (uint64, bool) {
	return files.DoRenameat2(files.AtFDCWD, uintptr(a[0]), files.AtFDCWD, uintptr(a[1]), 0), true
}

func Link(f *machine.Frame, a machine.SyscallArgs) (uint64, bool) {
	return files.DoLinkat(files.AtFDCWD, uintptr(a[0]), files.AtFDCWD, uintptr(a[1]), 0), true
}

func Symlink(f *machine.Frame, a machine.SyscallArgs) (uint64, bool) {
	return files.DoSymlinkat(uintptr(a[0]), files.AtFDCWD, uintptr(a[1])), true
}

func Readlink(f *machine.Frame, a machine.SyscallArgs) (uint64, bool) {
	return files.DoReadlinkat(files.AtFDCWD, uintptr(a[0]), uintptr(a[1]), int(int32(a[2]))), true
}

func Access(f *machine.Frame, a machine.SyscallArgs) (uint64, bool) {
	return files.DoFaccessat(files.AtFDCWD, uintptr(a[0]), uint32(a[1]), 0), true
}

func Chmod(f *machine.Frame, a machine.SyscallArgs) (uint64, bool) {
	return files.DoFchmodat(files.AtFDCWD, uintptr(a[0]), uint32(a[1]), 0), true
}

func Chown(f *machine.Frame, a machine.SyscallArgs) (uint64, bool) {
	return files.DoFchownat(files.AtFDCWD, uintptr(a[0]), 0), true
}

func Lchown(f *machine.Frame, a machine.SyscallArgs) (uint64, bool) {
	return files.DoFchownat(files.AtFDCWD, uintptr(a[0]), fs.AT_SYMLINK_NOFOLLOW), true
}

func Alarm(f *machine.Frame, a machine.SyscallArgs) (uint64, bool) {
	return core.DoAlarm(uint32(a[0])), true
}

func Futimesat(f *machine.Frame, a machine.SyscallArgs) (uint64, bool) {
	return files.DoFutimesat(files.DirFDArg(a[0]), uintptr(a[1]), uintptr(a[2])), true
}

func Utimes(f *machine.Frame, a machine.SyscallArgs) (uint64, bool) {
	return files.DoFutimesat(files.AtFDCWD, uintptr(a[0]), uintptr(a[1])), true
}

// poll and select: ppoll and pselect6 without a signal mask, with a timeout in milliseconds or
// a struct timeval.

func Poll(f *machine.Frame, a machine.SyscallArgs) (uint64, bool) {
	return doPoll(f, uintptr(a[0]), uint64(uint32(a[1])), int32(a[2]), 0, 0, 0, false)
}

func Select(f *machine.Frame, a machine.SyscallArgs) (uint64, bool) {
	return doSelect(f, int(int32(a[0])), uintptr(a[1]), uintptr(a[2]), uintptr(a[3]), uintptr(a[4]), 0, false)
}
