package ring

import (
	"math/rand/v2"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
)

// One producer goroutine and one slow consumer goroutine on a small stream
// ring (run it with -race): every record received is intact, seqs run
// without gaps except exactly the LOST ranges, and produced = received +
// lost.
func TestConcurrentStream(t *testing.T) {
	const n = 200000
	r, _ := newRing(t, MinSize, Stream)
	var done atomic.Bool
	var produced uint64
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		rng := rand.New(rand.NewPCG(5, 6))
		for i := range n {
			size := uint32(HeaderSize + 8*rng.IntN(40))
			if a, seq, ok := r.Reserve(size, uint64(i)); ok {
				fill(a, size, seq)
				r.Commit()
			}
			if i%64 == 0 {
				r.Drop(CauseNested)
				produced++
			}
			produced++
		}
		done.Store(true)
	}()

	var received, lost uint64
	var next uint32
	buf := make([]byte, 2048)
	check := func(recs []rec) {
		for _, g := range recs {
			if g.seq != next {
				t.Fatalf("seq %d, want %d", g.seq, next)
			}
			if g.tpid == tpidLost {
				lost += g.args[0]
				next += uint32(g.args[0])
			} else {
				received++
				next++
			}
		}
	}
	for !done.Load() {
		m, consumed := r.CopyOut(buf[:rand.IntN(len(buf))])
		check(parse(t, buf[:m]))
		r.Release(consumed)
		runtime.Gosched() // a slow reader, so the ring fills
	}
	wg.Wait()
	check(drain(t, r))
	// Flush the pending LOST range with one more record.
	if _, ok := emit(r, 24, n); !ok {
		t.Fatal("final record dropped on an empty ring")
	}
	produced++
	check(drain(t, r))
	s := r.Stats()
	if lost == 0 || s.Dropped[CauseFull] == 0 {
		t.Fatalf("the reader never fell behind (lost %d): test proves little", lost)
	}
	if produced != received+lost || s.Written != received || s.Pending != 0 {
		t.Fatalf("produced %d, received %d + lost %d; stats %+v", produced, received, lost, s)
	}
	t.Logf("produced %d, received %d, lost %d (LOST records %d)", produced, received, lost, s.LostRecords)
}
