package ring

import "testing"

func TestInitRejects(t *testing.T) {
	m := newMem(MinSize * 2)
	tests := []struct {
		name string
		base uintptr
		size uint64
		mode Mode
	}{
		{"zero base", 0, MinSize, Stream},
		{"unaligned base", m.base + 4, MinSize, Stream},
		{"too small", m.base, MinSize / 2, Stream},
		{"not a power of two", m.base, MinSize + 8, Stream},
		{"too big", m.base, MaxSize * 2, Stream},
		{"bad mode", m.base, MinSize, Flight + 1},
	}
	for _, tt := range tests {
		var r Ring
		if r.Init(tt.base, tt.size, 0, tt.mode) {
			t.Errorf("%s: Init accepted", tt.name)
		}
		if r.Size() != 0 {
			t.Errorf("%s: rejected Init changed the ring", tt.name)
		}
	}
}

func TestReserveWritesHeader(t *testing.T) {
	r, _ := newRing(t, MinSize, Stream)
	a, seq, ok := r.Reserve(40, 1234)
	if !ok || seq != 0 {
		t.Fatalf("Reserve = %v, %d", ok, seq)
	}
	fill(a, 40, seq)
	if got := drain(t, r); len(got) != 0 {
		t.Fatalf("uncommitted record visible: %v", got)
	}
	r.Commit()
	got := drain(t, r)
	if len(got) != 1 || got[0].size != 40 || got[0].cpu != 3 || got[0].ts != 1234 || got[0].seq != 0 {
		t.Fatalf("got %+v", got)
	}
	if s := r.Stats(); s.Written != 1 || s.Bytes != 40 {
		t.Fatalf("stats %+v", s)
	}
}

func TestReserveInvalidSizes(t *testing.T) {
	for _, n := range []uint32{0, 8, 16, 20, 25, MaxRecord + 8, 1 << 20} {
		r, _ := newRing(t, MinSize, Stream)
		if _, _, ok := r.Reserve(n, 0); ok {
			t.Errorf("Reserve(%d) accepted", n)
		}
		seq, _ := emit(r, 24, 5)
		got := drain(t, r)
		if seq != 1 || len(got) != 2 || got[0].tpid != tpidLost || got[0].seq != 0 ||
			got[0].args[0] != 1 || got[0].args[3] != 1<<CauseInvalid {
			t.Errorf("Reserve(%d): after it got %+v (seq %d)", n, got, seq)
		}
	}
}

func TestPadAtWrap(t *testing.T) {
	r, _ := newRing(t, MinSize, Stream)
	// Fill to 40 bytes short of the end and drain: a 64-byte record must
	// then be preceded by a 40-byte PAD and start at offset 0.
	for range 255 {
		emit(r, 64, 0)
	}
	emit(r, 24, 0)
	drain(t, r)
	if off := r.head.Load() % MinSize; off != MinSize-40 {
		t.Fatalf("head at offset %d", off)
	}
	a, seq, _ := r.Reserve(64, 7)
	if a != r.base || seq != 256 {
		t.Fatalf("record at %#x seq %d, want ring start %#x seq 256", a, seq, r.base)
	}
	r.Abort(7)
	if first, second := r.Peek(); first.Len != 0 || second.Len != 0 {
		t.Fatalf("after Abort Peek = %+v %+v, want nothing", first, second)
	}
	// The next record carries a LOST for the aborted one; the LOST (56
	// bytes) does not fit in the 40 before the end either.
	seq, _ = emit(r, 64, 8)
	first, second := r.Peek()
	if first.Len != 40 || second.Len != LostSize+64 || second.Addr != r.base {
		t.Fatalf("Peek = %+v %+v", first, second)
	}
	got := drain(t, r)
	if seq != 257 || len(got) != 2 || got[0].tpid != tpidLost || got[0].seq != 256 || got[0].args[0] != 1 ||
		got[0].args[1] != 7 || got[0].args[3] != 1<<CauseAborted || got[1].seq != 257 {
		t.Fatalf("got %+v", got)
	}
}

func TestStreamFullThenLost(t *testing.T) {
	r, _ := newRing(t, MinSize, Stream)
	for range MinSize / 64 {
		if _, ok := emit(r, 64, 1); !ok {
			t.Fatal("ring full too early")
		}
	}
	for i := range 5 {
		if _, ok := emit(r, 64, uint64(10+i)); ok {
			t.Fatal("full ring accepted a record")
		}
	}
	// Free exactly one record: the LOST (56) plus a 64-byte record do not
	// fit in 64 bytes, so this record is dropped too and the range grows.
	if !r.Release(64) {
		t.Fatal("Release refused")
	}
	if _, ok := emit(r, 64, 20); ok {
		t.Fatal("record accepted without room for its LOST")
	}
	if s := r.Stats(); s.Dropped[CauseFull] != 6 || s.Pending != 6 {
		t.Fatalf("stats %+v", s)
	}
	got := drain(t, r)
	if len(got) != MinSize/64-1 {
		t.Fatalf("drained %d records", len(got))
	}
	seq, ok := emit(r, 64, 30)
	got = drain(t, r)
	if !ok || seq != 262 || len(got) != 2 {
		t.Fatalf("after drain: ok %v seq %d got %+v", ok, seq, got)
	}
	lost := got[0]
	if lost.tpid != tpidLost || lost.seq != 256 || lost.args != [4]uint64{6, 10, 20, 1 << CauseFull} || lost.ts != 30 {
		t.Fatalf("LOST %+v", lost)
	}
	if s := r.Stats(); s.Pending != 0 || s.LostRecords != 1 || s.Written != 257 {
		t.Fatalf("stats %+v", s)
	}
}

func TestEarlyDropsBeforeInit(t *testing.T) {
	var r Ring
	for range 3 {
		if _, _, ok := r.Reserve(32, 5); ok {
			t.Fatal("Reserve on a ring without memory succeeded")
		}
	}
	r.Drop(CauseNested)
	m := newMem(MinSize)
	if !r.Init(m.base, MinSize, 1, Stream) {
		t.Fatal("Init failed")
	}
	seq, ok := emit(&r, 32, 9)
	got := drain(t, &r)
	if !ok || seq != 4 || len(got) != 2 || got[0].seq != 0 || got[0].args[0] != 4 ||
		got[0].args[3] != 1<<CauseEarly|1<<CauseNested {
		t.Fatalf("seq %d got %+v", seq, got)
	}
	if s := r.Stats(); s.Dropped[CauseEarly] != 3 || s.Dropped[CauseNested] != 1 {
		t.Fatalf("stats %+v", s)
	}
}

func TestNestedDropBetweenReserveAndCommit(t *testing.T) {
	r, _ := newRing(t, MinSize, Stream)
	a, seq, _ := r.Reserve(32, 1)
	r.Drop(CauseNested) // an interrupt's emit, dropped by the kernel's guard
	r.Drop(NumCauses + 7)
	fill(a, 32, seq)
	r.Commit()
	if s := r.Stats(); s.Pending != 2 {
		t.Fatalf("pending %d", s.Pending)
	}
	seq2, _ := emit(r, 32, 2)
	got := drain(t, r)
	if seq != 0 || seq2 != 3 || len(got) != 3 || got[1].tpid != tpidLost || got[1].seq != 1 ||
		got[1].args[0] != 2 || got[2].seq != 3 {
		t.Fatalf("got %+v", got)
	}
}

func TestReserveTwiceAbortsFirst(t *testing.T) {
	r, _ := newRing(t, MinSize, Stream)
	r.Reserve(32, 1)
	seq, _ := emit(r, 32, 2)
	got := drain(t, r)
	if seq != 1 || len(got) != 2 || got[0].tpid != tpidLost || got[0].seq != 0 {
		t.Fatalf("got %+v", got)
	}
	if s := r.Stats(); s.Dropped[CauseAborted] != 1 || s.Written != 1 {
		t.Fatalf("stats %+v", s)
	}
	r.Commit() // no open reservation: nothing happens
	if s := r.Stats(); s.Written != 1 {
		t.Fatalf("stray Commit counted: %+v", s)
	}
}

func TestReleaseRefusesTooMuch(t *testing.T) {
	r, _ := newRing(t, MinSize, Stream)
	emit(r, 32, 0)
	if r.Release(40) {
		t.Fatal("Release past head accepted")
	}
	if !r.Release(32) || r.Release(8) {
		t.Fatal("Release bookkeeping wrong")
	}
}

func TestStreamAPIsRefuseFlight(t *testing.T) {
	r, _ := newRing(t, MinSize, Flight)
	emit(r, 32, 0)
	if a, b := r.Peek(); a.Len != 0 || b.Len != 0 {
		t.Fatal("Peek in flight mode")
	}
	if n, c := r.CopyOut(make([]byte, 64)); n != 0 || c != 0 || r.Release(32) {
		t.Fatal("CopyOut/Release in flight mode")
	}
	s, _ := newRing(t, MinSize, Stream)
	if _, ok := s.Snapshot(make([]byte, 64)); ok {
		t.Fatal("Snapshot in stream mode")
	}
}

func TestReinitDiscardsAndKeepsSeq(t *testing.T) {
	r, m := newRing(t, MinSize, Stream)
	emit(r, 32, 0)
	emit(r, 32, 0)
	r.Reserve(32, 0)
	if !r.Init(m.base, MinSize, 3, Flight) {
		t.Fatal("re-Init failed")
	}
	seq, _ := emit(r, 32, 0)
	if s := r.Stats(); seq != 3 || s.Discarded != 2 || s.Dropped[CauseAborted] != 1 || r.Mode() != Flight {
		t.Fatalf("seq %d stats %+v", seq, s)
	}
}
