package rlimit

import (
	"testing"

	"github.com/unitrace/unitrace/kernel/abi"
)

func table() *Table {
	var t Table
	t.Init(Config{MaxFDs: 1024, MaxThreads: 512})
	return &t
}

// The defaults are Linux's INIT_RLIMITS (checked against a Linux 6.18 host's own process: the
// limits that do not depend on the machine or on the container's settings are equal).
func TestDefaults(t *testing.T) {
	tb := table()
	want := map[int]Limit{
		CPU: {Infinity, Infinity}, FSIZE: {Infinity, Infinity}, DATA: {Infinity, Infinity},
		STACK: {8 << 20, Infinity}, CORE: {0, Infinity}, RSS: {Infinity, Infinity},
		NPROC: {512, 512}, NOFILE: {1024, 1024}, MEMLOCK: {8 << 20, 8 << 20},
		AS: {Infinity, Infinity}, LOCKS: {Infinity, Infinity}, SIGPENDING: {512, 512},
		MSGQUEUE: {819200, 819200}, NICE: {0, 0}, RTPRIO: {0, 0}, RTTIME: {Infinity, Infinity},
	}
	for r := 0; r < N; r++ {
		got, errno := tb.Get(r)
		if errno != 0 || got != want[r] {
			t.Errorf("resource %d: %+v, %d; want %+v", r, got, errno, want[r])
		}
	}
	for _, r := range []int{-1, N, 1 << 30} {
		if _, errno := tb.Get(r); errno != abi.EINVAL {
			t.Errorf("Get(%d): errno %d, want EINVAL", r, errno)
		}
	}
}

func TestSet(t *testing.T) {
	tb := table()
	old, errno := tb.Set(CORE, Limit{4096, 1 << 40})
	if errno != 0 || old != (Limit{0, Infinity}) {
		t.Fatalf("Set(CORE): %+v, %d", old, errno)
	}
	if got, _ := tb.Get(CORE); got != (Limit{4096, 1 << 40}) {
		t.Errorf("after Set: %+v", got)
	}
	// Root raises a hard limit again.
	if _, errno := tb.Set(CORE, Limit{Infinity, Infinity}); errno != 0 {
		t.Errorf("raising the hard limit: %d", errno)
	}
	cases := []struct {
		res   int
		lim   Limit
		errno int
	}{
		{CORE, Limit{5, 4}, abi.EINVAL},
		{N, Limit{0, 0}, abi.EINVAL},
		{-1, Limit{0, 0}, abi.EINVAL},
		{NOFILE, Limit{1024, 1025}, abi.EPERM},
		{NOFILE, Limit{2048, 1024}, abi.EINVAL},
		{NOFILE, Limit{Infinity, Infinity}, abi.EPERM},
		{NOFILE, Limit{100, 1024}, 0},
		{NOFILE, Limit{1024, 1024}, 0},
		{STACK, Limit{Infinity, Infinity}, 0},
	}
	for _, c := range cases {
		before, _ := tb.Get(c.res)
		_, errno := tb.Set(c.res, c.lim)
		if errno != c.errno {
			t.Errorf("Set(%d, %+v): errno %d, want %d", c.res, c.lim, errno, c.errno)
		}
		if after, _ := tb.Get(c.res); errno != 0 && after != before {
			t.Errorf("failed Set(%d) changed the limit: %+v", c.res, after)
		}
	}
}
