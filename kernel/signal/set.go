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
// one, and real-time signals go in number order. It returns 0 when none can be taken.
func Next(pending, blocked Set) int {
	ready := pending &^ blocked
	if ready == 0 {
		return 0
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
