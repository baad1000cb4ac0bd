package vfs

import "syscall"

// System call numbers the syscall package lacks on amd64 (arch/x86/entry/syscalls/syscall_64.tbl).
const (
	sysRenameat2  = 316
	sysFstatat    = syscall.SYS_NEWFSTATAT
	sysFaccessat2 = 439
	sysFchmodat2  = 452
)
