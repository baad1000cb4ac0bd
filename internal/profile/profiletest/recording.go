package profiletest

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/unitrace/unitrace/internal/tracefile"
	"github.com/unitrace/unitrace/trace/record"
	"github.com/unitrace/unitrace/trace/wire"
)

// Sample is one SAMPLE record to synthesize. One tick is one ns.
type Sample struct {
	CPU    uint16
	TID    uint32
	Ns     uint64
	Flags  record.Flags // PC0Exact|StackFromInterrupt when zero
	SP, FP uint64
	LR     uint64
	W0, W1 uint64
	Task   uint64
	// Goroutine says Task is the id of the goroutine the thread ran (the state slot's bit).
	Goroutine bool
	Idle      bool
	Stack     []uint64

	// A sample taken in the kernel: the leaf's stack kind (goroutine when zero), the thread's
	// below it, and the thread context's registers (the appended slots).
	Kind, ThreadKind                                 record.StackKind
	ThreadSP, ThreadFP, ThreadLR, ThreadW0, ThreadW1 uint64
	// Weight is the deadlines the sample stands for; 0 leaves the slot out (the sampler writes
	// it when it is above 1, or with the thread's registers).
	Weight uint64
	// Args, when set, are the record's argument slots as they are, for malformed records.
	Args []uint64
}

// args returns the SAMPLE's argument slots as the guest lays them out.
func (x *Sample) args() []uint64 {
	if x.Args != nil {
		return x.Args
	}
	kind := x.Kind
	if kind == record.StackUnknown {
		kind = record.StackGoroutine
	}
	st := record.MakeSampleState(x.Idle, kind) | record.SampleState(x.ThreadKind)<<record.ThreadKindShift
	if x.Goroutine {
		st |= record.StateGoroutine
	}
	a := []uint64{x.SP, x.FP, x.LR, x.W0, x.W1, x.Task, 0, uint64(st)}
	crossed := x.ThreadSP|x.ThreadFP|x.ThreadLR|x.ThreadW0|x.ThreadW1 != 0
	if x.Weight > 0 || crossed {
		a = append(a, max(x.Weight, 1))
	}
	if crossed {
		a = append(a, x.ThreadSP, x.ThreadFP, x.ThreadLR, x.ThreadW0, x.ThreadW1)
	}
	return a
}

// Event is a THROTTLE record (Old, New set) or a LOST record (Lost set) on
// a CPU at a time.
type Event struct {
	CPU      uint16
	Ns       uint64
	Old, New uint64
	Lost     uint64
}

// Recording describes a synthetic recording.
type Recording struct {
	Image     string // the HOST frame's image path
	BuildID   []byte // HELLO's GNU build id
	Accel     string
	Arch      wire.Arch
	TextStart uint64 // HELLO's text_start; 0 leaves the image where it is
	Samples   []Sample
	Events    []Event
	Others    []tracefile.SynthRecord // more records (CPU set), numbered after the rest
}

// Bytes encodes the recording: HOST, HELLO, an empty DICT, then one DATA
// frame per CPU whose records are numbered in time order, LOST records
// covering their seqs, and END.
func (r *Recording) Bytes() ([]byte, error) {
	var s tracefile.Synth
	s.Host(&tracefile.Host{Image: r.Image, BuildID: tracefile.BuildIDHex(r.BuildID), Accel: r.Accel,
		Start: time.Date(2026, 3, 4, 5, 6, 7, 0, time.UTC), Tool: "profiletest"})
	var dict wire.Dict
	ncpu := uint16(1)
	for _, x := range r.Samples {
		ncpu = max(ncpu, x.CPU+1)
	}
	s.Message(&wire.Hello{ProtoMajor: wire.ProtoMajor, RecordVersion: record.Version, Arch: r.Arch, NCPU: ncpu,
		TickSource: wire.TickTSC, RingMode: wire.ModeStream, RingSize: 1 << 20, TickHz: 1e9,
		TextStart: r.TextStart, DictHash: dict.Hash(), BuildID: r.BuildID, Accel: r.Accel})
	s.Message(&dict)
	type item struct {
		ns  uint64
		rec tracefile.SynthRecord
	}
	perCPU := map[uint16][]item{}
	for _, x := range r.Samples {
		flags := x.Flags
		if flags == 0 {
			flags = record.PC0Exact | record.StackFromInterrupt
		}
		perCPU[x.CPU] = append(perCPU[x.CPU], item{x.Ns, tracefile.SynthRecord{TPID: record.TPSample, Flags: flags,
			TS: x.Ns, TID: x.TID, Args: x.args(), Stack: x.Stack}})
	}
	for _, e := range r.Events {
		rec := tracefile.SynthRecord{TPID: record.TPThrottle, TS: e.Ns, Args: []uint64{e.Old, e.New}}
		if e.Lost > 0 {
			rec = tracefile.SynthRecord{Lost: &record.Lost{Count: e.Lost, FirstTS: e.Ns, LastTS: e.Ns, Causes: record.CauseRingFull}, TS: e.Ns}
		}
		perCPU[e.CPU] = append(perCPU[e.CPU], item{e.Ns, rec})
	}
	for _, o := range r.Others {
		perCPU[o.CPU] = append(perCPU[o.CPU], item{o.TS, o})
	}
	cpus := make([]uint16, 0, len(perCPU))
	for c := range perCPU {
		cpus = append(cpus, c)
	}
	slices.Sort(cpus)
	for _, c := range cpus {
		items := perCPU[c]
		slices.SortStableFunc(items, func(a, b item) int {
			switch {
			case a.ns < b.ns:
				return -1
			case a.ns > b.ns:
				return 1
			}
			return 0
		})
		seq := uint32(0)
		recs := make([]tracefile.SynthRecord, len(items))
		for i, it := range items {
			rec := it.rec
			if rec.Lost != nil {
				rec.Lost.FirstSeq = seq
				seq += uint32(rec.Lost.Count)
			} else {
				rec.Seq = seq
				seq++
			}
			recs[i] = rec
		}
		s.Data(c, recs...)
	}
	s.Message(&wire.End{Reason: wire.EndExit})
	return s.Bytes()
}

// Write encodes the recording into a file in dir and returns its path.
func (r *Recording) Write(t testing.TB, dir, name string) string {
	t.Helper()
	b, err := r.Bytes()
	if err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, b, 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}
