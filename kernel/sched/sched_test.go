package sched

import (
	"slices"
	"testing"
)

// Program thread slots for the tests.
const (
	a = FirstThread + iota
	b
	c
	d
)

func newScheduler(t *testing.T, ncpu int, slots ...int32) *Scheduler {
	t.Helper()
	s := new(Scheduler)
	s.SetCPUs(ncpu)
	for _, slot := range slots {
		if !s.Add(slot) {
			t.Fatalf("Add(%d) = false", slot)
		}
	}
	return s
}

// wantNext calls Next(cpu) and checks what it switched from and to.
func wantNext(t *testing.T, s *Scheduler, cpu int, now int64, prev, next int32) {
	t.Helper()
	wantNextClock(t, s, nil, cpu, now, prev, next)
}

// wantNextClock is wantNext with a kernel clock.
func wantNextClock(t *testing.T, s *Scheduler, clock KernelClock, cpu int, now int64, prev, next int32) {
	t.Helper()
	if p, n := s.Next(cpu, now, clock); p != prev || n != next {
		t.Fatalf("Next(%d) = %d, %d; want %d, %d", cpu, p, n, prev, next)
	}
	if err := s.invariants(); err != "" {
		t.Fatal(err)
	}
}

func wantState(t *testing.T, s *Scheduler, slot int32, want State) {
	t.Helper()
	if got := s.State(slot); got != want {
		t.Fatalf("State(%d) = %v, want %v", slot, got, want)
	}
}

func TestZeroValue(t *testing.T) {
	var s Scheduler
	if s.All() != 1 || s.Current(0) != 0 || s.State(0) != Running || s.CPU(0) != 0 {
		t.Fatalf("zero Scheduler: All %#x, Current(0) %d, State(0) %v, CPU(0) %d", s.All(), s.Current(0), s.State(0), s.CPU(0))
	}
	if s.State(1) != Free || s.State(a) != Free || s.CPU(a) != -1 {
		t.Fatalf("zero Scheduler: State(1) %v, State(a) %v, CPU(a) %d", s.State(1), s.State(a), s.CPU(a))
	}
	if s.RunnableFor(0) || s.TickDue(0, 1e12) || s.Excluded(0) || s.Queued() != 0 {
		t.Fatal("zero Scheduler has work")
	}
	wantNext(t, &s, 0, 0, 0, 0) // idle, and stays so
}

func TestSetCPUs(t *testing.T) {
	for _, tt := range []struct {
		n    int
		want uint64
	}{{-1, 1}, {0, 1}, {1, 1}, {3, 7}, {MaxCPUs, 1<<MaxCPUs - 1}, {MaxCPUs + 1, 1<<MaxCPUs - 1}} {
		s := new(Scheduler)
		s.SetCPUs(tt.n)
		if s.All() != tt.want {
			t.Errorf("SetCPUs(%d): All = %#x, want %#x", tt.n, s.All(), tt.want)
		}
		for cpu := 0; cpu < MaxCPUs; cpu++ {
			on := tt.want&(1<<uint(cpu)) != 0
			if on && (s.Current(cpu) != int32(cpu) || s.State(int32(cpu)) != Running) {
				t.Errorf("SetCPUs(%d): CPU %d runs %d (%v), want its idle thread", tt.n, cpu, s.Current(cpu), s.State(int32(cpu)))
			}
			if !on && s.State(int32(cpu)) != Free {
				t.Errorf("SetCPUs(%d): idle thread %d of a CPU not run is %v", tt.n, cpu, s.State(int32(cpu)))
			}
		}
	}
}

func TestNewThread(t *testing.T) {
	s := newScheduler(t, 4, a)
	wantState(t, s, a, Blocked)
	if s.Affinity(a) != 0xf || s.ClassOf(a) != TimeSliced || s.CPU(a) != -1 || s.CPUTime(a, 1e9) != 0 {
		t.Fatalf("new thread: affinity %#x, class %d, CPU %d", s.Affinity(a), s.ClassOf(a), s.CPU(a))
	}
	if s.Add(a) {
		t.Fatal("Add of a live thread's slot succeeded")
	}
	for _, slot := range []int32{-1, 0, FirstThread - 1, MaxThreads} {
		if s.Add(slot) {
			t.Errorf("Add(%d) succeeded", slot)
		}
	}
}

// The run queue is FIFO: threads run in the order they became runnable, whether new, woken or
// preempted.
func TestFIFOOrder(t *testing.T) {
	s := newScheduler(t, 1, a, b, c, d)
	for _, slot := range []int32{c, a, d} {
		s.Ready(slot, 0)
	}
	var order []int32
	for i := 0; i < 3; i++ {
		_, next := s.Next(0, int64(i), nil)
		order = append(order, next)
		if i == 0 {
			s.Ready(b, 1) // woken while c runs: behind a and d
		}
		s.Block(next)
	}
	_, next := s.Next(0, 3, nil)
	order = append(order, next)
	if want := []int32{c, a, d, b}; !slices.Equal(order, want) {
		t.Fatalf("ran %v, want %v", order, want)
	}
	// A thread that gives its CPU up goes to the back, behind those already waiting.
	s.Ready(a, 4)
	s.Ready(c, 4)
	s.Ready(b, 5) // b, running, yields
	wantNext(t, s, 0, 5, b, a)
	s.Ready(a, 6)
	wantNext(t, s, 0, 6, a, c)
	s.Block(c)
	wantNext(t, s, 0, 7, c, b)
}

// A CPU takes the oldest runnable thread its affinity allows, and never one it excludes: a
// thread pinned to a busy CPU waits even while another CPU idles.
func TestAffinity(t *testing.T) {
	s := newScheduler(t, 2, a, b, c)
	if _, ok := s.SetAffinity(a, 1<<1); !ok {
		t.Fatal("SetAffinity(a, CPU 1) refused")
	}
	s.Ready(a, 0)
	s.Ready(b, 1)
	if !s.RunnableFor(0) || !s.RunnableFor(1) {
		t.Fatal("RunnableFor: want both CPUs to have work")
	}
	wantNext(t, s, 0, 2, 0, b) // a is older, but pinned to CPU 1
	if s.RunnableFor(0) {
		t.Fatal("RunnableFor(0): a is pinned to CPU 1")
	}
	wantNext(t, s, 1, 2, 1, a)
	// a blocks, and wakes while c runs on CPU 1: CPU 0 stays idle rather than run a.
	s.Block(b)
	wantNext(t, s, 0, 3, b, 0)
	s.Ready(c, 3)
	s.SetAffinity(c, 1<<1)
	s.Block(a)
	wantNext(t, s, 1, 4, a, c)
	s.Ready(a, 5)
	if s.RunnableFor(0) || s.TickDue(0, 1e12) {
		t.Fatal("CPU 0 may take a thread pinned to CPU 1")
	}
	wantNext(t, s, 0, 6, 0, 0)
	if got := s.IdleFor(a, 1); got != 0 {
		t.Fatalf("IdleFor(a, 1) = %#x: no idle CPU may run a", got)
	}
}

// Narrowing the mask of a running thread to exclude its CPU moves it: SetAffinity names the
// CPU, which finds itself Excluded, gives the thread up and takes another; a CPU the mask
// allows takes the thread.
func TestSetAffinityOfRunningThread(t *testing.T) {
	s := newScheduler(t, 3, a, b)
	s.Ready(a, 0)
	wantNext(t, s, 0, 0, 0, a)
	s.Ready(b, 0)
	wantNext(t, s, 1, 0, 1, b)
	if leave, ok := s.SetAffinity(a, 0b011); !ok || leave != -1 {
		t.Fatalf("SetAffinity(a, CPUs 0-1) = %d, %v; want -1, true (CPU 0 may keep it)", leave, ok)
	}
	if s.Excluded(0) {
		t.Fatal("Excluded(0) with a allowed there")
	}
	leave, ok := s.SetAffinity(a, 0b110)
	if !ok || leave != 0 {
		t.Fatalf("SetAffinity(a, CPUs 1-2) = %d, %v; want 0, true", leave, ok)
	}
	if !s.Excluded(0) || s.Excluded(1) || s.Excluded(2) {
		t.Fatalf("Excluded = %v %v %v, want CPU 0 only", s.Excluded(0), s.Excluded(1), s.Excluded(2))
	}
	s.Ready(a, 1)
	if got := s.IdleFor(a, 0); got != 1<<2 {
		t.Fatalf("IdleFor(a, 0) = %#x, want CPU 2 (CPU 1 runs b)", got)
	}
	wantNext(t, s, 0, 1, a, 0) // a may not run on CPU 0 any more
	wantNext(t, s, 2, 1, 2, a)
	if s.CPU(a) != 2 || s.Excluded(2) {
		t.Fatalf("a on CPU %d, Excluded(2) %v", s.CPU(a), s.Excluded(2))
	}
	// A blocked thread's mask changes where it runs when it wakes.
	s.Block(b)
	wantNext(t, s, 1, 2, b, 1)
	if leave, ok := s.SetAffinity(b, 1<<0); !ok || leave != -1 {
		t.Fatalf("SetAffinity(blocked b) = %d, %v; want -1, true", leave, ok)
	}
	s.Ready(b, 3)
	if s.RunnableFor(1) || !s.RunnableFor(0) {
		t.Fatal("b should be runnable on CPU 0 only")
	}
}

// The mask comes from a system call: bits beyond the CPUs the scheduler runs are dropped, and
// a mask with none of them is refused.
func TestSetAffinityMask(t *testing.T) {
	s := newScheduler(t, 4, a)
	for _, tt := range []struct {
		mask uint64
		want uint64
		ok   bool
	}{
		{0b0110, 0b0110, true},
		{0, 0b0110, false},
		{0xfff0, 0b0110, false},
		{1 << 63, 0b0110, false},
		{^uint64(0), 0b1111, true},
		{0xf08, 0b1000, true},
	} {
		_, ok := s.SetAffinity(a, tt.mask)
		if ok != tt.ok || s.Affinity(a) != tt.want {
			t.Errorf("SetAffinity(%#x) = %v, affinity %#x; want %v, %#x", tt.mask, ok, s.Affinity(a), tt.ok, tt.want)
		}
	}
	for _, slot := range []int32{-1, 0, 3, b, MaxThreads} {
		if _, ok := s.SetAffinity(slot, 1); ok {
			t.Errorf("SetAffinity(%d) accepted", slot)
		}
	}
}

// A time-sliced thread gives its CPU up on the first tick after its quantum when another
// thread may run there; a FIFO thread keeps it; an idle CPU switches as soon as it may.
func TestTimeSlice(t *testing.T) {
	const start = 1000
	s := newScheduler(t, 1, a, b)
	s.Ready(a, 0)
	wantNext(t, s, 0, start, 0, a)
	if s.TickDue(0, start+10*Quantum) {
		t.Fatal("TickDue with nothing else runnable")
	}
	s.Ready(b, start)
	if s.TickDue(0, start+Quantum-1) {
		t.Fatal("TickDue before the quantum is used")
	}
	if !s.TickDue(0, start+Quantum) {
		t.Fatal("no TickDue once the quantum is used")
	}
	s.SetClass(a, FIFO)
	if s.TickDue(0, start+100*Quantum) {
		t.Fatal("TickDue for a FIFO thread")
	}
	s.SetClass(a, TimeSliced)
	// a yields before its quantum ends and goes behind b; when b blocks, a starts a new
	// quantum.
	s.Ready(a, start+Quantum/2)
	wantNext(t, s, 0, start+Quantum/2, a, b)
	s.Block(b)
	wantNext(t, s, 0, start+Quantum, b, a)
	s.Add(c)
	s.Ready(c, start+Quantum)
	if s.TickDue(0, start+2*Quantum-1) || !s.TickDue(0, start+2*Quantum) {
		t.Fatal("a's new quantum should start when it started running again")
	}
	// Taken back at once (nothing else may run here), a thread goes on with the same quantum.
	s.Exit(c)
	s.Ready(a, start+Quantum+1)
	wantNext(t, s, 0, start+Quantum+1, a, a)
	s.Add(d)
	s.Ready(d, start+Quantum+1)
	if !s.TickDue(0, start+2*Quantum) {
		t.Fatal("taking a back restarted its quantum")
	}
	// The idle CPU switches at any tick.
	s.Block(a)
	wantNext(t, s, 0, start+Quantum+2, a, d)
	s.Block(d)
	wantNext(t, s, 0, start+Quantum+3, d, 0)
	s.Ready(a, start+Quantum+4)
	if !s.TickDue(0, start+Quantum+4) {
		t.Fatal("idle CPU: no TickDue with a runnable")
	}
}

func TestBlockAndWake(t *testing.T) {
	s := newScheduler(t, 1, a, b)
	if s.Block(a) {
		t.Fatal("Block of a blocked thread")
	}
	if !s.Ready(a, 0) || s.Ready(a, 0) {
		t.Fatal("Ready: want a blocked thread readied once")
	}
	wantState(t, s, a, Runnable)
	if s.Block(a) {
		t.Fatal("Block of a runnable thread")
	}
	wantNext(t, s, 0, 0, 0, a)
	wantState(t, s, a, Running)
	if !s.Block(a) {
		t.Fatal("Block of the running thread refused")
	}
	// It stays the CPU's current thread, blocked, until the CPU moves on.
	wantState(t, s, a, Blocked)
	if s.Current(0) != a {
		t.Fatalf("Current(0) = %d after Block, want a until Next", s.Current(0))
	}
	wantNext(t, s, 0, 1, a, 0)
	// A wake-up that comes before the CPU moved on: it takes the thread back.
	s.Ready(a, 2)
	wantNext(t, s, 0, 2, 0, a)
	s.Block(a)
	s.Ready(a, 3)
	wantNext(t, s, 0, 3, a, a)
	wantState(t, s, a, Running)
}

// A CPU with nothing it may run runs its idle thread; a running thread that Next finds still
// running keeps its CPU.
func TestIdle(t *testing.T) {
	s := newScheduler(t, 2, a)
	wantNext(t, s, 1, 0, 1, 1)
	s.Ready(a, 0)
	wantNext(t, s, 1, 0, 1, a)
	wantNext(t, s, 1, 1, a, a) // still running: no switch
	if s.RunnableFor(0) || s.TickDue(0, 1e12) {
		t.Fatal("CPU 0 has work")
	}
	wantNext(t, s, 0, 1, 0, 0)
	wantState(t, s, 0, Running)
	s.Block(a)
	wantNext(t, s, 1, 2, a, 1)
	wantState(t, s, 1, Running)
	if s.State(0) != Running || s.CPU(1) != 1 {
		t.Fatalf("idle threads: State(0) %v, CPU(1) %d", s.State(0), s.CPU(1))
	}
}

// IdleFor names the CPUs worth waking for a runnable thread.
func TestIdleFor(t *testing.T) {
	s := newScheduler(t, 4, a, b)
	s.Ready(a, 0)
	wantNext(t, s, 1, 0, 1, a) // CPU 1 busy; 0, 2 and 3 idle
	s.SetAffinity(b, 0b1110)
	for _, tt := range []struct {
		me   int
		want uint64
	}{
		{1, 0b1100}, // from busy CPU 1: the idle CPUs b may run on
		{2, 0},      // from idle CPU 2, which may run b: it takes it itself
		{0, 0b1100}, // from idle CPU 0, which may not run b
		{-1, 0b1100},
	} {
		if got := s.IdleFor(b, tt.me); got != tt.want {
			t.Errorf("IdleFor(b, %d) = %#b, want %#b", tt.me, got, tt.want)
		}
	}
	if s.IdleFor(c, 0) != 0 || s.IdleFor(0, 1) != 0 {
		t.Error("IdleFor of no thread")
	}
}

// A thread that gave its CPU up (Ready while running) is not taken by another CPU before its
// own CPU has switched away from it: the kernel has yet to save its context.
func TestReadiedThreadStaysUntilSwitched(t *testing.T) {
	s := newScheduler(t, 2, a)
	s.Ready(a, 0)
	wantNext(t, s, 0, 0, 0, a)
	s.Ready(a, 1)
	if s.RunnableFor(1) {
		t.Fatal("CPU 1 may take a, still CPU 0's current thread")
	}
	wantNext(t, s, 1, 1, 1, 1)
	if !s.RunnableFor(0) {
		t.Fatal("CPU 0 may not take a back")
	}
	s.Add(b)
	s.Ready(b, 1)
	wantNext(t, s, 0, 2, a, a) // a is older than b
	wantNext(t, s, 1, 2, 1, b)
}

func TestExitAndCPUTime(t *testing.T) {
	s := newScheduler(t, 2, a, b)
	s.Ready(a, 0)
	s.Ready(b, 0)
	wantNext(t, s, 0, 100, 0, a)
	wantNext(t, s, 1, 150, 1, b)
	if s.CPUTime(a, 400) != 300 || s.ProcessCPUTime(400) != 550 {
		t.Fatalf("CPUTime(a) %d, ProcessCPUTime %d; want 300, 550", s.CPUTime(a, 400), s.ProcessCPUTime(400))
	}
	s.Block(a)
	wantNext(t, s, 0, 500, a, 0)
	if s.CPUTime(a, 900) != 400 {
		t.Fatalf("blocked a's CPUTime = %d, want 400", s.CPUTime(a, 900))
	}
	s.Exit(b)
	if s.Add(b) {
		t.Fatal("Add of an exited slot before its CPU switched away")
	}
	wantNext(t, s, 1, 1150, b, 1)
	if s.ProcessCPUTime(2000) != 400+1000 {
		t.Fatalf("ProcessCPUTime = %d, want 1400: a's 400 and exited b's 1000", s.ProcessCPUTime(2000))
	}
	if !s.Add(b) || s.CPUTime(b, 3000) != 0 {
		t.Fatal("b's slot reused: want no CPU time")
	}
	// A runnable thread that exits leaves the queue.
	s.Ready(b, 3000)
	s.Exit(b)
	if s.Queued() != 0 || s.RunnableFor(0) {
		t.Fatal("exited thread still queued")
	}
}

func TestInherit(t *testing.T) {
	s := newScheduler(t, 4, a, b)
	s.SetAffinity(a, 0b0101)
	s.SetClass(a, FIFO)
	s.Inherit(b, a)
	if s.Affinity(b) != 0b0101 || s.ClassOf(b) != FIFO {
		t.Fatalf("child: affinity %#x, class %d", s.Affinity(b), s.ClassOf(b))
	}
	s.Inherit(c, a) // no thread in c
	s.Inherit(b, d) // no thread in d
	if s.State(c) != Free || s.Affinity(b) != 0b0101 {
		t.Fatal("Inherit with a free slot changed something")
	}
}

// Waiting is the watchdog's question: the runnable thread that has waited longest.
func TestWaiting(t *testing.T) {
	s := newScheduler(t, 2, a, b, c)
	if _, _, ok := s.Waiting(); ok {
		t.Fatal("Waiting with nothing runnable")
	}
	s.SetAffinity(a, 1<<1)
	s.Ready(a, 10)
	s.Ready(b, 20)
	s.Ready(c, 20)
	if slot, since, ok := s.Waiting(); !ok || slot != a || since != 10 {
		t.Fatalf("Waiting = %d, %d, %v; want a since 10", slot, since, ok)
	}
	wantNext(t, s, 1, 30, 1, a)
	if slot, since, _ := s.Waiting(); slot != b || since != 20 {
		t.Fatalf("Waiting = %d, %d; want b (first of the two since 20)", slot, since)
	}
	if s.Queued() != 2 || s.QueuedOn() != 0b11 {
		t.Fatalf("Queued %d, QueuedOn %#b", s.Queued(), s.QueuedOn())
	}
}

// Invalid slots and CPUs change nothing.
func TestInvalidArguments(t *testing.T) {
	s := newScheduler(t, 2, a)
	before := *s
	for _, slot := range []int32{-1 << 31, -1, 0, 1, FirstThread - 1, b, MaxThreads, 1 << 30} {
		s.Ready(slot, 1)
		s.Block(slot)
		s.Exit(slot)
		s.SetAffinity(slot, ^uint64(0))
		s.SetClass(slot, FIFO)
		s.Inherit(slot, a)
		s.Inherit(a, slot)
		if s.CPUTime(slot, 5) != 0 || s.IdleFor(slot, 0) != 0 || s.Affinity(slot) != 0 {
			t.Errorf("slot %d: CPUTime %d, IdleFor %#x, Affinity %#x", slot, s.CPUTime(slot, 5), s.IdleFor(slot, 0), s.Affinity(slot))
		}
	}
	s.SetClass(a, Class(7))
	for _, cpu := range []int{-1 << 31, -1, 2, MaxCPUs - 1, MaxCPUs, 1 << 30} {
		if p, n := s.Next(cpu, 1, nil); p != -1 || n != -1 {
			t.Errorf("Next(%d) = %d, %d", cpu, p, n)
		}
		if s.RunnableFor(cpu) || s.TickDue(cpu, 1e12) || s.Excluded(cpu) {
			t.Errorf("CPU %d has work", cpu)
		}
	}
	if *s != before {
		t.Fatal("invalid calls changed the scheduler")
	}
}
