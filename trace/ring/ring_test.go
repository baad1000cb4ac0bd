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
	// Fill to 40 bytes short of the end, drain, then a 64-byte record must
	// be preceded by a 40-byte PAD and start at offset 0.
	for i := 0; i < (MinSize-40)/8/8; i++ {
		emit(r, 64, 0)
	}
	emit(r, MinSize-40-(MinSize-40)/64*64+24, 0) // the odd remainder
	drain(t, r)
	if off := r.head.Load() % MinSize; off != MinSize-40 {
		t.Fatalf("head at offset %d", off)
	}
	a, _, _ := r.Reserve(64, 0)
	if a != r.base {
		t.Fatalf("record at %#x, want ring start %#x", a, r.base)
	}
	r.Abort(0)
	first, second := r.Peek()
	if first.Len != 40 || second.Len != 0 {
		t.Fatalf("after abort Peek = %+v %+v, want only the... PAD is not published", first, second)
	}
}
