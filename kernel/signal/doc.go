// Package signal is the kernel's Linux signal logic, apart from the machine: which signal a
// thread takes next, what rt_sigaction, rt_sigprocmask and sigaltstack record, and the Linux
// signal frame of each architecture as bytes (Linux's struct rt_sigframe: siginfo, ucontext with
// the saved registers and FP state), built for a handler and read back for rt_sigreturn.
//
// The kernel package is the glue around it: it finds the bytes in the thread's memory, maps its
// trap Frame to the contexts here and back, and kills the program when Linux would. Everything
// here is pure and runs in kernel mode (in system calls and traps), so it never allocates, keeps
// no pointers in its state, and is tested on the host.
//
// What the Go runtime needs is what is implemented: SIGURG from tgkill for asynchronous
// preemption, and synchronous SIGSEGV/SIGBUS/SIGFPE/SIGILL/SIGTRAP for faults, which the runtime
// turns into panics. A signal is delivered when its thread next returns from the kernel; a
// thread blocked in a system call keeps it pending until the call completes (the runtime
// signals running threads only), so SA_RESTART has nothing to restart. Each signal is pending
// at most once, real-time ones included: a second one sent before delivery replaces the first's
// siginfo. There is no job control: the default action of every signal that is not ignored by
// default ends the program.
package signal
