package syscalls

import (
	"github.com/unitrace/unitrace/kernel/core"
	"github.com/unitrace/unitrace/kernel/fs"
	"github.com/unitrace/unitrace/kernel/machine"
	"github.com/unitrace/unitrace/kernel/syscalls/files"
)

// The handlers of the system calls only amd64 has (see syscall_handlers.go).

func sysPipe(f *machine.Frame, a machine.SyscallArgs) (uint64, bool) {
	return files.SysPipe2Impl(uintptr(a[0]), 0), true
}

// sysEpollWait is epoll_pwait without a signal mask (arm64 never had it).
func sysEpollWait(f *machine.Frame, a machine.SyscallArgs) (uint64, bool) {
	return files.SysEpollPwaitImpl(f, false, int(a[0]), uintptr(a[1]), int(a[2]), a[3], 0, 0)
}

func sysArchPrctl(f *machine.Frame, a machine.SyscallArgs) (uint64, bool) {
	return sysArchPrctlImpl(f, int(a[0]), uintptr(a[1])), true
}

// The file system calls without a dirfd, which arm64 never had: the *at calls from AT_FDCWD.

func sysOpen(f *machine.Frame, a machine.SyscallArgs) (uint64, bool) {
	return files.SysOpenatImpl(f, files.AtFDCWD, uintptr(a[0]), int(int32(a[1])), uint32(a[2]))
}

func sysCreat(f *machine.Frame, a machine.SyscallArgs) (uint64, bool) {
	return files.SysOpenatImpl(f, files.AtFDCWD, uintptr(a[0]), fs.O_CREAT|fs.O_WRONLY|fs.O_TRUNC, uint32(a[1]))
}

func sysStat(f *machine.Frame, a machine.SyscallArgs) (uint64, bool) {
	return files.SysNewfstatatImpl(files.AtFDCWD, uintptr(a[0]), uintptr(a[1]), 0), true
}

func sysLstat(f *machine.Frame, a machine.SyscallArgs) (uint64, bool) {
	return files.SysNewfstatatImpl(files.AtFDCWD, uintptr(a[0]), uintptr(a[1]), fs.AT_SYMLINK_NOFOLLOW), true
}

func sysMkdir(f *machine.Frame, a machine.SyscallArgs) (uint64, bool) {
	return files.SysMkdiratImpl(files.AtFDCWD, uintptr(a[0]), uint32(a[1])), true
}

func sysMknod(f *machine.Frame, a machine.SyscallArgs) (uint64, bool) {
	return files.SysMknodatImpl(files.AtFDCWD, uintptr(a[0]), uint32(a[1]), uint32(a[2])), true
}

func sysUnlink(f *machine.Frame, a machine.SyscallArgs) (uint64, bool) {
	return files.SysUnlinkatImpl(files.AtFDCWD, uintptr(a[0]), 0), true
}

func sysRmdir(f *machine.Frame, a machine.SyscallArgs) (uint64, bool) {
	return files.SysUnlinkatImpl(files.AtFDCWD, uintptr(a[0]), fs.AT_REMOVEDIR), true
}

func sysRename(f *machine.Frame, a machine.SyscallArgs) (uint64, bool) {
	return files.SysRenameat2Impl(files.AtFDCWD, uintptr(a[0]), files.AtFDCWD, uintptr(a[1]), 0), true
}

func sysLink(f *machine.Frame, a machine.SyscallArgs) (uint64, bool) {
	return files.SysLinkatImpl(files.AtFDCWD, uintptr(a[0]), files.AtFDCWD, uintptr(a[1]), 0), true
}

func sysSymlink(f *machine.Frame, a machine.SyscallArgs) (uint64, bool) {
	return files.SysSymlinkatImpl(uintptr(a[0]), files.AtFDCWD, uintptr(a[1])), true
}

func sysReadlink(f *machine.Frame, a machine.SyscallArgs) (uint64, bool) {
	return files.SysReadlinkatImpl(files.AtFDCWD, uintptr(a[0]), uintptr(a[1]), int(int32(a[2]))), true
}

func sysAccess(f *machine.Frame, a machine.SyscallArgs) (uint64, bool) {
	return files.SysFaccessatImpl(files.AtFDCWD, uintptr(a[0]), uint32(a[1]), 0), true
}

func sysChmod(f *machine.Frame, a machine.SyscallArgs) (uint64, bool) {
	return files.SysFchmodatImpl(files.AtFDCWD, uintptr(a[0]), uint32(a[1]), 0), true
}

func sysChown(f *machine.Frame, a machine.SyscallArgs) (uint64, bool) {
	return files.SysFchownatImpl(files.AtFDCWD, uintptr(a[0]), 0), true
}

func sysLchown(f *machine.Frame, a machine.SyscallArgs) (uint64, bool) {
	return files.SysFchownatImpl(files.AtFDCWD, uintptr(a[0]), fs.AT_SYMLINK_NOFOLLOW), true
}

func sysDup2(f *machine.Frame, a machine.SyscallArgs) (uint64, bool) {
	return files.SysDup2Impl(int(a[0]), int(a[1])), true
}

func sysAlarm(f *machine.Frame, a machine.SyscallArgs) (uint64, bool) {
	return core.SysAlarmImpl(uint32(a[0])), true
}

func sysFutimesat(f *machine.Frame, a machine.SyscallArgs) (uint64, bool) {
	return files.SysFutimesatImpl(files.DirFDArg(a[0]), uintptr(a[1]), uintptr(a[2])), true
}

func sysUtimes(f *machine.Frame, a machine.SyscallArgs) (uint64, bool) {
	return files.SysFutimesatImpl(files.AtFDCWD, uintptr(a[0]), uintptr(a[1])), true
}

func sysUtime(f *machine.Frame, a machine.SyscallArgs) (uint64, bool) {
	return files.SysUtimeImpl(uintptr(a[0]), uintptr(a[1])), true
}

// poll and select: ppoll and pselect6 without a signal mask, with a timeout in milliseconds or
// a struct timeval.

func sysPoll(f *machine.Frame, a machine.SyscallArgs) (uint64, bool) {
	return sysPollImpl(f, uintptr(a[0]), uint64(uint32(a[1])), int32(a[2]), 0, 0, 0, false)
}

func sysSelect(f *machine.Frame, a machine.SyscallArgs) (uint64, bool) {
	return sysSelectImpl(f, int(int32(a[0])), uintptr(a[1]), uintptr(a[2]), uintptr(a[3]), uintptr(a[4]), 0, false)
}

func sysTime(f *machine.Frame, a machine.SyscallArgs) (uint64, bool) {
	return sysTimeImpl(uintptr(a[0])), true
}
