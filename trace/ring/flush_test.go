package ring

import (
	"math/rand/v2"
	"testing"
)

// FlushLost publishes drops that no later record would carry.
func TestFlushLostStream(t *testing.T) {
	r, _ := newRing(t, 16<<10, Stream)
	n := 0
	for {
		if _, ok := emit(r, 64, uint64(n)); !ok {
			break
		}
		n++
	}
	for range 9 { // 10 drops in all
		emit(r, 64, 0)
	}
	if r.FlushLost(1) {
		t.Fatal("FlushLost wrote into a full ring")
	}
	got := drain(t, r)
	if len(got) != n {
		t.Fatalf("drained %d records, want %d", len(got), n)
	}
	if !r.FlushLost(2) {
		t.Fatal("FlushLost refused with room")
	}
	if r.FlushLost(3) {
		t.Fatal("FlushLost with nothing pending")
	}
	got = drain(t, r)
	if len(got) != 1 || got[0].tpid != tpidLost || got[0].seq != uint32(n) || got[0].args[0] != 10 {
		t.Fatalf("after FlushLost: %+v", got)
	}
	if s := r.Stats(); s.Pending != 0 || s.LostRecords != 1 {
		t.Fatalf("stats %+v", s)
	}
}

// Drops reported from nested context (Drop) are folded in too.
func TestFlushLostDeferred(t *testing.T) {
	r, _ := newRing(t, 16<<10, Flight)
	emit(r, 64, 0)
	r.Drop(CauseNested)
	r.Drop(CauseNested)
	if !r.FlushLost(5) {
		t.Fatal("FlushLost refused")
	}
	buf := make([]byte, 16<<10)
	m, _, ok := r.CopyFrom(buf, 0)
	got := parse(t, buf[:m])
	if !ok || len(got) != 2 || got[1].tpid != tpidLost || got[1].seq != 1 || got[1].args[0] != 2 {
		t.Fatalf("records %+v", got)
	}
}

// Successive CopyFrom calls with small buffers, interleaved with more records, hand out every
// surviving record exactly once, in seq order; what they skip was overwritten (Overwritten also
// counts records overwritten after they were handed out, so it bounds the skipped ones).
func TestCopyFromHandsOutEachRecordOnce(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	r, _ := newRing(t, 16<<10, Flight)
	var pos uint64
	var seen []uint32
	buf := make([]byte, 1024)
	next := uint32(0)
	for round := 0; round < 400; round++ {
		for range rng.IntN(50) {
			emit(r, uint32(HeaderSize+8*rng.IntN(20)), uint64(next))
			next++
		}
		for range rng.IntN(3) {
			m, p, ok := r.CopyFrom(buf[:256+rng.IntN(768)], pos)
			if !ok {
				t.Fatal("CopyFrom failed")
			}
			pos = p
			for _, g := range parse(t, buf[:m]) {
				seen = append(seen, g.seq)
			}
		}
	}
	for {
		m, p, ok := r.CopyFrom(buf, pos)
		if !ok {
			t.Fatal("CopyFrom failed")
		}
		if m == 0 {
			break
		}
		pos = p
		for _, g := range parse(t, buf[:m]) {
			seen = append(seen, g.seq)
		}
	}
	missing := uint64(0)
	for i := 1; i < len(seen); i++ {
		if seen[i] <= seen[i-1] {
			t.Fatalf("seq %d after %d", seen[i], seen[i-1])
		}
		missing += uint64(seen[i] - seen[i-1] - 1)
	}
	missing += uint64(seen[0])
	if last := seen[len(seen)-1]; last != next-1 {
		t.Fatalf("last seq %d, want %d", last, next-1)
	}
	if s := r.Stats(); missing == 0 || s.Overwritten < missing {
		t.Fatalf("skipped %d seqs, Overwritten %d", missing, s.Overwritten)
	}
}

func TestCopyFromStreamRing(t *testing.T) {
	r, _ := newRing(t, 16<<10, Stream)
	if _, _, ok := r.CopyFrom(make([]byte, 64), 0); ok {
		t.Fatal("CopyFrom on a stream ring")
	}
}
