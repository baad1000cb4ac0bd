package profile

import (
	"bytes"
	"slices"
	"strings"
	"testing"

	pprof "github.com/google/pprof/profile"

	"github.com/unitrace/unitrace/internal/profile/profiletest"
	"github.com/unitrace/unitrace/internal/tracefile"
	"github.com/unitrace/unitrace/trace/record"
)

// goroutineRecord is a GOROUTINE record of the off-CPU sweep at ns.
func goroutineRecord(ns, goid uint64, state, reason, wait, thread uint8, syscall int64, periodNs uint64, stack []uint64) tracefile.SynthRecord {
	args := make([]uint64, record.GoroutineArgs)
	args[record.GoroutineArgID] = goid
	args[record.GoroutineArgState] = uint64(record.MakeGoroutineState(state, reason, wait, thread))
	args[record.GoroutineArgPeriodNs] = periodNs
	args[record.GoroutineArgSyscall] = uint64(syscall + 1)
	return tracefile.SynthRecord{TPID: record.TPGoroutine, TS: ns, Args: args, Stack: stack,
		Flags: record.HasStack}
}

// goroutineScenario is the scenario's CPU samples with goroutine 7 as their goroutine, and
// goroutine samples of goroutines 7 and 8 at 100 Hz: 7 waits on a channel in main.outer
// (reason 19 of the program's runtime: chan receive) for five sweeps and three more unchanged
// (GOROUTINE_SAME), 8 is in read(2) (state syscall) and runnable once.
func goroutineScenario(t *testing.T) (*profiletest.Scenario, int) {
	sc := profiletest.NewScenario(program(t, "amd64"), "")
	for i := range sc.Rec.Samples {
		sc.Rec.Samples[i].Task = 7
		sc.Rec.Samples[i].Goroutine = true
	}
	p := sc.Prog
	raMainOuter := p.ReturnAddress("main.main", "main.outer")
	raOuterMid := p.ReturnAddress("main.outer", "main.mid")
	n := 0
	for i := uint64(0); i < 5; i++ {
		sc.Rec.Others = append(sc.Rec.Others,
			goroutineRecord(1000+i, 7, 4, 19, 0, 0, -1, 10_000_000, []uint64{raOuterMid, raMainOuter}),
			goroutineRecord(1000+i, 8, 3, 0, 6, 3, 0, 10_000_000, []uint64{raMainOuter}))
		n += 2
	}
	sc.Rec.Others = append(sc.Rec.Others, goroutineRecord(2000, 8, 1, 0, 0, 0, -1, 10_000_000, []uint64{raMainOuter}),
		// Goroutine 7 stays in its chain receive for three more sweeps.
		tracefile.SynthRecord{TPID: record.TPGoroutineSame, TS: 2100, Args: []uint64{7, 30_000_000, 3, 9}})
	return sc, n + 2
}

// TestGoroutineSamplesInPProf: the pprof file has the wait type, the goroutine samples carry
// wait and their labels, the CPU samples carry cpu and the goroutine.
func TestGoroutineSamplesInPProf(t *testing.T) {
	sc, n := goroutineScenario(t)
	p := recordingProfile(t, &sc.Rec, Options{Value: ValueAll})
	if p.Goroutines != n {
		t.Fatalf("%d goroutine records, want %d", p.Goroutines, n)
	}
	var buf bytes.Buffer
	if err := WritePProf(&buf, p); err != nil {
		t.Fatal(err)
	}
	pp, err := pprof.Parse(&buf)
	if err != nil {
		t.Fatal(err)
	}
	var types []string
	for _, st := range pp.SampleType {
		types = append(types, st.Type+"/"+st.Unit)
	}
	if !slices.Equal(types, []string{"samples/count", "cpu/nanoseconds", "wait/nanoseconds"}) {
		t.Fatalf("sample types %v", types)
	}
	wait := map[string]int64{}
	var cpuOf7 int64
	for _, s := range pp.Sample {
		g := s.NumLabel["goroutine"]
		if s.Value[2] != 0 {
			if s.Value[1] != 0 || len(g) != 1 || s.NumLabel["cpu"] != nil {
				t.Errorf("a goroutine sample with values %v, labels %v %v", s.Value, s.Label, s.NumLabel)
			}
			key := strings.Join([]string{strings.Join(s.Label["state"], ""), strings.Join(s.Label["reason"], ""), strings.Join(s.Label["kernel_wait"], "")}, "/")
			wait[key] += s.Value[2]
			if key == "waiting/chan receive/" && s.Location[0].Line[0].Function.Name != "main.outer" {
				t.Errorf("goroutine 7's leaf is %s, want main.outer (its resume pc, a return address there)", s.Location[0].Line[0].Function.Name)
			}
			continue
		}
		if len(g) == 1 && g[0] == 7 {
			cpuOf7 += s.Value[1]
		}
	}
	want := map[string]int64{"waiting/chan receive/": 80_000_000, "syscall/read/pipe": 50_000_000, "runnable//": 10_000_000}
	for k, v := range want {
		if wait[k] != v {
			t.Errorf("wait %q: %d ns, want %d (all: %v)", k, wait[k], v, wait)
		}
	}
	if cpuOf7 == 0 {
		t.Error("no CPU sample carries goroutine 7")
	}
}

// TestOffCPUViews: -offcpu keeps the goroutine samples alone, in µs, with what each waits for
// as its leaf; -wall keeps both; the CPU views leave them out.
func TestOffCPUViews(t *testing.T) {
	sc, n := goroutineScenario(t)
	off := recordingProfile(t, &sc.Rec, Options{Value: ValueOffCPU})
	if len(off.Samples) != n || off.Deadlines != (n+2)*10_000 {
		t.Errorf("-offcpu: %d samples weighing %d µs, want %d weighing %d", len(off.Samples), off.Deadlines, n, (n+2)*10_000)
	}
	folded := Folded(off, FoldOptions{Group: GroupGoroutine})
	for stack, w := range map[string]int{"goroutine 7;main.main;main.outer;[waiting: chan receive]": 80000,
		"goroutine 8;main.main;[syscall: read on pipe]": 50000, "goroutine 8;main.main;[runnable]": 10000} {
		if folded[stack] != w || len(folded) != 3 {
			t.Errorf("-offcpu folded: %q weighs %d, want %d; all: %v", stack, folded[stack], w, folded)
		}
	}
	cpu := recordingProfile(t, &sc.Rec, Options{})
	wall := recordingProfile(t, &sc.Rec, Options{Value: ValueWall})
	if len(wall.Samples) != len(cpu.Samples)+n {
		t.Errorf("-wall: %d samples, want the %d CPU samples and %d goroutine samples", len(wall.Samples), len(cpu.Samples), n)
	}
	for _, s := range cpu.Samples {
		if s.Wait {
			t.Fatal("the CPU view holds a goroutine sample")
		}
	}
}

// wakeRecord is a WAKE record: goroutine 8's thread blocked in read(2) for blockedNs, woken by
// goroutine 7's thread (3) in main.outer's system call.
func wakeRecord(p *profiletest.Program, ns, blockedNs uint64, waker record.WakerKind) tracefile.SynthRecord {
	args := make([]uint64, record.WakeArgs)
	args[record.WakeArgWoken] = 8
	args[record.WakeArgBlockedNs] = blockedNs
	args[record.WakeArgWait] = 6 | (0+1)<<8 // a pipe, read(2)
	args[record.WakeArgWaker] = uint64(waker)
	woken := []uint64{p.ReturnAddress("main.main", "main.outer")}
	var wakerStack []uint64
	if waker == record.WakerThread {
		args[record.WakeArgWakerGoid], args[record.WakeArgWakerTID] = 7, 3
		wakerStack = []uint64{p.ReturnAddress("main.outer", "main.mid"), p.ReturnAddress("main.main", "main.outer")}
	}
	args[record.WakeArgWokenWords] = uint64(len(woken))
	return tracefile.SynthRecord{TPID: record.TPWake, TS: ns, TID: 2, Args: args, Stack: append(woken, wakerStack...), Flags: record.HasStack}
}

// TestWakersProfile: each wake-up is a sample of the blocked time, its stack the waker's, then
// "[woken by ...]", then the blocked thread's, with the labels that say who woke whom.
func TestWakersProfile(t *testing.T) {
	sc, _ := goroutineScenario(t)
	p := sc.Prog
	sc.Rec.Others = append(sc.Rec.Others, wakeRecord(p, 3000, 4_000_000, record.WakerThread),
		wakeRecord(p, 3001, 1_000_000, record.WakerThread), wakeRecord(p, 3002, 500_000, record.WakerTimer))
	w := recordingProfile(t, &sc.Rec, Options{Value: ValueWakers})
	if w.Wakes != 3 || w.Deadlines != 5500 {
		t.Fatalf("%d wake-ups weighing %d µs, want 3 weighing 5500", w.Wakes, w.Deadlines)
	}
	folded := Folded(w, FoldOptions{})
	// The synthetic waker's words carry no mark: all of them are the kernel's path ([k]).
	want := map[string]int{"main.main;[woken by thread];main.main_[k];main.outer_[k]": 5000, "main.main;[woken by timer]": 500}
	if len(folded) != len(want) {
		t.Errorf("folded %v, want %v", folded, want)
	}
	for k, v := range want {
		if folded[k] != v {
			t.Errorf("%q weighs %d, want %d (all: %v)", k, folded[k], v, folded)
		}
	}
	var buf bytes.Buffer
	if err := WritePProf(&buf, w); err != nil {
		t.Fatal(err)
	}
	pp, err := pprof.Parse(&buf)
	if err != nil {
		t.Fatal(err)
	}
	if len(pp.SampleType) != 2 || pp.SampleType[1].Type != "wait" {
		t.Fatalf("sample types %v", pp.SampleType)
	}
	var byWaker int64
	for _, s := range pp.Sample {
		if wg := s.NumLabel["waker_goroutine"]; len(wg) == 1 && wg[0] == 7 && label(s, "waker") == "thread" &&
			label(s, "reason") == "read" && label(s, "kernel_wait") == "pipe" && s.NumLabel["goroutine"][0] == 8 {
			byWaker += s.Value[1]
		}
	}
	if byWaker != 5_000_000 {
		t.Errorf("goroutine 7 woke goroutine 8 after %d ns in all, want 5000000", byWaker)
	}
}

func label(s *pprof.Sample, key string) string {
	if v := s.Label[key]; len(v) == 1 {
		return v[0]
	}
	return ""
}
