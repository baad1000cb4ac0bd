package kernel

import "github.com/unitrace/unitrace/kernel/fs"

// The handlers of the system calls only amd64 has (see syscall_handlers.go).

func sysPipe(f *Frame, a syscallArgs) (uint64, bool) { return sysPipe2Impl(uintptr(a[0]), 0), true }

// sysEpollWait is epoll_pwait without a signal mask (arm64 never had it).
func sysEpollWait(f *Frame, a syscallArgs) (uint64, bool) {
	return sysEpollPwaitImpl(f, nrEpollPwait, int(a[0]), uintptr(a[1]), int(a[2]), a[3], 0, 0)
}

func sysArchPrctl(f *Frame, a syscallArgs) (uint64, bool) {
	return sysArchPrctlImpl(f, int(a[0]), uintptr(a[1])), true
}

// The file system calls without a dirfd, which arm64 never had: the *at calls from AT_FDCWD.

func sysOpen(f *Frame, a syscallArgs) (uint64, bool) {
	return sysOpenatImpl(f, atFDCWD, uintptr(a[0]), int(int32(a[1])), uint32(a[2]))
}

func sysCreat(f *Frame, a syscallArgs) (uint64, bool) {
	return sysOpenatImpl(f, atFDCWD, uintptr(a[0]), fs.O_CREAT|fs.O_WRONLY|fs.O_TRUNC, uint32(a[1]))
}

func sysStat(f *Frame, a syscallArgs) (uint64, bool) {
	return sysNewfstatatImpl(atFDCWD, uintptr(a[0]), uintptr(a[1]), 0), true
}

func sysLstat(f *Frame, a syscallArgs) (uint64, bool) {
	return sysNewfstatatImpl(atFDCWD, uintptr(a[0]), uintptr(a[1]), fs.AT_SYMLINK_NOFOLLOW), true
}

func sysMkdir(f *Frame, a syscallArgs) (uint64, bool) {
	return sysMkdiratImpl(atFDCWD, uintptr(a[0]), uint32(a[1])), true
}

func sysMknod(f *Frame, a syscallArgs) (uint64, bool) {
	return sysMknodatImpl(atFDCWD, uintptr(a[0]), uint32(a[1]), uint32(a[2])), true
}

func sysUnlink(f *Frame, a syscallArgs) (uint64, bool) {
	return sysUnlinkatImpl(atFDCWD, uintptr(a[0]), 0), true
}

func sysRmdir(f *Frame, a syscallArgs) (uint64, bool) {
	return sysUnlinkatImpl(atFDCWD, uintptr(a[0]), fs.AT_REMOVEDIR), true
}

func sysRename(f *Frame, a syscallArgs) (uint64, bool) {
	return sysRenameat2Impl(atFDCWD, uintptr(a[0]), atFDCWD, uintptr(a[1]), 0), true
}

func sysLink(f *Frame, a syscallArgs) (uint64, bool) {
	return sysLinkatImpl(atFDCWD, uintptr(a[0]), atFDCWD, uintptr(a[1]), 0), true
}

func sysSymlink(f *Frame, a syscallArgs) (uint64, bool) {
	return sysSymlinkatImpl(uintptr(a[0]), atFDCWD, uintptr(a[1])), true
}

func sysReadlink(f *Frame, a syscallArgs) (uint64, bool) {
	return sysReadlinkatImpl(atFDCWD, uintptr(a[0]), uintptr(a[1]), int(int32(a[2]))), true
}

func sysAccess(f *Frame, a syscallArgs) (uint64, bool) {
	return sysFaccessatImpl(atFDCWD, uintptr(a[0]), uint32(a[1]), 0), true
}

func sysChmod(f *Frame, a syscallArgs) (uint64, bool) {
	return sysFchmodatImpl(atFDCWD, uintptr(a[0]), uint32(a[1]), 0), true
}

func sysChown(f *Frame, a syscallArgs) (uint64, bool) {
	return sysFchownatImpl(atFDCWD, uintptr(a[0]), 0), true
}

func sysLchown(f *Frame, a syscallArgs) (uint64, bool) {
	return sysFchownatImpl(atFDCWD, uintptr(a[0]), fs.AT_SYMLINK_NOFOLLOW), true
}

func sysDup2(f *Frame, a syscallArgs) (uint64, bool) {
	return sysDup2Impl(int(a[0]), int(a[1])), true
}

func sysAlarm(f *Frame, a syscallArgs) (uint64, bool) { return sysAlarmImpl(uint32(a[0])), true }

func sysFutimesat(f *Frame, a syscallArgs) (uint64, bool) {
	return sysFutimesatImpl(dirfdArg(a[0]), uintptr(a[1]), uintptr(a[2])), true
}

func sysUtimes(f *Frame, a syscallArgs) (uint64, bool) {
	return sysFutimesatImpl(atFDCWD, uintptr(a[0]), uintptr(a[1])), true
}

func sysUtime(f *Frame, a syscallArgs) (uint64, bool) {
	return sysUtimeImpl(uintptr(a[0]), uintptr(a[1])), true
}

// poll and select: ppoll and pselect6 without a signal mask, with a timeout in milliseconds or
// a struct timeval.

func sysPoll(f *Frame, a syscallArgs) (uint64, bool) {
	return sysPollImpl(f, uintptr(a[0]), uint64(uint32(a[1])), int32(a[2]), 0, 0, 0, false)
}

func sysSelect(f *Frame, a syscallArgs) (uint64, bool) {
	return sysSelectImpl(f, int(int32(a[0])), uintptr(a[1]), uintptr(a[2]), uintptr(a[3]), uintptr(a[4]), 0, false)
}

func sysTime(f *Frame, a syscallArgs) (uint64, bool) { return sysTimeImpl(uintptr(a[0])), true }
