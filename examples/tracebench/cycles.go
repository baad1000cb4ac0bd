package main

import (
	"errors"
	"fmt"
	"runtime"
	"slices"

	"github.com/unitrace/unitrace/trace"
	"github.com/unitrace/unitrace/trace/record"
	"github.com/unitrace/unitrace/trace/ring"
)

// cycles measures the cost per emit of each case in TSC cycles: reps runs of n emits, after one
// warm-up run (under TCG the first run of a loop also pays for translating it), and prints the
// median run. The loop around the emit is included; the "call" line is the same loop calling an
// empty function, for scale.
func cycles(b trace.BootInfo, n, nbt, reps, frames int) error {
	if n <= 0 || nbt <= 0 || reps <= 0 {
		return errors.New("-n, -nbt and -reps must be positive")
	}
	fmt.Printf("tracebench: tsc_hz %d\n", b.TickHz)
	if trace.Ring(0).Mode() != ring.Flight {
		fmt.Println("tracebench: note: not a flight ring; the enabled cases may fill it and measure dropped emits")
	}
	tpOff.SetFlags(0)
	tpOn.SetFlags(trace.Enabled)
	tpBacktrace.SetFlags(trace.Enabled | trace.Backtrace)
	defer func() {
		for _, p := range points {
			p.SetFlags(0)
		}
	}()

	depth, err := depthFor(frames)
	if err != nil {
		return err
	}
	fmt.Printf("tracebench: backtrace_frames %d depth %d\n", frames, depth)

	cases := []struct {
		name string
		n    int
		run  func(n int)
	}{
		{"call", n, callLoop},
		{"disabled", n, func(n int) { emitLoop(&tpOff, n) }},
		{"enabled", n, func(n int) { emitLoop(&tpOn, n) }},
		{fmt.Sprintf("backtrace%d", frames), nbt, func(n int) { runAtDepth(depth, &tpBacktrace, n) }},
	}
	r := trace.Ring(0)
	for _, c := range cases {
		before := r.Stats()
		c.run(c.n) // warm-up
		per := make([]float64, reps)
		for i := range per {
			t0 := tsc()
			c.run(c.n)
			per[i] = float64(tsc()-t0) / float64(c.n)
		}
		slices.Sort(per)
		med := per[len(per)/2]
		after := r.Stats()
		dropped := uint64(0)
		for i := range after.Dropped {
			dropped += after.Dropped[i] - before.Dropped[i]
		}
		fmt.Printf("tracebench: %s %.1f cycles/emit %.1f ns/emit min %.1f max %.1f cycles (%d x %d emits, %d written, %d dropped)\n",
			c.name, med, med*1e9/float64(b.TickHz), per[0], per[len(per)-1], reps, c.n,
			after.Written-before.Written, dropped)
	}
	return nil
}

// emitLoop fires p n times. It is the function every benchmark record's stack[0] points into.
//
//go:noinline
func emitLoop(p *trace.Point, n int) {
	for i := 0; i < n; i++ {
		p.Emit2(uint64(i), 0xfeed)
	}
}

// callLoop is emitLoop's shape with an empty call in place of the emit.
//
//go:noinline
func callLoop(n int) {
	for i := 0; i < n; i++ {
		nop(uint64(i), 0xfeed)
	}
}

//go:noinline
func nop(a, b uint64) {}

// runAtDepth runs emitLoop depth calls deep on a new goroutine. A goroutine's frame-pointer chain
// ends (saved frame pointer 0) after its entry function and runtime.goexit, so how many frames a
// backtrace walk finds depends on depth only.
func runAtDepth(depth int, p *trace.Point, n int) {
	done := make(chan struct{})
	go func() {
		atDepth(depth, p, n)
		close(done)
	}()
	<-done
}

//go:noinline
func atDepth(depth int, p *trace.Point, n int) {
	if depth > 0 {
		atDepth(depth-1, p, n)
		return
	}
	emitLoop(p, n)
}

// depthFor finds the depth at which tpBacktrace's records carry exactly frames frames (each
// level adds one), and proves it by reading such a record back from the flight ring.
func depthFor(frames int) (int, error) {
	if frames < 1 || frames > trace.MaxDepth {
		return 0, fmt.Errorf("-frames %d: want 1..%d", frames, trace.MaxDepth)
	}
	runAtDepth(0, &tpBacktrace, 1)
	probe, err := newest(&tpBacktrace)
	if err != nil {
		return 0, err
	}
	depth := frames - int(probe.NFrames)
	if probe.Flags&record.HasStack == 0 || probe.Flags&record.WalkStop != 0 || depth < 0 {
		return 0, fmt.Errorf("probe backtrace: %d frames, flags %#x", probe.NFrames, probe.Flags)
	}
	runAtDepth(depth, &tpBacktrace, 1)
	rec, err := newest(&tpBacktrace)
	if err != nil {
		return 0, err
	}
	if int(rec.NFrames) != frames || rec.Flags&(record.WalkStop|record.StackTrunc) != 0 {
		return 0, fmt.Errorf("at depth %d: %d frames, flags %#x, want %d frames from a complete walk",
			depth, rec.NFrames, rec.Flags, frames)
	}
	if f := runtime.FuncForPC(uintptr(rec.Stack[0]) - 1); f == nil || f.Name() != "main.emitLoop" {
		return 0, fmt.Errorf("the backtrace's first frame %#x is not in main.emitLoop", rec.Stack[0])
	}
	return depth, nil
}

// newest decodes the newest record in CPU 0's flight ring and checks it is p's.
func newest(p *trace.Point) (record.Record, error) {
	buf := make([]byte, 4096)
	n, ok := trace.Ring(0).Snapshot(buf)
	if !ok {
		return record.Record{}, errors.New("cannot snapshot the ring (boot with -mode flight)")
	}
	d := record.NewDecoder(buf[:n], 0)
	var last record.Record
	found := false
	for {
		rec, err := d.Next()
		if err != nil {
			break
		}
		last, found = rec, true
	}
	if !found || last.TPID != record.TPID(p.ID()) {
		return record.Record{}, fmt.Errorf("the ring's newest record is not %s's", p.Name)
	}
	return last, nil
}
