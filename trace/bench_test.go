//go:build unitrace_host

package trace

import (
	"reflect"
	"runtime"
	"testing"
	"unsafe"

	"github.com/unitrace/unitrace/trace/record"
	"github.com/unitrace/unitrace/trace/ring"
)

// Host benchmarks of the emit path (docs/measurements.md, "Tracer"), with the host machine hooks of
// arch_host.go:
//
//	go test -tags unitrace_host -run '^$' -bench Emit -count 5 ./trace/
//
// Each emits into CPU 0's stream ring, which lives in memory the test allocates; the benchmark
// itself is the consumer and releases everything every releaseEvery emits, so the ring never
// fills and no emit takes the cheaper dropped path (checked after the loop).

var (
	benchPoint = Point{Name: "bench_emit", Format: "i=%d x=%x",
		Args: ArgKinds{N: 2, Kinds: [MaxArgs]record.Kind{record.KU64, record.KHex}}}

	// benchMem is the ring's memory. The ring keeps only its address, so this variable is what
	// keeps the buffer alive (the Go heap does not move objects).
	benchMem []uint64
)

const (
	benchRingSize = 1 << 20
	releaseEvery  = 256 // 256 records of the largest kind here (296 bytes) use 74 KiB of 1 MiB
	wantFrames    = 32
)

// setupBench gives CPU 0 a fresh stream ring, registers the benchmark's point once and sets its
// flags (cleared again when b ends). It returns the ring and its counters before the run.
func setupBench(tb testing.TB, flags uint32) (*ring.Ring, ring.Stats) {
	tb.Helper()
	if benchPoint.ID() == 0 && !Register(&benchPoint) {
		tb.Fatal("cannot register the benchmark's tracepoint")
	}
	if benchMem == nil {
		benchMem = make([]uint64, benchRingSize/8)
	}
	if !SetupRing(0, uintptr(unsafe.Pointer(&benchMem[0])), benchRingSize, ring.Stream) {
		tb.Fatal("SetupRing failed")
	}
	benchPoint.SetFlags(flags)
	tb.Cleanup(func() { benchPoint.SetFlags(0) })
	r := Ring(0)
	return r, r.Stats()
}

// releaseAll is the consumer: it gives every committed byte back to the producer.
func releaseAll(r *ring.Ring) {
	f, s := r.Peek()
	r.Release(f.Len + s.Len)
}

// checkWritten fails b unless exactly want records were committed since before and none was
// dropped: a dropped emit is cheaper than a written one and would flatter the number.
func checkWritten(tb testing.TB, r *ring.Ring, before ring.Stats, want uint64) {
	tb.Helper()
	after := r.Stats()
	for c := range after.Dropped {
		if d := after.Dropped[c] - before.Dropped[c]; d != 0 {
			tb.Fatalf("%d records dropped (cause %d)", d, c)
		}
	}
	if w := after.Written - before.Written; w != want {
		tb.Fatalf("%d records written, want %d", w, want)
	}
}

// BenchmarkEmitDisabled is the cost of a site whose tracepoint is off: a call, one atomic load
// and a branch.
func BenchmarkEmitDisabled(b *testing.B) {
	r, before := setupBench(b, 0)
	b.ReportAllocs()
	for i := range b.N {
		benchPoint.Emit2(uint64(i), 0xfeed)
	}
	b.StopTimer()
	checkWritten(b, r, before, 0)
}

// BenchmarkEmitEnabled is a two-argument emit without a backtrace: a 40-byte record.
func BenchmarkEmitEnabled(b *testing.B) {
	r, before := setupBench(b, Enabled)
	b.ReportAllocs()
	for i := range b.N {
		benchPoint.Emit2(uint64(i), 0xfeed)
		if i%releaseEvery == releaseEvery-1 {
			releaseAll(r)
		}
	}
	b.StopTimer()
	checkWritten(b, r, before, uint64(b.N))
}

// BenchmarkEmitBacktrace32 is a two-argument emit whose caller sits deep enough that the walk
// records exactly 32 frames: two validated frame-pointer walks (count, then copy) and a
// 296-byte record. The frame count is checked by decoding records from the ring, before the
// timed run and after it.
func BenchmarkEmitBacktrace32(b *testing.B) {
	r, _ := setupBench(b, Enabled|Backtrace)
	depth := depthFor(b, r, wantFrames)
	releaseAll(r)
	before := r.Stats()
	b.ReportAllocs()
	b.ResetTimer()
	runAtDepth(depth, r, b.N)
	b.StopTimer()
	checkWritten(b, r, before, uint64(b.N))
	checkLastRecord(b, r, wantFrames)
}

// TestHostBacktrace32 runs the benchmark's setup check in plain `go test -tags unitrace_host`,
// so a broken host hook shows up without -bench.
func TestHostBacktrace32(t *testing.T) {
	r, before := setupBench(t, Enabled|Backtrace)
	depth := depthFor(t, r, wantFrames)
	releaseAll(r)
	runAtDepth(depth, r, 3)
	checkLastRecord(t, r, wantFrames)
	checkWritten(t, r, before, 5) // two calibration probes and three emits
}

// depthFor finds the recursion depth at which emitLoop's records carry want frames: it probes
// at depth 0, then corrects by the difference (each level adds one frame).
func depthFor(tb testing.TB, r *ring.Ring, want int) int {
	tb.Helper()
	releaseAll(r)
	runAtDepth(0, r, 1)
	base := lastRecord(tb, r)
	if base.Flags&record.HasStack == 0 || base.NFrames == 0 {
		tb.Fatalf("probe record has no stack (flags %#x, %d frames): the host walk hooks do not work", base.Flags, base.NFrames)
	}
	depth := want - int(base.NFrames)
	if depth < 0 {
		tb.Fatalf("a goroutine's shallowest emit already has %d frames", base.NFrames)
	}
	releaseAll(r)
	runAtDepth(depth, r, 1)
	checkLastRecord(tb, r, want)
	return depth
}

// runAtDepth runs emitLoop(n) depth calls deep on a new goroutine, whose frame-pointer chain
// ends (saved frame pointer 0) right after its entry function and runtime.goexit, so the number
// of frames a walk finds depends only on depth.
func runAtDepth(depth int, r *ring.Ring, n int) {
	done := make(chan struct{})
	go func() {
		atDepth(depth, r, n)
		close(done)
	}()
	<-done
}

//go:noinline
func atDepth(depth int, r *ring.Ring, n int) {
	if depth > 0 {
		atDepth(depth-1, r, n)
		return
	}
	emitLoop(r, n)
}

// emitLoop is the function that fires the tracepoint: every record's stack[0] points into it.
//
//go:noinline
func emitLoop(r *ring.Ring, n int) {
	for i := range n {
		benchPoint.Emit2(uint64(i), 0xfeed)
		if i%releaseEvery == releaseEvery-1 {
			releaseAll(r)
		}
	}
}

// lastRecord decodes the ring's newest committed record (without releasing it).
func lastRecord(tb testing.TB, r *ring.Ring) record.Record {
	tb.Helper()
	buf := make([]byte, r.Size())
	n, _ := r.CopyOut(buf)
	d := record.NewDecoder(buf[:n], 0)
	var last record.Record
	found := false
	for {
		rec, err := d.Next()
		if err != nil {
			if _, bad := err.(*record.FormatError); bad {
				tb.Fatalf("ring holds a malformed record: %v", err)
			}
			break
		}
		last, found = rec, true
	}
	if !found {
		tb.Fatal("the ring holds no record")
	}
	if last.TPID != record.TPID(benchPoint.ID()) {
		tb.Fatalf("newest record has tpid %d, want %d", last.TPID, benchPoint.ID())
	}
	return last
}

// checkLastRecord checks that the newest record has exactly want frames from a walk that ended
// naturally, with the emitting function first and the right arguments.
func checkLastRecord(tb testing.TB, r *ring.Ring, want int) {
	tb.Helper()
	rec := lastRecord(tb, r)
	if int(rec.NFrames) != want || len(rec.Stack) != want {
		tb.Fatalf("record has %d frames (%d stack words), want %d", rec.NFrames, len(rec.Stack), want)
	}
	if rec.Flags&record.HasStack == 0 || rec.Flags&(record.WalkStop|record.StackTrunc) != 0 {
		tb.Fatalf("record flags %#x: want HasStack and a walk that reached the chain's end", rec.Flags)
	}
	if len(rec.Args) != 2 || rec.Args[1] != 0xfeed {
		tb.Fatalf("record args %v", rec.Args)
	}
	// emit finds the tracepoint's caller through unwind.CallerFP (assembly). The return address
	// lies in the inlined Emit2, which FuncForPC names, but its entry is the outermost function's.
	// Without inlining (-gcflags=-l, -race) Emit2 is a frame of its own, before emitLoop's.
	f := runtime.FuncForPC(uintptr(rec.Stack[0]) - 1)
	loop := runtime.FuncForPC(reflect.ValueOf(emitLoop).Pointer())
	if emit2 := runtime.FuncForPC(reflect.ValueOf((*Point).Emit2).Pointer()); f != nil && emit2 != nil && f.Entry() == emit2.Entry() && len(rec.Stack) > 1 {
		f = runtime.FuncForPC(uintptr(rec.Stack[1]) - 1)
	}
	if f == nil || loop == nil || f.Entry() != loop.Entry() {
		name := "no function"
		if f != nil {
			name = f.Name()
		}
		tb.Fatalf("stack[0] %#x is in %s, want emitLoop", rec.Stack[0], name)
	}
	if int(rec.Size) != record.HeaderSize+(2+want)*record.SlotSize {
		tb.Fatalf("record size %d", rec.Size)
	}
}
