package signal

import "testing"

// TestPreemptLast follows a thread that has SIGURG (the Go runtime's preemption signal) and
// SIGPROF pending at one return, under the runtime's handlers, which block every signal
// (sigfillset of sa_mask): SIGPROF goes first, so its frame has the pc where the thread was;
// SIGURG waits for its rt_sigreturn and then preempts the thread at that same pc. Linux's order
// (SIGURG first, the lower number) would have SIGPROF wait instead, for a context whose pc the
// SIGURG handler moved to runtime.asyncPreempt. A SIGURG sent while SIGPROF's handler runs waits
// for the handler too.
func TestPreemptLast(t *testing.T) {
	goHandler := Action{Handler: 0x1000, Flags: SA_SIGINFO | SA_ONSTACK | SA_RESTART | SA_RESTORER, Restorer: 0x2000, Mask: ^Set(0)}
	for _, sendURGFirst := range []bool{false, true} {
		var th Thread
		if sendURGFirst {
			th.Send(SIGURG, Info{Signo: SIGURG, Code: SI_TKILL})
		}
		th.Send(SIGPROF, Info{Signo: SIGPROF, Code: SI_KERNEL})
		if !sendURGFirst {
			th.Send(SIGURG, Info{Signo: SIGURG, Code: SI_TKILL})
		}
		if got := th.Next(); got != SIGPROF {
			t.Fatalf("SIGURG and SIGPROF pending: Next = %d, want SIGPROF (%d)", got, SIGPROF)
		}
		saved := th.Mask // what the frame keeps, and rt_sigreturn restores
		th.Take(SIGPROF)
		th.EnterHandler(SIGPROF, goHandler)
		if got := th.Next(); got != 0 {
			t.Fatalf("in SIGPROF's handler (mask %#x): Next = %d, want none", uint64(th.Mask), got)
		}
		th.SetMask(saved) // rt_sigreturn
		if got := th.Next(); got != SIGURG {
			t.Fatalf("after SIGPROF's rt_sigreturn: Next = %d, want SIGURG (%d)", got, SIGURG)
		}
	}

	// A second SIGPROF (runtime/pprof arms setitimer's and a per-thread timer, both SIGPROF)
	// also goes before a SIGURG that came while the first one's handler ran.
	var th Thread
	th.Send(SIGPROF, Info{Signo: SIGPROF, Code: SI_KERNEL})
	th.Timed |= Bit(SIGPROF) // the per-thread timer's instance, which the timers keep
	th.Take(SIGPROF)
	th.EnterHandler(SIGPROF, goHandler)
	th.Send(SIGURG, Info{Signo: SIGURG, Code: SI_TKILL})
	if got := th.Next(); got != 0 {
		t.Fatalf("SIGURG sent in SIGPROF's handler: Next = %d, want none until rt_sigreturn", got)
	}
	th.SetMask(0)
	if got := th.Next(); got != SIGPROF {
		t.Fatalf("after the first SIGPROF's rt_sigreturn: Next = %d, want the timer's SIGPROF", got)
	}
}
