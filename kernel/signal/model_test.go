package signal

import (
	"math/rand/v2"
	"testing"
)

// The reference model: the same rules written the plain way, one bool per signal, to run
// random operation sequences against.

type modelThread struct {
	live    bool
	blocked [NSIG + 1]bool
	pending [NSIG + 1]bool
	info    [NSIG + 1]Info
}

type modelAction struct {
	handler, flags uint64
	mask           [NSIG + 1]bool
}

type model struct {
	threads []modelThread
	actions [NSIG + 1]modelAction
}

func (m *model) unblockable(sig int) bool { return sig == SIGKILL || sig == SIGSTOP }

// next is the lowest-numbered pending signal the thread does not block, SIGURG only when there
// is no other.
func (m *model) next(id int) int {
	th := &m.threads[id]
	for sig := 1; sig <= NSIG; sig++ {
		if sig != SIGURG && th.pending[sig] && !th.blocked[sig] {
			return sig
		}
	}
	if th.pending[SIGURG] && !th.blocked[SIGURG] {
		return SIGURG
	}
	return 0
}

func (m *model) send(id, sig int, info Info) bool {
	th := &m.threads[id]
	th.pending[sig], th.info[sig] = true, info
	return !th.blocked[sig]
}

func (m *model) procmask(id, how int, set Set) bool {
	th := &m.threads[id]
	if how < SIG_BLOCK || how > SIG_SETMASK {
		return false
	}
	for sig := 1; sig <= NSIG; sig++ {
		in := set.Has(sig)
		switch how {
		case SIG_BLOCK:
			th.blocked[sig] = th.blocked[sig] || in
		case SIG_UNBLOCK:
			th.blocked[sig] = th.blocked[sig] && !in
		case SIG_SETMASK:
			th.blocked[sig] = in
		}
		if m.unblockable(sig) {
			th.blocked[sig] = false
		}
	}
	return true
}

func (m *model) sigaction(sig int, a Action) {
	ma := modelAction{handler: a.Handler, flags: a.Flags}
	for s := 1; s <= NSIG; s++ {
		ma.mask[s] = a.Mask.Has(s) && !m.unblockable(s)
	}
	m.actions[sig] = ma
}

// target is the thread a kill from sender goes to.
func (m *model) target(sender, sig int) int {
	if !m.threads[sender].blocked[sig] {
		return sender
	}
	for id, th := range m.threads {
		if th.live && !th.blocked[sig] {
			return id
		}
	}
	return sender
}

// deliver takes sig at thread id and returns what happens.
func (m *model) deliver(id, sig int) (Disposition, Info) {
	th := &m.threads[id]
	th.pending[sig] = false
	a := m.actions[sig]
	switch a.handler {
	case SIG_IGN:
		return Ignore, th.info[sig]
	case SIG_DFL:
		switch sig {
		case SIGCHLD, SIGURG, SIGWINCH, SIGCONT:
			return Ignore, th.info[sig]
		}
		return Terminate, th.info[sig]
	}
	if a.flags&SA_NODEFER == 0 {
		th.blocked[sig] = true
	}
	for s := 1; s <= NSIG; s++ {
		th.blocked[s] = (th.blocked[s] || a.mask[s]) && !m.unblockable(s)
	}
	if a.flags&SA_RESETHAND != 0 {
		m.actions[sig].handler = SIG_DFL
	}
	return Handle, th.info[sig]
}

func (m *model) force(id, sig int) {
	th := &m.threads[id]
	if th.blocked[sig] || m.actions[sig].handler == SIG_IGN {
		m.actions[sig].handler = SIG_DFL
		th.blocked[sig] = false
	}
}

// system is the package's side: threads and actions.
type system struct {
	threads []Thread
	live    []bool
	actions Actions
}

func (s *system) deliver(id, sig int) (Disposition, Info) {
	t := &s.threads[id]
	info, _ := t.Take(sig)
	a := s.actions[sig]
	d := a.Disposition(sig)
	if d == Handle {
		t.EnterHandler(sig, a)
		s.actions.Entered(sig, a)
	}
	return d, info
}

func compare(t *testing.T, step int, s *system, m *model) {
	t.Helper()
	for id := range s.threads {
		for sig := 1; sig <= NSIG; sig++ {
			if s.threads[id].Mask.Has(sig) != m.threads[id].blocked[sig] || s.threads[id].Pending.Has(sig) != m.threads[id].pending[sig] {
				t.Fatalf("step %d: thread %d, signal %d: mask %v pending %v, model %v %v", step, id, sig,
					s.threads[id].Mask.Has(sig), s.threads[id].Pending.Has(sig), m.threads[id].blocked[sig], m.threads[id].pending[sig])
			}
		}
	}
	for sig := 1; sig <= NSIG; sig++ {
		a, ma := s.actions[sig], m.actions[sig]
		if a.Handler != ma.handler || a.Flags != ma.flags {
			t.Fatalf("step %d: signal %d's action %+v, model %+v", step, sig, a, ma)
		}
		for x := 1; x <= NSIG; x++ {
			if a.Mask.Has(x) != ma.mask[x] {
				t.Fatalf("step %d: signal %d's action mask differs at %d", step, sig, x)
			}
		}
	}
}

// interesting signals, so that operations keep meeting: the unblockable ones, the defaults that
// ignore, faults, a standard one and real-time ones.
var someSignals = []int{1, SIGILL, SIGSEGV, SIGKILL, SIGSTOP, SIGCHLD, SIGURG, SIGCONT, SIGRTMIN - 1, SIGRTMIN, SIGRTMIN + 1, NSIG}

func randomSet(r *rand.Rand) Set {
	var s Set
	for range r.IntN(4) {
		s |= Bit(someSignals[r.IntN(len(someSignals))])
	}
	if r.IntN(8) == 0 {
		s = Set(r.Uint64())
	}
	return s
}

func TestMaskAndChoiceModel(t *testing.T) {
	const nthreads = 4
	r := rand.New(rand.NewPCG(5, 6))
	for run := range 50 {
		s := &system{threads: make([]Thread, nthreads), live: make([]bool, nthreads)}
		m := &model{threads: make([]modelThread, nthreads)}
		for i := range nthreads {
			s.live[i], m.threads[i].live = i < 2, i < 2
		}
		for step := range 400 {
			id := r.IntN(nthreads)
			sig := someSignals[r.IntN(len(someSignals))]
			info := Info{Signo: int32(sig), Code: int32(r.IntN(3)) - 1, Pid: int32(step)}
			switch op := r.IntN(8); op {
			case 0: // tgkill
				if got, want := s.threads[id].Send(sig, info), m.send(id, sig, info); got != want {
					t.Fatalf("run %d step %d: Send reports %v, model %v", run, step, got, want)
				}
			case 1: // rt_sigprocmask
				how, set := r.IntN(4), randomSet(r)
				mask, ok := ChangeMask(s.threads[id].Mask, how, set)
				if ok {
					s.threads[id].Mask = mask
				}
				if want := m.procmask(id, how, set); ok != want {
					t.Fatalf("run %d step %d: ChangeMask(%d) ok %v, model %v", run, step, how, ok, want)
				}
			case 2: // rt_sigaction
				if !CanCatch(sig) {
					continue
				}
				a := Action{
					Handler: []uint64{SIG_DFL, SIG_IGN, 0x401000}[r.IntN(3)],
					Flags:   []uint64{0, SA_NODEFER, SA_RESETHAND, SA_NODEFER | SA_RESETHAND | SA_ONSTACK}[r.IntN(4)],
					Mask:    randomSet(r),
				}
				s.actions.Set(sig, a)
				m.sigaction(sig, a)
			case 3: // kill from thread id
				if !s.live[id] {
					continue
				}
				got := ProcessTarget(sig, id, s.threads[id].Mask, 0, nthreads, func(i int) (Set, bool) { return s.threads[i].Mask, s.live[i] })
				if want := m.target(id, sig); got != want {
					t.Fatalf("run %d step %d: kill of %d from %d goes to %d, model %d", run, step, sig, id, got, want)
				}
				s.threads[got].Send(sig, info)
				m.send(got, sig, info)
			case 4, 5: // the return to thread id
				got, want := s.threads[id].Next(), m.next(id)
				if got != want {
					t.Fatalf("run %d step %d: thread %d takes %d next, model %d", run, step, id, got, want)
				}
				if got == 0 {
					continue
				}
				d, in := s.deliver(id, got)
				md, min := m.deliver(id, got)
				if d != md || in != min {
					t.Fatalf("run %d step %d: delivering %d: %v %+v, model %v %+v", run, step, got, d, in, md, min)
				}
			case 6: // a fault
				s.actions.Force(sig, &s.threads[id].Mask)
				m.force(id, sig)
				s.threads[id].Send(sig, info)
				m.send(id, sig, info)
				d, _ := s.deliver(id, sig)
				md, _ := m.deliver(id, sig)
				if d != md {
					t.Fatalf("run %d step %d: forced %d: %v, model %v", run, step, sig, d, md)
				}
				if d == Ignore && !DefaultIgnored(sig) {
					t.Fatalf("run %d step %d: forced %d was ignored", run, step, sig)
				}
			case 7: // clone or exit
				if s.live[id] {
					s.live[id], m.threads[id] = false, modelThread{}
					s.threads[id] = Thread{}
					continue
				}
				parent := r.IntN(nthreads)
				s.live[id], m.threads[id].live = true, true
				s.threads[id].SetMask(s.threads[parent].Mask)
				m.threads[id].blocked = m.threads[parent].blocked
			}
			compare(t, step, s, m)
		}
	}
}

func TestNextOrder(t *testing.T) {
	for _, c := range []struct {
		pending, blocked Set
		want             int
	}{
		{0, 0, 0},
		{Bit(SIGRTMIN) | Bit(SIGCHLD), 0, SIGCHLD},           // standard before real-time
		{Bit(SIGRTMIN+1) | Bit(SIGRTMIN), 0, SIGRTMIN},       // real-time in number order
		{Bit(SIGURG) | Bit(SIGRTMIN), Bit(SIGURG), SIGRTMIN}, // blocked ones wait
		{Bit(SIGURG) | Bit(SIGPROF), 0, SIGPROF},             // SIGURG after every other one
		{Bit(SIGURG) | Bit(SIGRTMIN), 0, SIGRTMIN},           // ... real-time ones too
		{Bit(SIGURG) | Bit(SIGALRM), 0, SIGALRM},             // ... and lower-numbered ones
		{Bit(SIGURG) | Bit(SIGPROF), Bit(SIGPROF), SIGURG},   // ... that it may take
		{Bit(SIGURG), 0, SIGURG},                             // alone, it goes
		{Bit(NSIG), 0, NSIG},                                 // the last one
		{Bit(SIGSEGV), Bit(SIGSEGV), 0},                      // nothing takeable
		{Bit(1) | Bit(NSIG), ^Set(0) &^ Bit(NSIG), NSIG},     // everything else blocked
		{Bit(SIGKILL), Bit(SIGKILL) &^ Unblockable, SIGKILL}, // masks never hold SIGKILL
	} {
		if got := Next(c.pending, c.blocked); got != c.want {
			t.Errorf("Next(%#x, %#x) = %d, want %d", c.pending, c.blocked, got, c.want)
		}
	}
}

func TestChangeMaskUnblockable(t *testing.T) {
	for how := SIG_BLOCK; how <= SIG_SETMASK; how++ {
		if m, ok := ChangeMask(0, how, ^Set(0)); !ok || m&Unblockable != 0 {
			t.Errorf("how %d: mask %#x ok %v: SIGKILL and SIGSTOP must stay unblocked", how, m, ok)
		}
	}
	if m, ok := ChangeMask(Bit(SIGURG), 3, 0); ok || m != Bit(SIGURG) {
		t.Errorf("an unknown how gave %#x ok %v, want the mask unchanged and not ok", m, ok)
	}
}

func TestActionCodec(t *testing.T) {
	a := Action{Handler: 0x1122334455667788, Flags: SA_SIGINFO | SA_ONSTACK | SA_RESTORER | SA_RESTART, Restorer: 0x99, Mask: ^Set(0)}
	b := make([]byte, ActionSize)
	PutAction(b, a)
	if got := ReadAction(b); got != a {
		t.Errorf("ReadAction(PutAction(%+v)) = %+v", a, got)
	}
	var as Actions
	as.Set(SIGSEGV, a)
	if as[SIGSEGV].Mask != ^Unblockable {
		t.Errorf("an installed mask %#x still holds SIGKILL or SIGSTOP", as[SIGSEGV].Mask)
	}
	if CanCatch(SIGKILL) || CanCatch(SIGSTOP) || !CanCatch(SIGSEGV) {
		t.Error("only SIGKILL and SIGSTOP are beyond rt_sigaction")
	}
}
