package signal

import "math/bits"

// Set is a set of signals as Linux's sigset_t holds one: bit n-1 for signal n.
type Set uint64

// Bit is the set holding only sig (1 to NSIG).
func Bit(sig int) Set { return 1 << uint(sig-1) }

// Has reports whether s holds sig.
func (s Set) Has(sig int) bool { return s&Bit(sig) != 0 }

// Valid reports whether sig names a signal (1 to NSIG).
func Valid(sig int) bool { return sig >= 1 && sig <= NSIG }

// Unblockable holds SIGKILL and SIGSTOP, which no mask can block: every mask is stored without
// them, as Linux's sigdelsetmask(&mask, sigmask(SIGKILL)|sigmask(SIGSTOP)) does.
const Unblockable = Set(1<<(SIGKILL-1) | 1<<(SIGSTOP-1))

// Next returns the signal a thread takes next out of pending while it blocks blocked: the
// lowest-numbered one, so every standard signal (below SIGRTMIN) goes before every real-time
// one, and real-time signals go in number order; but SIGURG goes after all the others. It
// returns 0 when none can be taken.
//
// SIGURG last is where this order leaves Linux's (lowest number first), which POSIX leaves
// open for the standard signals. SIGURG is the Go runtime's preemption signal, and its handler
// moves the interrupted pc to runtime.asyncPreempt; the runtime's handlers block every signal,
// so a signal pending beside it waited for its rt_sigreturn and then found the thread at
// asyncPreempt instead of where it was interrupted. For SIGPROF that charged the sample to
// asyncPreempt instead of to the code that used the time: under this kernel the two meet at
// one return far more often than under Linux (a CPU-time timer's tick and the switch to sysmon
// at the same tick, a tick waiting for the kernel lock while sysmon on another CPU sends
// SIGURG), and runtime/pprof's profile of a Go loop gave asyncPreempt 8-13% of its samples.
// Taken first, the other signal's handler sees the thread where it was, and SIGURG, held by
// that handler's mask, preempts it there at the handler's rt_sigreturn.
func Next(pending, blocked Set) int {
	ready := pending &^ blocked
	if ready == 0 {
		return 0
	}
	if other := ready &^ Bit(SIGURG); other != 0 {
		ready = other
	}
	return bits.TrailingZeros64(uint64(ready)) + 1
}

// ChangeMask returns the mask rt_sigprocmask(how, set) leaves in place of mask; ok is false for
// a how it does not know, which leaves the mask alone (EINVAL).
func ChangeMask(mask Set, how int, set Set) (_ Set, ok bool) {
	switch how {
	case SIG_BLOCK:
		mask |= set
	case SIG_UNBLOCK:
		mask &^= set
	case SIG_SETMASK:
		mask = set
	default:
		return mask, false
	}
	return mask &^ Unblockable, true
}
