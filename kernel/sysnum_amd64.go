package kernel

// Linux/amd64 system call numbers (arch/x86/entry/syscalls/syscall_64.tbl) that the kernel serves.
const (
	sysRead             = 0
	sysWrite            = 1
	sysOpen             = 2
	sysClose            = 3
	sysMmap             = 9
	sysMprotect         = 10
	sysMunmap           = 11
	sysBrk              = 12
	sysRtSigaction      = 13
	sysRtSigprocmask    = 14
	sysRtSigreturn      = 15
	sysIoctl            = 16
	sysPread64          = 17
	sysSchedYield       = 24
	sysMincore          = 27
	sysMadvise          = 28
	sysNanosleep        = 35
	sysSetitimer        = 38
	sysGetpid           = 39
	sysClone            = 56
	sysExit             = 60
	sysKill             = 62
	sysUname            = 63
	sysFcntl            = 72
	sysGetuid           = 102
	sysGetgid           = 104
	sysGeteuid          = 107
	sysGetegid          = 108
	sysGetppid          = 110
	sysSigaltstack      = 131
	sysArchPrctl        = 158
	sysPrctl            = 157
	sysGettid           = 186
	sysTkill            = 200
	sysFutex            = 202
	sysSchedGetaffinity = 204
	sysSetTidAddress    = 218
	sysClockGettime     = 228
	sysClockGetres      = 229
	sysClockNanosleep   = 230
	sysExitGroup        = 231
	sysEpollCtl         = 233
	sysTgkill           = 234
	sysOpenat           = 257
	sysEpollPwait       = 281
	sysEventfd2         = 290
	sysEpollCreate1     = 291
	sysPrlimit64        = 302
	sysGetrandom        = 318
	sysRseq             = 334
	sysEpollPwait2      = 441
)
