package signal

import "encoding/binary"

// Action is one signal's disposition, as rt_sigaction sets and reports it.
type Action struct {
	Handler  uint64 // SIG_DFL, SIG_IGN or the handler's address
	Flags    uint64 // SA_* bits
	Restorer uint64 // sa_restorer: where the handler returns to (amd64 always; arm64 with SA_RESTORER)
	Mask     Set    // also blocked while the handler runs
}

// struct sigaction as rt_sigaction reads and writes it (include/linux/signal_types.h struct
// sigaction, the same on amd64 and arm64; the Go runtime's sigactiont, TestActionLayout).
const (
	actHandler  = 0  // sa_handler
	actFlags    = 8  // sa_flags
	actRestorer = 16 // sa_restorer
	actMask     = 24 // sa_mask
)

// PutAction writes a as a struct sigaction into b (ActionSize bytes).
func PutAction(b []byte, a Action) {
	_ = b[ActionSize-1]
	binary.LittleEndian.PutUint64(b[actHandler:], a.Handler)
	binary.LittleEndian.PutUint64(b[actFlags:], a.Flags)
	binary.LittleEndian.PutUint64(b[actRestorer:], a.Restorer)
	binary.LittleEndian.PutUint64(b[actMask:], uint64(a.Mask))
}

// ReadAction reads a struct sigaction from b (ActionSize bytes).
func ReadAction(b []byte) Action {
	_ = b[ActionSize-1]
	return Action{
		Handler:  binary.LittleEndian.Uint64(b[actHandler:]),
		Flags:    binary.LittleEndian.Uint64(b[actFlags:]),
		Restorer: binary.LittleEndian.Uint64(b[actRestorer:]),
		Mask:     Set(binary.LittleEndian.Uint64(b[actMask:])),
	}
}

// CanCatch reports whether rt_sigaction may change sig's disposition: not SIGKILL's or SIGSTOP's.
func CanCatch(sig int) bool { return sig != SIGKILL && sig != SIGSTOP }

// Disposition is what delivering a signal does.
type Disposition uint8

const (
	Ignore    Disposition = iota // nothing: SIG_IGN, or SIG_DFL of a signal ignored by default
	Terminate                    // the default action ends the program
	Handle                       // the handler runs on a signal frame
)

// DefaultIgnored reports whether SIG_DFL means ignoring sig (SIGCHLD, SIGURG, SIGWINCH and, with
// nothing ever stopped, SIGCONT).
func DefaultIgnored(sig int) bool {
	switch sig {
	case SIGCHLD, SIGURG, SIGWINCH, SIGCONT:
		return true
	}
	return false
}

// Disposition says what delivering sig under a does.
func (a Action) Disposition(sig int) Disposition {
	switch a.Handler {
	case SIG_IGN:
		return Ignore
	case SIG_DFL:
		if DefaultIgnored(sig) {
			return Ignore
		}
		return Terminate
	}
	return Handle
}

// HandlerMask returns the mask the handler of sig runs with when the interrupted code had mask:
// a's mask added, and sig itself unless SA_NODEFER.
func (a Action) HandlerMask(sig int, mask Set) Set {
	if a.Flags&SA_NODEFER == 0 {
		mask |= Bit(sig)
	}
	return (mask | a.Mask) &^ Unblockable
}

// Actions holds a process's dispositions, indexed by signal number (entry 0 is unused).
type Actions [NSIG + 1]Action

// Set installs a for sig (one CanCatch allows). Its mask is stored without the unblockable
// signals.
func (as *Actions) Set(sig int, a Action) {
	a.Mask &^= Unblockable
	as[sig] = a
}

// Entered records that the handler of sig was entered under a (the action read before the frame
// was built): SA_RESETHAND makes the next delivery SIG_DFL's.
func (as *Actions) Entered(sig int, a Action) {
	if a.Flags&SA_RESETHAND != 0 {
		as[sig].Handler = SIG_DFL
	}
}

// Force makes sure a synchronous fault sig reaches the thread whose mask is *mask: a fault it
// blocks or ignores cannot be held back or dropped, so, as Linux's force_sig_info does, sig is
// unblocked and its disposition returns to SIG_DFL, and the program dies of it.
func (as *Actions) Force(sig int, mask *Set) {
	if mask.Has(sig) || as[sig].Handler == SIG_IGN {
		as[sig].Handler = SIG_DFL
		*mask &^= Bit(sig)
	}
}
