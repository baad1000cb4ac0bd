package sched

import "testing"

// TestSystemTime follows one thread's kernel stretches through entries, a switch inside an
// entry (blocking), and a wake-up on the other CPU: its system time is exactly the stretches,
// its user time the rest, and the process's sums agree with the threads'.
func TestSystemTime(t *testing.T) {
	s := newScheduler(t, 2, a, b)
	s.Ready(a, 0)
	wantNext(t, s, 0, 100, 0, a) // a runs on CPU 0 from 100
	s.EnterKernel(0, 300)        // a system call
	s.LeaveKernel(0, 350)
	if total, sys := s.Times(a, 400); total != 300 || sys != 50 {
		t.Fatalf("Times(a) = %d, %d; want 300, 50", total, sys)
	}
	s.EnterKernel(0, 500) // a blocking call: a stops in the kernel at 520, CPU 0 goes idle
	if total, sys := s.Times(a, 510); total != 410 || sys != 60 {
		t.Fatalf("Times(a) inside the kernel = %d, %d; want 410, 60", total, sys)
	}
	s.Block(a)
	wantNext(t, s, 0, 520, a, 0)
	s.LeaveKernel(0, 530) // the idle thread leaves: nothing to charge
	if total, sys := s.Times(a, 900); total != 420 || sys != 70 {
		t.Fatalf("blocked a's Times = %d, %d; want 420, 70", total, sys)
	}
	// CPU 1 wakes a inside its own entry (idle, so EnterKernel charges nobody) and switches
	// to it at 1000: a's call completes in the kernel until 1010.
	s.EnterKernel(1, 990)
	s.Ready(a, 995)
	wantNext(t, s, 1, 1000, 1, a)
	s.LeaveKernel(1, 1010)
	if total, sys := s.Times(a, 1100); total != 520 || sys != 80 {
		t.Fatalf("Times(a) after the wake-up = %d, %d; want 520, 80", total, sys)
	}
	s.Ready(b, 1100)
	wantNext(t, s, 0, 1100, 0, b)
	s.EnterKernel(0, 1150) // b in the kernel at the time of the question
	if total, sys := s.ProcessTimes(1200); total != 620+100 || sys != 80+50 {
		t.Fatalf("ProcessTimes = %d, %d; want 720, 130", total, sys)
	}
	// b exits in the kernel: its stretch and its run stay in the process's times.
	s.Exit(b)
	wantNext(t, s, 0, 1300, b, 0)
	if total, sys := s.ProcessTimes(1300); total != 720+200 || sys != 80+150 {
		t.Fatalf("ProcessTimes after b's exit = %d, %d; want 920, 230", total, sys)
	}
}
