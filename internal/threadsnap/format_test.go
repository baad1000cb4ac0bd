package threadsnap

import (
	"strings"
	"testing"
)

func TestFormatAddresses(t *testing.T) {
	s, err := Parse([]byte(reply))
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	if err := Format(&b, s); err != nil {
		t.Fatal(err)
	}
	want := `cpu 0: running tid 1 gen 1
cpu 1: idle
cpu 2: running tid 9 gen 1 (captured by IPI)
cpu 3: did not answer the capture IPI (was running tid 4 gen 2)
thread 1 gen 1: runnable, last ran on cpu 0
  0x46f028
thread 3 gen 2: blocked (futex), last ran on cpu 1
  0x46f400
  0x43c000
  [truncated at the depth cap]
thread 4 gen 2: running on cpu 3, which did not answer the capture IPI
  (no stack captured)
thread 9 gen 1: running on cpu 2 (captured by IPI)
  0x4a1b20
  0x4a1c00
  0x4a2000
  [walk stopped by a failed frame check]
thread 12 gen 1: never-run (created, not yet scheduled; no stack)
did not answer the capture IPI: cpu 3
`
	if got := b.String(); got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
}

func TestFormatStates(t *testing.T) {
	tests := []struct {
		e     Entry
		cpu   bool
		want  string
		stack string
	}{
		{Entry{CPU: 5, State: "halted"}, true, "cpu 5: halted\n", ""},
		{Entry{CPU: 5, State: "in-kernel", TID: 2, Gen: 3}, true, "cpu 5: in the kernel for tid 2 gen 3\n", ""},
		{Entry{CPU: 5, State: "no-answer"}, true, "cpu 5: did not answer the capture IPI\n", ""},
		{Entry{CPU: 5, State: "future", TID: 2, Gen: 1}, true, "cpu 5: future tid 2 gen 1\n", ""},
		// A CPU whose thread has no entry of its own shows its context.
		{Entry{CPU: 1, State: "running", TID: 8, Gen: 1, PC: 0x1000, ByIPI: true}, true,
			"cpu 1: running tid 8 gen 1 (captured by IPI)\n", "  0x1000\n"},
		{Entry{TID: 2, Gen: 1, CPU: 0, State: "in-kernel", PC: 0x10}, false, "thread 2 gen 1: in the kernel on cpu 0\n", "  0x10\n"},
		{Entry{TID: 2, Gen: 1, CPU: -1, State: "blocked", Wait: "sleep"}, false, "thread 2 gen 1: blocked (sleep)\n", "  (no stack captured)\n"},
		{Entry{TID: 2, Gen: 1, CPU: 1, State: "blocked"}, false, "thread 2 gen 1: blocked, last ran on cpu 1\n", "  (no stack captured)\n"},
		{Entry{TID: 2, Gen: 1, CPU: 1, State: "future", Wait: "w"}, false, "thread 2 gen 1: future on cpu 1 (w)\n", "  (no stack captured)\n"},
	}
	for _, tt := range tests {
		s := &Snapshot{}
		if tt.cpu {
			s.CPUs = []Entry{tt.e}
		} else {
			s.Threads = []Entry{tt.e}
		}
		var b strings.Builder
		Format(&b, s)
		if got := b.String(); got != tt.want+tt.stack {
			t.Errorf("%+v:\n%q, want\n%q", tt.e, got, tt.want+tt.stack)
		}
	}
}
