package ring

import (
	"math/rand/v2"
	"testing"
)

// A 16 KiB flight ring after a burst of N 64-byte records holds exactly the
// newest 256, and the seq gap before them is N - 256 = Overwritten.
func TestFlightBurstKeepsNewest(t *testing.T) {
	for _, n := range []int{10, 256, 257, 10000} {
		r, _ := newRing(t, 16<<10, Flight)
		for i := range n {
			if _, ok := emit(r, 64, uint64(i)); !ok {
				t.Fatal("flight ring dropped")
			}
		}
		buf := make([]byte, 16<<10)
		m, ok := r.Snapshot(buf)
		if !ok {
			t.Fatal("Snapshot failed")
		}
		got := parse(t, buf[:m])
		want := min(n, 256)
		if len(got) != want {
			t.Fatalf("N=%d: retained %d, want %d", n, len(got), want)
		}
		for i, g := range got {
			if g.seq != uint32(n-want+i) {
				t.Fatalf("N=%d: record %d has seq %d", n, i, g.seq)
			}
		}
		if s := r.Stats(); s.Overwritten != uint64(n-want) || s.Written != uint64(n) {
			t.Fatalf("N=%d: stats %+v", n, s)
		}
	}
}

// With random sizes the snapshot is a contiguous seq run ending at the
// newest record, its gap equals Overwritten, and the retained records are
// as many as fit: adding the one before them would exceed the ring.
func TestFlightRandomSizes(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	r, _ := newRing(t, 16<<10, Flight)
	sizes := map[uint32]uint64{}
	const n = 5000
	for i := range n {
		size := uint32(HeaderSize + 8*rng.IntN(60))
		seq, _ := emit(r, size, uint64(i))
		sizes[seq] = uint64(size)
	}
	buf := make([]byte, 16<<10)
	m, ok := r.Snapshot(buf)
	if !ok {
		t.Fatal("Snapshot failed")
	}
	got := parse(t, buf[:m])
	first := got[0].seq
	for i, g := range got {
		if g.seq != first+uint32(i) {
			t.Fatalf("gap inside snapshot at %d", i)
		}
	}
	if last := got[len(got)-1].seq; last != n-1 {
		t.Fatalf("newest retained seq %d", last)
	}
	if s := r.Stats(); s.Overwritten != uint64(first) {
		t.Fatalf("gap %d, overwritten %d", first, s.Overwritten)
	}
	// The span from the retained records' start to head is at most the
	// ring, and with the record before them it would not be.
	if span := r.head.Load() - r.start.Load(); span > r.size || span+sizes[first-1] <= r.size {
		t.Fatalf("retained span %d of %d", span, r.size)
	}
}

// A snapshot into a smaller buffer keeps the newest records that fit.
func TestSnapshotSmallBuffer(t *testing.T) {
	r, _ := newRing(t, 16<<10, Flight)
	for i := range 1000 {
		emit(r, 64, uint64(i))
	}
	buf := make([]byte, 64*10+63)
	m, ok := r.Snapshot(buf)
	got := parse(t, buf[:m])
	if !ok || len(got) != 10 || got[0].seq != 990 {
		t.Fatalf("ok %v got %d records from seq %d", ok, len(got), got[0].seq)
	}
}

// Random byte flips in ring memory never make the producer or Snapshot
// fault or loop; the damage is counted as resyncs.
func TestFlightCorruptionSurvives(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for trial := range 200 {
		r, m := newRing(t, 16<<10, Flight)
		mem := m.bytes()
		for i := range 300 {
			emit(r, uint32(HeaderSize+8*rng.IntN(20)), uint64(i))
		}
		for range 1 + rng.IntN(8) {
			mem[rng.IntN(len(mem))] ^= byte(1 + rng.IntN(255))
		}
		buf := make([]byte, 16<<10)
		r.Snapshot(buf)
		for i := range 600 {
			emit(r, uint32(HeaderSize+8*rng.IntN(20)), uint64(i))
		}
		if _, ok := r.Snapshot(buf); !ok && trial < 0 {
			t.Fatal("unreachable")
		}
	}
}
