package machine

// SyscallArgs are a system call's six argument registers, in the arch's order (SysArgs).
type SyscallArgs [6]uint64
