package systab

// Calls lists every system call the kernel answers, on whichever architectures have it, in the
// order docs/kernel.md shows them. Any other number is unknown: it answers ENOSYS and is reported
// once on the console. Notes must not contain '|' (they become table cells).
var Calls = []Call{
	// Descriptors: the console (0, 1, 2), the trace ports (3, 4), eventfds, epoll instances.
	partial("read", "sysRead", "the console reads end of file; eventfds (8 bytes, blocking unless O_NONBLOCK) and the trace ports"),
	partial("write", "sysWrite", "the console, eventfds and the trace ports (blocking until the device has the bytes)"),
	full("close", "sysClose", ""),
	partial("fcntl", "sysFcntl", "F_GETFD, F_SETFD, F_GETFL and F_SETFL (O_NONBLOCK); other commands EINVAL"),
	full("epoll_create1", "sysEpollCreate1", ""),
	full("epoll_ctl", "sysEpollCtl", "eventfds and epoll instances; the console and the trace ports cannot be polled (EPERM)"),
	partial("epoll_pwait", "sysEpollPwait", "the signal mask is ignored: signals are delivered only at system-call and interrupt returns"),
	partial("epoll_pwait2", "sysEpollPwait2", "the signal mask is ignored, as for epoll_pwait"),
	full("eventfd2", "sysEventfd2", "EFD_SEMAPHORE, EFD_NONBLOCK, EFD_CLOEXEC"),

	// Memory.
	partial("mmap", "sysMmap", "anonymous mappings only (else ENODEV, EBADF for a closed descriptor): hints honoured when free, MAP_FIXED, MAP_FIXED_NOREPLACE, MAP_POPULATE, PROT_NONE reservations that cost no frames"),
	full("munmap", "sysMunmap", ""),
	partial("mprotect", "sysMprotect", "PROT_NONE discards the pages' contents, which the Go runtime allows"),
	partial("madvise", "sysMadvise", "DONTNEED and FREE give the frames back (the next touch reads zeros); NORMAL, RANDOM, SEQUENTIAL, WILLNEED, MERGEABLE, UNMERGEABLE, HUGEPAGE, NOHUGEPAGE, DONTDUMP, DODUMP and COLLAPSE succeed and do nothing; others EINVAL"),
	partial("brk", "sysBrk", "no heap break: returns 0 (the Go runtime never uses brk)"),

	// Signals.
	full("rt_sigaction", "sysRtSigaction", ""),
	full("rt_sigprocmask", "sysRtSigprocmask", ""),
	full("sigaltstack", "sysSigaltstack", ""),
	full("rt_sigreturn", "sysRtSigreturn", ""),
	full("tgkill", "sysTgkill", ""),
	full("tkill", "sysTkill", ""),
	full("kill", "sysKill", "the one process: pid 0, -1 or its own (else ESRCH)"),

	// Threads and scheduling.
	partial("clone", "sysClone", "threads only (CLONE_VM, CLONE_THREAD and CLONE_SIGHAND, else EINVAL), with CLONE_SETTLS, CLONE_PARENT_SETTID, CLONE_CHILD_SETTID and CLONE_CHILD_CLEARTID"),
	full("exit", "sysExit", "the last thread's exit ends the program"),
	full("exit_group", "sysExitGroup", "stops the machine with the status"),
	full("set_tid_address", "sysSetTidAddress", ""),
	partial("arch_prctl", "sysArchPrctl", "ARCH_SET_FS and ARCH_GET_FS; GS belongs to the kernel (EPERM)"),
	partial("futex", "sysFutex", "WAIT and WAKE (private or not: one process) with relative timeouts, WAIT_BITSET and WAKE_BITSET with absolute ones (the mask is ignored); other operations ENOSYS"),
	full("sched_yield", "sysSchedYield", ""),
	full("sched_getaffinity", "sysSchedGetaffinity", "per thread; every CPU the kernel runs by default"),
	full("sched_setaffinity", "sysSchedSetaffinity", "per thread"),
	partial("sched_setscheduler", "sysSchedSetscheduler", "SCHED_FIFO is not time-sliced; one priority level otherwise (SCHED_RR, SCHED_BATCH and SCHED_IDLE run like SCHED_OTHER)"),
	full("sched_getscheduler", "sysSchedGetscheduler", ""),
	full("sched_getparam", "sysSchedGetparam", ""),

	// Time.
	partial("clock_gettime", "sysClockGettime", "REALTIME, MONOTONIC (RAW, COARSE), BOOTTIME, PROCESS_CPUTIME_ID and THREAD_CPUTIME_ID; others EINVAL"),
	partial("clock_getres", "sysClockGetres", "1 ns for every clock clock_gettime knows"),
	partial("nanosleep", "sysNanosleep", "no signal interrupts the sleep, so the remaining time is never written"),
	partial("clock_nanosleep", "sysClockNanosleep", "relative or TIMER_ABSTIME on the clocks clock_gettime knows; no signal interrupts the sleep"),

	// Identity and the machine.
	full("getpid", "sysGetpid", ""),
	partial("getppid", "sysGetppid", "no parent: 0"),
	full("gettid", "sysGettid", ""),
	full("getuid", "sysGetuid", "root: 0"),
	full("getgid", "sysGetgid", "root: 0"),
	full("geteuid", "sysGeteuid", "root: 0"),
	full("getegid", "sysGetegid", "root: 0"),
	partial("getrandom", "sysGetrandom", "the CPU's random-number instruction (RDRAND, RNDR) when it has one, else a generator seeded from the clock at first use; at most 1 MiB a call; flags ignored"),
	partial("uname", "sysUname", "fixed strings: Linux, unitrace, 6.1.0-unitrace, #1, x86_64 (on arm64 too), (none)"),

	// Answered with an error.
	fails("open", "ENOENT", "no file system: the Go runtime probes /sys and /proc files"),
	fails("openat", "ENOENT", "no file system: the Go runtime probes /sys and /proc files"),
	fails("ioctl", "ENOTTY", "no terminal or device takes ioctls"),
	fails("prctl", "EINVAL", "PR_SET_VMA naming and the rest: the Go runtime stops asking"),
	fails("prlimit64", "ENOSYS", "optional for the Go runtime"),
	fails("setitimer", "ENOSYS", "optional for the Go runtime"),
	fails("rseq", "ENOSYS", "optional for the Go runtime"),
	fails("mincore", "ENOSYS", "optional for the Go runtime"),
}
