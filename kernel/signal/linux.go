package signal

// Linux's signal ABI numbers. Those the Go runtime also defines are checked against its
// runtime/defs_linux_amd64.go and defs_linux_arm64.go (TestRuntimeConstants); the others are
// pinned by TestPinnedConstants. The values are the same on amd64 and arm64.

// Signal numbers (arch/x86/include/uapi/asm/signal.h; include/uapi/asm-generic/signal.h on
// arm64).
const (
	SIGILL    = 4
	SIGTRAP   = 5
	SIGBUS    = 7
	SIGFPE    = 8
	SIGKILL   = 9
	SIGUSR1   = 10
	SIGSEGV   = 11
	SIGALRM   = 14
	SIGCHLD   = 17
	SIGCONT   = 18
	SIGSTOP   = 19
	SIGURG    = 23
	SIGVTALRM = 26
	SIGPROF   = 27
	SIGWINCH  = 28
	SIGRTMIN  = 32 // the first real-time signal
	NSIG      = 64 // _NSIG: signals are numbered 1 to NSIG
)

// sa_handler values (include/uapi/asm-generic/signal-defs.h).
const (
	SIG_DFL = 0
	SIG_IGN = 1
)

// sa_flags bits (include/uapi/asm-generic/signal-defs.h; SA_RESTORER is
// arch/x86/include/uapi/asm/signal.h's, and arch/arm64/include/uapi/asm/signal.h's too, although
// the Go runtime sets it only on amd64).
const (
	SA_SIGINFO   = 0x4 // the handler takes (sig, info, ucontext): every frame here carries both anyway
	SA_RESTORER  = 0x04000000
	SA_ONSTACK   = 0x08000000
	SA_RESTART   = 0x10000000 // recorded; no system call is interrupted by a signal here
	SA_NODEFER   = 0x40000000
	SA_RESETHAND = 0x80000000
)

// rt_sigprocmask's how (include/uapi/asm-generic/signal-defs.h).
const (
	SIG_BLOCK   = 0
	SIG_UNBLOCK = 1
	SIG_SETMASK = 2
)

// ss_flags values (include/uapi/linux/signal.h).
const (
	SS_ONSTACK    = 1
	SS_DISABLE    = 2
	SS_AUTODISARM = 1 << 31
)

// MINSIGSTKSZ is the smallest stack sigaltstack accepts: x86's (arch/x86/include/uapi/asm/signal.h).
// arm64's header says 5120, but this kernel takes 2048 on both, so a smaller arm64 stack is
// accepted and a frame that does not fit kills the program at delivery.
const MINSIGSTKSZ = 2048

// si_code values (include/uapi/asm-generic/siginfo.h).
const (
	SI_USER     = 0
	SI_KERNEL   = 0x80
	SI_TKILL    = -6
	SI_TIMER    = -2
	SEGV_MAPERR = 1
	SEGV_ACCERR = 2
	FPE_INTDIV  = 1
	ILL_ILLOPN  = 2
	BUS_ADRALN  = 1
	TRAP_BRKPT  = 1
)

// Sizes of the structures the system calls exchange.
const (
	// SigsetSize is the kernel's sizeof(sigset_t): _NSIG bits (include/uapi/asm-generic/signal.h,
	// arch/x86/include/asm/signal.h). rt_sigprocmask and rt_sigaction take no other sigsetsize.
	SigsetSize = NSIG / 8

	// ActionSize is sizeof(struct sigaction) as rt_sigaction reads it (include/linux/signal_types.h
	// struct sigaction: sa_handler, sa_flags, sa_restorer, sa_mask; layout in action.go).
	ActionSize = 32

	// StackSize is sizeof(stack_t) (include/uapi/asm-generic/signal.h struct sigaltstack; layout in
	// altstack.go).
	StackSize = 24

	// InfoSize is sizeof(siginfo_t): SI_MAX_SIZE (include/uapi/asm-generic/siginfo.h; layout in
	// info.go).
	InfoSize = 128
)
