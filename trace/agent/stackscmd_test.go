package agent

import (
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"syscall"
	"testing"

	"github.com/unitrace/unitrace/trace"
	"github.com/unitrace/unitrace/trace/ctl"
	"github.com/unitrace/unitrace/trace/record"
	"github.com/unitrace/unitrace/trace/wire"
)

func snapshot(t *testing.T, entries ...trace.StackEntry) []byte {
	t.Helper()
	buf := make([]byte, trace.MaxStackEntries*trace.StackEntrySize)
	for i := range entries {
		var frames [trace.MaxDepth]uint64
		n := copy(frames[:], entries[i].Frames)
		if !trace.PutStackEntry(buf[i*trace.StackEntrySize:], &entries[i], &frames, n) {
			t.Fatal("PutStackEntry refused")
		}
	}
	return buf
}

// TestStacksReplyJSON checks the reply's shape as the host reads it: field names, numbers as
// numbers, states and waits as names, empty lists as [].
func TestStacksReplyJSON(t *testing.T) {
	buf := snapshot(t,
		trace.StackEntry{Kind: trace.EntryCPU, State: trace.StateRunning, CPU: 0, TID: 5, Gen: 1},
		trace.StackEntry{Kind: trace.EntryCPU, State: trace.StateIdle, CPU: 1},
		trace.StackEntry{Kind: trace.EntryThread, State: trace.StateRunning, TID: 5, Gen: 1, Slot: 2, CPU: 0,
			StackKind: 1, Flags: trace.StackByIPI | trace.StackFlags(record.WalkStop), PC: 0x4a1b20,
			SP: 0xc000010000, FP: 0xc000010040, LR: 7, Ticks: 99, Frames: []uint64{0x4a1c00, 0x4a2000}},
		trace.StackEntry{Kind: trace.EntryThread, State: trace.StateBlocked, Wait: trace.WaitFutex, TID: 3, Gen: 2,
			CPU: 1, Flags: trace.StackSaved | trace.StackFlags(record.StackTrunc), PC: 0x46f000},
		trace.StackEntry{Kind: trace.EntryThread, State: trace.StateNeverRun, TID: 12, Gen: 1, CPU: -1, Flags: trace.StackNoWalk},
	)
	s, err := buildStacks(buf, 5, 1<<3|1<<63, wire.ArchAMD64, 0x101000, []byte{0xab, 0xcd})
	if err != nil {
		t.Fatal(err)
	}
	b, err := json.Marshal(response{ID: 4, OK: true, Stacks: s})
	if err != nil {
		t.Fatal(err)
	}
	var got struct {
		ID     int  `json:"id"`
		OK     bool `json:"ok"`
		Stacks struct {
			Arch       string           `json:"arch"`
			BuildID    string           `json:"build_id"`
			TextStart  uint64           `json:"text_start"`
			CPUs       []map[string]any `json:"cpus"`
			Threads    []map[string]any `json:"threads"`
			Unanswered []int            `json:"unanswered"`
		} `json:"stacks"`
	}
	if err := json.Unmarshal(b, &got); err != nil {
		t.Fatal(err)
	}
	st := got.Stacks
	if got.ID != 4 || !got.OK || st.Arch != "amd64" || st.BuildID != "abcd" || st.TextStart != 0x101000 ||
		!reflect.DeepEqual(st.Unanswered, []int{3, 63}) || len(st.CPUs) != 2 || len(st.Threads) != 3 {
		t.Fatalf("reply %s", b)
	}
	want := []struct {
		m    map[string]any
		key  string
		want any
	}{
		{st.CPUs[0], "state", "running"}, {st.CPUs[0], "tid", 5.0}, {st.CPUs[0], "gen", 1.0}, {st.CPUs[0], "cpu", 0.0},
		{st.CPUs[1], "state", "idle"}, {st.CPUs[1], "tid", 0.0},
		{st.Threads[0], "pc", float64(0x4a1b20)}, {st.Threads[0], "frames", []any{float64(0x4a1c00), float64(0x4a2000)}},
		{st.Threads[0], "by_ipi", true}, {st.Threads[0], "walk_stop", true}, {st.Threads[0], "truncated", false},
		{st.Threads[0], "stack_kind", "goroutine"}, {st.Threads[0], "slot", 2.0}, {st.Threads[0], "lr", 7.0},
		{st.Threads[0], "ticks", 99.0},
		{st.Threads[1], "state", "blocked"}, {st.Threads[1], "wait", "futex"}, {st.Threads[1], "saved", true},
		{st.Threads[1], "truncated", true}, {st.Threads[1], "frames", []any{}},
		{st.Threads[2], "state", "never-run"}, {st.Threads[2], "cpu", -1.0}, {st.Threads[2], "no_walk", true},
	}
	for _, w := range want {
		if !reflect.DeepEqual(w.m[w.key], w.want) {
			t.Errorf("%s = %#v, want %#v (in %v)", w.key, w.m[w.key], w.want, w.m)
		}
	}
	if _, ok := st.Threads[0]["wait"]; ok {
		t.Error("a running thread has a wait")
	}
	empty, err := buildStacks(buf, 0, 0, wire.ArchUnknown, 0, nil)
	if err != nil {
		t.Fatal(err)
	}
	if b, _ := json.Marshal(empty); string(b) != `{"cpus":[],"threads":[],"unanswered":[]}` {
		t.Errorf("empty snapshot: %s", b)
	}
}

func TestStacksRefused(t *testing.T) {
	buf := snapshot(t, trace.StackEntry{Kind: trace.EntryThread, State: trace.StateRunning, TID: 1})
	if _, err := buildStacks(buf, trace.MaxStackEntries+1, 0, wire.ArchAMD64, 0, nil); err == nil ||
		!strings.Contains(err.Error(), "more than") {
		t.Errorf("too many entries: %v", err)
	}
	buf[1] = uint8(trace.StateIdle) // an idle thread
	var se *trace.StacksError
	if _, err := buildStacks(buf, 1, 0, wire.ArchAMD64, 0, nil); !errors.As(err, &se) || se.Entry != 0 {
		t.Errorf("malformed entry: %v", err)
	}
	for err, want := range map[error]ctl.Err{syscall.EINVAL: ctl.ErrUnavailable, syscall.ENOSYS: ctl.ErrUnavailable,
		syscall.ENODEV: ctl.ErrUnavailable, syscall.ENOSPC: ctl.ErrTooManyEntries, syscall.EFAULT: ctl.ErrFailed} {
		if got := stacksCallError(err); got != want {
			t.Errorf("%v: %q, want %q", err, got.Message(), want.Message())
		}
	}
}

// TestCommandsOnOldKernel runs the commands on the host, whose Linux kernel has none of the
// agent's private system calls (ENOSYS): the replies say so, nothing panics.
func TestCommandsOnOldKernel(t *testing.T) {
	a := &agent{tracer: true}
	for _, tt := range []struct{ cmd, want string }{
		{`{"id":1,"cmd":"stacks"}`, `{"id":1,"error":"not available in this kernel"}`},
		{`{"id":2,"cmd":"sampler.stop"}`, `{"id":2,"error":"not available in this kernel"}`},
		{`{"id":3,"cmd":"sampler.start","hz":100}`, `{"id":3,"error":"not available in this kernel"}`},
		{`{"id":4,"cmd":"stacks","hz":100}`, `{"id":4,"error":"field not accepted by this command"}`},
	} {
		if got, _ := a.execute([]byte(tt.cmd)); string(got) != tt.want {
			t.Errorf("%s: %s, want %s", tt.cmd, got, tt.want)
		}
	}
}

func TestReplyDetailAndSize(t *testing.T) {
	r := response{ID: 9, Points: make([]pointInfo, wire.MaxPayload/40)}
	if got := string(encode(r)); got != `{"id":9,"error":"reply too large for one frame"}` {
		t.Errorf("oversized reply: %.100s", got)
	}
	if b, _ := json.Marshal(response{ID: 1, OK: true, detail: "x"}); string(b) != `{"id":1,"ok":true}` {
		t.Errorf("detail leaked: %s", b)
	}
	if got := maskCPUs(0); got == nil || len(got) != 0 {
		t.Errorf("maskCPUs(0) = %#v", got)
	}
	if got := maskCPUs(0b1011); !reflect.DeepEqual(got, []int{0, 1, 3}) {
		t.Errorf("maskCPUs = %v", got)
	}
}
