package tracefile

import (
	"math/rand/v2"
	"slices"
	"testing"
)

func TestAccountingTable(t *testing.T) {
	var a Accounting
	for s := uint32(0); s < 5; s++ {
		a.Received(0, s)
	}
	a.Lost(0, 5, 3, false) // a LOST record covering 5-7
	a.Received(0, 8)       //
	a.Received(0, 12)      // 9-11 missing: a flight gap
	a.Lost(0, 13, 2, true) // a LOST frame
	a.Received(0, 15)      //
	if a.Received(0, 3) {  // duplicate
		t.Error("duplicate accepted")
	}
	if a.Lost(0, 14, 3, false) { // overlaps 14 and 15
		t.Error("overlapping LOST accepted")
	}
	// CPU 1 wraps its seq.
	a.Received(1, 1<<32-2)
	a.Received(1, 1<<32-1)
	a.Received(1, 0)
	a.Received(1, 1)
	got := a.CPUs()
	want := []CPUAccount{
		// The overlapping LOST 14..16 adds only its uncovered seq 16.
		{CPU: 0, Produced: 17, Received: 8, LostRecords: 4, LostFrames: 2, Missing: 3, Gaps: []Gap{{9, 12}}, Overlaps: 3},
		{CPU: 1, Produced: 1<<32 + 2, Received: 4, Missing: 1<<32 - 2, Gaps: []Gap{{0, 1<<32 - 2}}},
	}
	if len(got) != len(want) {
		t.Fatalf("got %+v", got)
	}
	for i := range want {
		if !equalAccount(got[i], want[i]) {
			t.Errorf("cpu %d: got %+v\nwant %+v", want[i].CPU, got[i], want[i])
		}
	}
}

func equalAccount(a, b CPUAccount) bool {
	return a.CPU == b.CPU && a.Produced == b.Produced && a.Received == b.Received && a.LostRecords == b.LostRecords &&
		a.LostFrames == b.LostFrames && a.Missing == b.Missing && a.Overlaps == b.Overlaps && slices.Equal(a.Gaps, b.Gaps)
}

// TestAccountingModel feeds random tilings of the seq space, in a locally
// shuffled order, and compares with a per-seq reference.
func TestAccountingModel(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for iter := 0; iter < 300; iter++ {
		n := 1 + rng.IntN(400)
		start := uint32(rng.Uint64()) // seqs wrap at 2^32 anywhere
		if iter%2 == 0 {
			start = 0
		}
		type op struct {
			lo, count uint64
			kind      spanKind
		}
		var ops []op
		state := make([]int, n) // 0 missing, 1 received, 2 lost record, 3 lost frame
		for s := 0; s < n; {
			switch r := rng.IntN(10); {
			case r < 6:
				ops = append(ops, op{uint64(s), 1, spanReceived})
				state[s] = 1
				s++
			case r < 9:
				c := 1 + rng.IntN(8)
				c = min(c, n-s)
				k := spanLostRecord
				if r == 8 {
					k = spanLostFrame
				}
				ops = append(ops, op{uint64(s), uint64(c), k})
				for j := s; j < s+c; j++ {
					state[j] = int(k) + 1
				}
				s += c
			default:
				s += 1 + rng.IntN(5) // overwritten
			}
		}
		// Shuffle within small windows: transport LOST frames can arrive late.
		for i := range ops {
			j := min(len(ops)-1, i+rng.IntN(3))
			ops[i], ops[j] = ops[j], ops[i]
		}
		var a Accounting
		for _, o := range ops {
			seq := start + uint32(o.lo)
			if o.kind == spanReceived {
				a.Received(3, seq)
			} else {
				a.Lost(3, seq, o.count, o.kind == spanLostFrame)
			}
		}
		var want CPUAccount
		want.CPU = 3
		last := -1
		for s, st := range state {
			switch st {
			case 1:
				want.Received++
			case 2:
				want.LostRecords++
			case 3:
				want.LostFrames++
			}
			if st != 0 {
				last = s
			}
		}
		if len(ops) == 0 {
			continue
		}
		got := a.CPUs()[0]
		// Produced counts from seq 0; the run started at start.
		want.Produced = uint64(start) + uint64(last+1)
		want.Missing = want.Produced - want.Received - want.LostRecords - want.LostFrames
		if got.Received != want.Received || got.LostRecords != want.LostRecords || got.LostFrames != want.LostFrames ||
			got.Overlaps != 0 || got.Missing != want.Missing {
			t.Fatalf("iter %d (start %d): got %+v, want %+v", iter, start, got, want)
		}
		var gapSum uint64
		for _, g := range got.Gaps {
			gapSum += g.To - g.From
		}
		if gapSum != got.Missing {
			t.Fatalf("iter %d: gaps %v do not add up to %d", iter, got.Gaps, got.Missing)
		}
	}
}
