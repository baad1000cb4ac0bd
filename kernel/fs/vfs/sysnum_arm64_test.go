package vfs

import "syscall"

// System call numbers the syscall package lacks on arm64 (include/uapi/asm-generic/unistd.h).
const (
	sysRenameat2  = syscall.SYS_RENAMEAT2
	sysFstatat    = syscall.SYS_FSTATAT
	sysFaccessat2 = 439
	sysFchmodat2  = 452
)
