package sched

import "testing"

// fakeKernelClocks stands in for the entry stubs' per-CPU kernel clocks: Enter and Leave mark a
// CPU's kernel entries, whatever thread it runs.
type fakeKernelClocks struct {
	since, total [MaxCPUs]int64
}

func (k *fakeKernelClocks) Enter(c int, now int64) { k.since[c] = now }
func (k *fakeKernelClocks) Leave(c int, now int64) {
	k.total[c] += now - k.since[c]
	k.since[c] = 0
}
func (k *fakeKernelClocks) read(c int, now int64) int64 {
	if k.since[c] != 0 {
		return k.total[c] + now - k.since[c]
	}
	return k.total[c]
}

// TestSystemTime follows one thread's kernel stretches through entries, a switch inside an
// entry (blocking), and a wake-up on the other CPU: its system time is exactly the stretches,
// its user time the rest, and the process's sums agree with the threads'. The idle threads'
// entries count for nobody.
func TestSystemTime(t *testing.T) {
	s := newScheduler(t, 2, a, b)
	var k fakeKernelClocks
	clock := KernelClock(k.read)
	k.Enter(0, 50) // the idle thread's interrupt: nobody's time
	k.Leave(0, 60)
	s.Ready(a, 0)
	k.Enter(0, 90) // CPU 0 takes a from its idle thread inside an entry
	wantNextClock(t, s, clock, 0, 100, 0, a)
	k.Leave(0, 110)
	k.Enter(0, 300) // a system call
	k.Leave(0, 350)
	if total, sys := s.Times(a, 400, clock); total != 300 || sys != 60 {
		t.Fatalf("Times(a) = %d, %d; want 300, 60", total, sys)
	}
	k.Enter(0, 500) // a blocking call: a stops in the kernel at 520, CPU 0 goes idle
	if total, sys := s.Times(a, 510, clock); total != 410 || sys != 70 {
		t.Fatalf("Times(a) inside the kernel = %d, %d; want 410, 70", total, sys)
	}
	s.Block(a)
	wantNextClock(t, s, clock, 0, 520, a, 0)
	k.Leave(0, 530) // the idle thread leaves: nothing to charge
	if total, sys := s.Times(a, 900, clock); total != 420 || sys != 80 {
		t.Fatalf("blocked a's Times = %d, %d; want 420, 80", total, sys)
	}
	// CPU 1 wakes a inside its own entry (its idle thread's) and switches to it at 1000: a's
	// call completes in the kernel until 1010.
	k.Enter(1, 990)
	s.Ready(a, 995)
	wantNextClock(t, s, clock, 1, 1000, 1, a)
	k.Leave(1, 1010)
	if total, sys := s.Times(a, 1100, clock); total != 520 || sys != 90 {
		t.Fatalf("Times(a) after the wake-up = %d, %d; want 520, 90", total, sys)
	}
	s.Ready(b, 1100)
	k.Enter(0, 1095)
	wantNextClock(t, s, clock, 0, 1100, 0, b)
	k.Leave(0, 1105)
	k.Enter(0, 1150) // b in the kernel at the time of the question
	if total, sys := s.ProcessTimes(1200, clock); total != 620+100 || sys != 90+55 {
		t.Fatalf("ProcessTimes = %d, %d; want 720, 145", total, sys)
	}
	// b exits in the kernel: its stretch and its run stay in the process's times.
	s.Exit(b)
	wantNextClock(t, s, clock, 0, 1300, b, 0)
	if total, sys := s.ProcessTimes(1300, clock); total != 720+200 || sys != 90+155 {
		t.Fatalf("ProcessTimes after b's exit = %d, %d; want 920, 245", total, sys)
	}
}

// TestSystemTimeWithoutClock: a Scheduler with no kernel clock counts everything as user time.
func TestSystemTimeWithoutClock(t *testing.T) {
	s := newScheduler(t, 1, a)
	s.Ready(a, 0)
	wantNext(t, s, 0, 100, 0, a)
	if total, sys := s.Times(a, 400, nil); total != 300 || sys != 0 {
		t.Fatalf("Times(a) = %d, %d; want 300, 0", total, sys)
	}
}
