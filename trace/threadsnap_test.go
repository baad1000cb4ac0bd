package trace

import (
	"bytes"
	"encoding/binary"
	"errors"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"
)

// put encodes entries as the kernel does: CPUs first, then threads.
func put(t testing.TB, entries ...StackEntry) []byte {
	t.Helper()
	b := make([]byte, len(entries)*StackEntrySize)
	for i := range entries {
		var frames [MaxDepth]uint64
		n := copy(frames[:], entries[i].Frames)
		if !PutStackEntry(b[i*StackEntrySize:], &entries[i], &frames, n) {
			t.Fatalf("PutStackEntry refused entry %d", i)
		}
	}
	return b
}

func cpuEntry(cpu int32, s StackState, tid int32) StackEntry {
	return StackEntry{Kind: EntryCPU, State: s, CPU: cpu, TID: tid, Gen: 1}
}

func threadEntry(tid int32, s StackState, cpu int32, frames ...uint64) StackEntry {
	return StackEntry{Kind: EntryThread, State: s, TID: tid, Gen: 1, CPU: cpu, Slot: uint32(tid), Frames: frames}
}

// TestStackEntryLayout pins the byte layout the kernel and the agent share.
func TestStackEntryLayout(t *testing.T) {
	if StackEntrySize != 592 {
		t.Fatalf("StackEntrySize = %d", StackEntrySize)
	}
	e := StackEntry{Kind: EntryThread, State: StateBlocked, Wait: WaitFutex, StackKind: 1,
		Flags: StackSaved | 0x10, TID: 7, Gen: 0x01020304, CPU: -1, Slot: 9, PC: 0x1111, SP: 0x2222,
		FP: 0x3333, LR: 0x4444, Ticks: 0x5555, W0: 0x6666, W1: 0x7777}
	frames := [MaxDepth]uint64{0xaaaa, 0xbbbb}
	b := make([]byte, StackEntrySize)
	if !PutStackEntry(b, &e, &frames, 2) {
		t.Fatal("refused")
	}
	le := binary.LittleEndian
	checks := []struct {
		off  int
		got  uint64
		want uint64
	}{
		{0, uint64(b[0]), EntryThread}, {1, uint64(b[1]), uint64(StateBlocked)}, {2, uint64(b[2]), uint64(WaitFutex)},
		{3, uint64(b[3]), 1}, {4, uint64(le.Uint16(b[4:])), uint64(StackSaved | 0x10)}, {6, uint64(le.Uint16(b[6:])), 2},
		{8, uint64(le.Uint32(b[8:])), 7}, {12, uint64(le.Uint32(b[12:])), 0x01020304},
		{16, uint64(le.Uint32(b[16:])), 0xffffffff}, {20, uint64(le.Uint32(b[20:])), 9},
		{24, le.Uint64(b[24:]), 0x1111}, {32, le.Uint64(b[32:]), 0x2222}, {40, le.Uint64(b[40:]), 0x3333},
		{48, le.Uint64(b[48:]), 0x4444}, {56, le.Uint64(b[56:]), 0x5555},
		{64, le.Uint64(b[64:]), 0x6666}, {72, le.Uint64(b[72:]), 0x7777},
		{80, le.Uint64(b[80:]), 0xaaaa}, {88, le.Uint64(b[88:]), 0xbbbb}, {96, le.Uint64(b[96:]), 0},
	}
	for _, c := range checks {
		if c.got != c.want {
			t.Errorf("offset %d: %#x, want %#x", c.off, c.got, c.want)
		}
	}
}

func TestStacksRoundTrip(t *testing.T) {
	full := make([]uint64, MaxDepth)
	for i := range full {
		full[i] = 0x401000 + uint64(i)*16
	}
	in := []StackEntry{
		cpuEntry(0, StateRunning, 1),
		cpuEntry(1, StateIdle, 0),
		{Kind: EntryCPU, State: StateRunning, CPU: 2, TID: 9, Gen: 1, Flags: StackByIPI, PC: 0x4a1b20},
		cpuEntry(3, StateNoAnswer, 4),
		{Kind: EntryThread, State: StateRunning, TID: 9, Gen: 1, CPU: 2, Slot: 3, Flags: StackByIPI | 0x01,
			StackKind: 1, PC: 0x4a1b20, SP: 0xc000100000, FP: 0xc000100040, LR: 0x4a1c10, Ticks: 12345,
			Frames: []uint64{0x4a1c00, 0x4a2000}},
		threadEntry(12, StateNeverRun, -1),
		{Kind: EntryThread, State: StateBlocked, Wait: WaitFutex, TID: 3, Gen: 2, CPU: 1, Flags: StackSaved | 0x10,
			PC: 0x46f000, Frames: []uint64{0x43c000}},
		{Kind: EntryThread, State: StateRunnable, TID: 4, Gen: 0xffffffff, CPU: 63, Slot: 0xffffffff, Flags: StackSaved | 0x08,
			PC: ^uint64(0), SP: ^uint64(0), FP: ^uint64(0), LR: ^uint64(0), Ticks: ^uint64(0), Frames: full},
		{Kind: EntryThread, State: StateRunning, TID: 0x7fffffff, CPU: 0, Flags: StackNoWalk},
	}
	b := put(t, in...)
	// Trailing room after the entries is allowed: the agent's buffer is bigger than the reply.
	got, err := DecodeStacks(append(b, make([]byte, StackEntrySize+5)...), len(in))
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, in) {
		t.Fatalf("round trip:\n got %+v\nwant %+v", got, in)
	}
	if got, err := DecodeStacks(nil, 0); err != nil || len(got) != 0 {
		t.Errorf("empty: %v, %v", got, err)
	}
}

// TestStacksRandomRoundTrip encodes random well-formed snapshots and checks that they decode to
// the same entries and encode back to the same bytes.
func TestStacksRandomRoundTrip(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	cpuStates := []StackState{StateRunning, StateIdle, StateNoAnswer, StateHalted, StateKernelBusy}
	threadStates := []StackState{StateRunnable, StateRunning, StateBlocked, StateNeverRun, StateNoAnswer, StateKernelBusy}
	flagsFor := []StackFlags{0, StackByIPI, StackSaved, StackNoWalk, StackByIPI | 0x18, StackSaved | 0x08}
	for iter := 0; iter < 2000; iter++ {
		var in []StackEntry
		for cpu := range rng.IntN(5) {
			e := StackEntry{Kind: EntryCPU, State: cpuStates[rng.IntN(len(cpuStates))], CPU: int32(cpu),
				TID: int32(rng.IntN(100)), Gen: rng.Uint32(), Flags: flagsFor[rng.IntN(len(flagsFor))], PC: rng.Uint64()}
			in = append(in, e)
		}
		perm := rng.Perm(50)
		for i := range rng.IntN(8) {
			e := StackEntry{Kind: EntryThread, State: threadStates[rng.IntN(len(threadStates))],
				Wait: StackWait(rng.IntN(int(numWaits))), StackKind: uint8(rng.IntN(5)),
				Flags: flagsFor[rng.IntN(len(flagsFor))], TID: int32(perm[i] + 1), Gen: rng.Uint32(),
				CPU: int32(rng.IntN(MaxCPUs+1) - 1), Slot: rng.Uint32(), PC: rng.Uint64(), SP: rng.Uint64(),
				FP: rng.Uint64(), LR: rng.Uint64(), Ticks: rng.Uint64()}
			if e.State != StateNeverRun {
				for range rng.IntN(MaxDepth + 1) {
					e.Frames = append(e.Frames, rng.Uint64()|1)
				}
			}
			in = append(in, e)
		}
		b := put(t, in...)
		got, err := DecodeStacks(b, len(in))
		if err != nil {
			t.Fatalf("%+v: %v", in, err)
		}
		if len(in) == 0 {
			in = []StackEntry{}
		}
		if !reflect.DeepEqual(got, in) {
			t.Fatalf("round trip:\n got %+v\nwant %+v", got, in)
		}
		if again := put(t, got...); !bytes.Equal(again, b) {
			t.Fatal("re-encoding differs")
		}
	}
}

func TestPutStackEntryRefuses(t *testing.T) {
	e := threadEntry(1, StateRunning, 0)
	var frames [MaxDepth]uint64
	b := make([]byte, StackEntrySize)
	for _, n := range []int{-1, MaxDepth + 1} {
		if PutStackEntry(b, &e, &frames, n) {
			t.Errorf("nframes %d accepted", n)
		}
	}
	if PutStackEntry(b[:StackEntrySize-1], &e, &frames, 0) {
		t.Error("short buffer accepted")
	}
	if !bytes.Equal(b, make([]byte, StackEntrySize)) {
		t.Error("a refused entry wrote bytes")
	}
	if a := testing.AllocsPerRun(100, func() { PutStackEntry(b, &e, &frames, MaxDepth) }); a != 0 {
		t.Errorf("PutStackEntry allocates %v times", a)
	}
}

// TestDecodeStacksRefuses damages one well-formed entry at a time.
func TestDecodeStacksRefuses(t *testing.T) {
	good := []StackEntry{
		cpuEntry(0, StateRunning, 2),
		threadEntry(2, StateRunning, 0, 0x401000),
		threadEntry(3, StateNeverRun, -1),
	}
	tests := []struct {
		name  string
		entry int
		edit  func(b []byte) // b is the whole buffer
		why   string
	}{
		{"kind 0", 0, func(b []byte) { b[stkKind] = 0 }, "unknown kind"},
		{"kind 3", 1, func(b []byte) { b[StackEntrySize+stkKind] = 3 }, "unknown kind"},
		{"state 0", 0, func(b []byte) { b[stkState] = 0 }, "not a CPU's"},
		{"exited", 1, func(b []byte) { b[StackEntrySize+stkState] = uint8(StateExited) }, "not a thread's"},
		{"idle thread", 1, func(b []byte) { b[StackEntrySize+stkState] = uint8(StateIdle) }, "not a thread's"},
		{"blocked CPU", 0, func(b []byte) { b[stkState] = uint8(StateBlocked) }, "not a CPU's"},
		{"state 200", 1, func(b []byte) { b[StackEntrySize+stkState] = 200 }, "not a thread's"},
		{"wait", 1, func(b []byte) { b[StackEntrySize+stkWait] = uint8(numWaits) }, "unknown wait"},
		{"flag bit", 1, func(b []byte) { b[StackEntrySize+stkFlags+1] = 0x80 }, "unknown flag bits"},
		{"saved and IPI", 1, func(b []byte) { b[StackEntrySize+stkFlags+1] = uint8((StackByIPI | StackSaved) >> 8) }, "both saved"},
		{"cpu 64", 0, func(b []byte) { b[stkCPU] = MaxCPUs }, "CPU 64 out of range"},
		{"cpu -1 on a CPU", 0, func(b []byte) { copy(b[stkCPU:], []byte{0xff, 0xff, 0xff, 0xff}) }, "CPU -1 out of range"},
		{"cpu -2 on a thread", 2, func(b []byte) { b[2*StackEntrySize+stkCPU] = 0xfe }, "CPU -2 out of range"},
		{"tid 0", 1, func(b []byte) { b[StackEntrySize+stkTID] = 0 }, "thread id 0"},
		{"negative tid on a CPU", 0, func(b []byte) { b[stkTID+3] = 0x80 }, "out of range"},
		{"65 frames", 1, func(b []byte) { b[StackEntrySize+stkNFrames] = MaxDepth + 1 }, "more than 64"},
		{"65535 frames", 1, func(b []byte) { b[StackEntrySize+stkNFrames], b[StackEntrySize+stkNFrames+1] = 0xff, 0xff }, "65535 frames"},
		{"unused slot", 1, func(b []byte) { b[StackEntrySize+stkFrames+MaxDepth*8-1] = 1 }, "unused frame slot 63"},
		{"never-run frames", 2, func(b []byte) { b[2*StackEntrySize+stkNFrames] = 1 }, "never ran"},
		{"CPU after threads", 2, func(b []byte) {
			b[2*StackEntrySize+stkKind] = EntryCPU
			b[2*StackEntrySize+stkState] = uint8(StateIdle)
			binary.LittleEndian.PutUint32(b[2*StackEntrySize+stkCPU:], 1)
		}, "after the thread entries"},
		{"thread twice", 2, func(b []byte) {
			b[2*StackEntrySize+stkTID] = 2
		}, "thread 2 reported twice"},
	}
	for _, tt := range tests {
		b := put(t, good...)
		tt.edit(b)
		_, err := DecodeStacks(b, len(good))
		var se *StacksError
		if !errors.As(err, &se) || se.Entry != tt.entry || !strings.Contains(err.Error(), tt.why) {
			t.Errorf("%s: %v, want entry %d: ...%s...", tt.name, err, tt.entry, tt.why)
		}
	}
	twice := put(t, cpuEntry(0, StateIdle, 0), cpuEntry(0, StateIdle, 0))
	if _, err := DecodeStacks(twice, 2); err == nil || !strings.Contains(err.Error(), "entry 1: CPU 0 reported twice") {
		t.Errorf("CPU twice: %v", err)
	}
	b := put(t, good...)
	for _, n := range []int{-1, 4, 1 << 60} {
		var se *StacksError
		if _, err := DecodeStacks(b, n); !errors.As(err, &se) || se.Entry != -1 {
			t.Errorf("count %d: %v", n, err)
		}
	}
	if _, err := DecodeStacks(b[:len(b)-1], 3); err == nil {
		t.Error("short buffer accepted")
	}
}

// FuzzDecodeStacks: DecodeStacks never panics, and what it accepts encodes back to the same
// bytes and obeys the documented rules.
func FuzzDecodeStacks(f *testing.F) {
	f.Add(put(f, cpuEntry(0, StateRunning, 1), threadEntry(1, StateRunning, 0, 0x401000, 0x402000)), uint16(2))
	f.Add(put(f, cpuEntry(0, StateIdle, 0), cpuEntry(1, StateNoAnswer, 5), threadEntry(5, StateNeverRun, -1)), uint16(3))
	f.Add(put(f, threadEntry(9, StateBlocked, 3)), uint16(1))
	f.Add(put(f, threadEntry(9, StateBlocked, 3)), uint16(2))
	f.Add([]byte{EntryCPU, 2}, uint16(1))
	f.Add([]byte{}, uint16(0))
	f.Fuzz(func(t *testing.T, b []byte, n16 uint16) {
		n := int(n16)
		got, err := DecodeStacks(b, n)
		if err != nil {
			var se *StacksError
			if !errors.As(err, &se) || got != nil {
				t.Fatalf("error %v of type %T with %d entries", err, err, len(got))
			}
			return
		}
		if len(got) != n {
			t.Fatalf("%d entries, want %d", len(got), n)
		}
		threads := false
		for i, e := range got {
			switch {
			case e.Kind == EntryThread:
				threads = true
			case e.Kind != EntryCPU || threads:
				t.Fatalf("entry %d: kind %d accepted out of order", i, e.Kind)
			}
			if len(e.Frames) > MaxDepth || e.CPU >= MaxCPUs || e.CPU < -1 {
				t.Fatalf("entry %d: %+v accepted", i, e)
			}
		}
		if again := put(t, got...); !bytes.Equal(again, b[:n*StackEntrySize]) {
			t.Fatal("accepted bytes do not encode back to themselves")
		}
	})
}

// TestWaitNames: every wait the kernel has (its waitKind constants are these values) has a name
// in a snapshot's reply, so a thread blocked in any of them is shown, not refused.
func TestWaitNames(t *testing.T) {
	for w := WaitNone + 1; w < numWaits; w++ {
		if w.String() == "" {
			t.Errorf("StackWait %d has no name", w)
		}
	}
	if numWaits.String() != "" || WaitNone.String() != "" {
		t.Error("WaitNone or an unknown wait has a name")
	}
}
