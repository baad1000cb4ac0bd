package ring

import "testing"

func BenchmarkReserveCommitFlight(b *testing.B) {
	r, _ := newRing(b, DefaultSize, Flight)
	b.ReportAllocs()
	for i := range b.N {
		if _, _, ok := r.Reserve(64, uint64(i)); ok {
			r.Commit()
		}
	}
}

func BenchmarkReserveCommitStream(b *testing.B) {
	r, _ := newRing(b, DefaultSize, Stream)
	b.ReportAllocs()
	for i := range b.N {
		if _, _, ok := r.Reserve(64, uint64(i)); ok {
			r.Commit()
		}
		if i%1024 == 0 {
			f, s := r.Peek()
			r.Release(f.Len + s.Len)
		}
	}
}

func TestReserveCommitAllocs(t *testing.T) {
	r, _ := newRing(t, MinSize, Flight)
	buf := make([]byte, 4096)
	if a := testing.AllocsPerRun(1000, func() {
		if _, _, ok := r.Reserve(64, 1); ok {
			r.Commit()
		}
		r.Drop(CauseNested)
		r.Snapshot(buf)
	}); a != 0 {
		t.Fatalf("%v allocations per run", a)
	}
}
