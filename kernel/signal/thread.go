package signal

// Thread is one thread's signal state: its mask, its pending signals with their siginfo, and
// its alternate signal stack. The zero value is a thread with nothing blocked or pending and no
// alternate stack.
type Thread struct {
	Mask    Set // blocked signals
	Pending Set
	// Timed are the signals that a POSIX timer's expiry has pending on the thread: the timers
	// keep those (their id and overrun), so they queue beside a plain signal of the same number
	// and beside each other, as Linux's queued timer signals do.
	Timed Set
	Alt   AltStack
	info  [NSIG + 1]Info // each pending signal's siginfo, by number
}

// SetMask replaces the mask (rt_sigprocmask, rt_sigreturn, clone), without the unblockable
// signals.
func (t *Thread) SetMask(m Set) { t.Mask = m &^ Unblockable }

// Send makes sig pending with info, replacing the siginfo of a sig already pending. It reports
// whether t does not block sig, that is whether t takes it at its next return from the kernel.
func (t *Thread) Send(sig int, info Info) (takes bool) {
	t.Pending |= Bit(sig)
	t.info[sig] = info
	return !t.Mask.Has(sig)
}

// Next returns the signal t takes next (Next of its pending and mask), or 0.
func (t *Thread) Next() int { return Next(t.Pending|t.Timed, t.Mask) }

// Take removes sig's plain instance from the pending set and returns its siginfo, or reports
// timer=true when only a timer's sig is pending: the caller takes that from the timers and
// clears sig from Timed once none is left.
func (t *Thread) Take(sig int) (info Info, timer bool) {
	if !t.Pending.Has(sig) {
		return Info{}, t.Timed.Has(sig)
	}
	t.Pending &^= Bit(sig)
	return t.info[sig], false
}

// EnterHandler records that t entered the handler of sig under action a: while it runs, t
// blocks what a.HandlerMask says.
func (t *Thread) EnterHandler(sig int, a Action) { t.Mask = a.HandlerMask(sig, t.Mask) }

// ProcessTarget picks the thread that takes a process-directed signal (kill): the sender if it
// does not block sig; otherwise the first live thread, in id order from first to end-1, that
// does not; otherwise the sender, where sig stays pending until the sender unblocks it. mask
// reports a thread's mask and whether the thread is live.
func ProcessTarget(sig, sender int, senderMask Set, first, end int, mask func(id int) (Set, bool)) int {
	if !senderMask.Has(sig) {
		return sender
	}
	for id := first; id < end; id++ {
		if m, live := mask(id); live && !m.Has(sig) {
			return id
		}
	}
	return sender
}
