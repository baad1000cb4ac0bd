package sched

import "testing"

// FuzzSetAffinity feeds sched_setaffinity's mask, which comes from the program, to a running,
// a runnable and a blocked thread: the mask is kept less the CPUs the scheduler does not run,
// or refused if that leaves none; the CPU to leave is named exactly when the thread runs on a
// CPU the mask excludes; and afterwards no CPU runs any thread outside its mask.
func FuzzSetAffinity(f *testing.F) {
	f.Add(uint8(4), uint64(0b0110), uint8(0), uint8(0))
	f.Add(uint8(4), uint64(0b0110), uint8(1), uint8(0))
	f.Add(uint8(1), uint64(1<<63), uint8(0), uint8(1))
	f.Add(uint8(MaxCPUs), ^uint64(0), uint8(5), uint8(2))
	f.Fuzz(func(t *testing.T, ncpu uint8, mask uint64, on, which uint8) {
		n := 1 + int(ncpu)%MaxCPUs
		s := newScheduler(t, n, a, b, c)
		cpu := int(on) % n
		s.Ready(a, 0)
		wantNext(t, s, cpu, 0, int32(cpu), a)
		s.Ready(b, 0) // runnable
		target := []int32{a, b, c}[int(which)%3]

		before := s.Affinity(target)
		leave, ok := s.SetAffinity(target, mask)
		want := mask & (1<<uint(n) - 1)
		if ok != (want != 0) {
			t.Fatalf("SetAffinity(%#x) on %d CPUs: ok = %v", mask, n, ok)
		}
		if !ok {
			want = before
		}
		if got := s.Affinity(target); got != want {
			t.Fatalf("Affinity = %#x, want %#x", got, want)
		}
		wantLeave := -1
		if ok && target == a && want&(1<<uint(cpu)) == 0 {
			wantLeave = cpu
		}
		if leave != wantLeave || s.Excluded(cpu) != (wantLeave >= 0) {
			t.Fatalf("SetAffinity = %d, Excluded(%d) = %v; want %d", leave, cpu, s.Excluded(cpu), wantLeave)
		}

		// The kernel moves an excluded thread at its CPU's next entry, wakes c, and every idle
		// CPU takes what it may.
		if s.Excluded(cpu) {
			s.Ready(a, 1)
			s.Next(cpu, 1, nil)
		}
		s.Ready(c, 2)
		for k := 0; k < n; k++ {
			if IsIdle(s.Current(k)) {
				s.Next(k, 3, nil)
			}
		}
		for k := 0; k < n; k++ {
			cur := s.Current(k)
			if isThread(cur) && s.Affinity(cur)&(1<<uint(k)) == 0 {
				t.Fatalf("CPU %d runs thread %d, mask %#x", k, cur, s.Affinity(cur))
			}
			if IsIdle(cur) && s.RunnableFor(k) {
				t.Fatalf("CPU %d idles with a thread it may run waiting", k)
			}
		}
		if err := s.invariants(); err != "" {
			t.Fatal(err)
		}
	})
}
