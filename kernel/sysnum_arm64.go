package kernel

// Linux/arm64 system call numbers (include/uapi/asm-generic/unistd.h, from kernel/sysnames) that
// the kernel serves. The amd64-only calls get numbers no 64-bit register value from a program
// matches (above 32 bits), so the dispatcher's cases stay distinct and never fire.
const (
	sysRead              = 63
	sysWrite             = 64
	sysOpen              = 1<<32 + 1 // none on arm64
	sysClose             = 57
	sysMmap              = 222
	sysMprotect          = 226
	sysMunmap            = 215
	sysBrk               = 214
	sysRtSigaction       = 134
	sysRtSigprocmask     = 135
	sysRtSigreturn       = 139
	sysIoctl             = 29
	sysPread64           = 67
	sysSchedYield        = 124
	sysMincore           = 232
	sysMadvise           = 233
	sysNanosleep         = 101
	sysSetitimer         = 103
	sysGetpid            = 172
	sysClone             = 220
	sysExit              = 93
	sysKill              = 129
	sysUname             = 160
	sysFcntl             = 25
	sysGetuid            = 174
	sysGetgid            = 176
	sysGeteuid           = 175
	sysGetegid           = 177
	sysGetppid           = 173
	sysSigaltstack       = 132
	sysArchPrctl         = 1<<32 + 2 // none on arm64
	sysPrctl             = 167
	sysGettid            = 178
	sysTkill             = 130
	sysFutex             = 98
	sysSchedGetaffinity  = 123
	sysSchedSetaffinity  = 122
	sysSchedSetscheduler = 119
	sysSchedGetscheduler = 120
	sysSchedGetparam     = 121
	sysSetTidAddress     = 96
	sysClockGettime      = 113
	sysClockGetres       = 114
	sysClockNanosleep    = 115
	sysExitGroup         = 94
	sysEpollCtl          = 21
	sysTgkill            = 131
	sysOpenat            = 56
	sysEpollPwait        = 22
	sysEventfd2          = 19
	sysEpollCreate1      = 20
	sysPrlimit64         = 261
	sysGetrandom         = 278
	sysRseq              = 293
	sysEpollPwait2       = 441
)
