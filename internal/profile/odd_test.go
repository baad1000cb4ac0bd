package profile

import (
	"bytes"
	"io"
	"math/rand/v2"
	"testing"

	"github.com/unitrace/unitrace/internal/profile/profiletest"
	"github.com/unitrace/unitrace/internal/tracefile"
	"github.com/unitrace/unitrace/trace/record"
	"github.com/unitrace/unitrace/trace/wire"
)

// TestOddRecords feeds every view samples that a buggy or hostile guest
// could send: empty stacks, zero and garbage pcs, odd flags and states,
// zero rates, words pointing anywhere. Nothing may panic, and the pprof
// profile must stay valid.
func TestOddRecords(t *testing.T) {
	prog := program(t, "amd64")
	rng := rand.New(rand.NewPCG(3, 4))
	text := []uint64{prog.Func("main.leaf").Entry, prog.Func("main.mid").Entry + 3, prog.Func("main.asmleaf").Entry,
		prog.ReturnAddress("main.mid", "main.leaf"), prog.ReturnAddress("main.outer", "main.mid")}
	word := func() uint64 {
		switch rng.IntN(4) {
		case 0:
			return 0
		case 1:
			return text[rng.IntN(len(text))]
		case 2:
			return text[rng.IntN(len(text))] + uint64(rng.IntN(64)) - 32
		}
		return rng.Uint64()
	}
	for round := range 20 {
		rec := profiletest.Recording{Image: prog.Path, BuildID: profiletest.BuildID, Arch: wire.ArchAMD64, Accel: []string{"", "tcg", "kvm", "unknown"}[round%4]}
		for i := range 200 {
			s := profiletest.Sample{CPU: uint16(rng.IntN(3)), TID: uint32(rng.IntN(4)), Ns: uint64(i) * uint64(rng.IntN(2_000_000)),
				Flags: record.Flags(rng.IntN(256)), SP: word(), FP: word(), LR: word(), W0: word(), W1: word(), Task: word(),
				Idle: rng.IntN(10) == 0}
			for range rng.IntN(6) {
				s.Stack = append(s.Stack, word())
			}
			rec.Samples = append(rec.Samples, s)
		}
		rec.Events = append(rec.Events, profiletest.Event{CPU: 1, Ns: 5_000, Old: 0, New: 0},
			profiletest.Event{CPU: 2, Ns: 6_000, Old: 100, New: 0}, profiletest.Event{CPU: 0, Ns: 7_000, Lost: uint64(rng.IntN(5))})
		b, err := rec.Bytes()
		if err != nil {
			t.Fatal(err)
		}
		tr, err := tracefile.Load(bytes.NewReader(b))
		if err != nil {
			t.Fatal(err)
		}
		im, err := OpenFor("", tr, false)
		if err != nil {
			t.Fatal(err)
		}
		for _, opt := range []Options{{}, {NoLeafFix: true}, {Idle: true}} {
			p, err := Build(tr, im, opt)
			if err != nil {
				t.Fatal(err)
			}
			for _, g := range []Group{GroupNone, GroupThread, GroupCPU} {
				if err := WriteProf(io.Discard, p, ProfOptions{Group: g, Reverse: round%2 == 0, MinHits: "1%", MaxDepth: round % 4}); err != nil {
					t.Fatal(err)
				}
				_ = WriteProf(io.Discard, p, ProfOptions{Group: g, Function: "leaf"})
				if err := WriteFolded(io.Discard, p, FoldOptions{Group: g}); err != nil {
					t.Fatal(err)
				}
				if err := WriteFlame(io.Discard, p, FoldOptions{Group: g, MaxDepth: round % 3}, "odd"); err != nil {
					t.Fatal(err)
				}
			}
			if err := WritePProf(io.Discard, p); err != nil {
				t.Fatalf("pprof: %v", err)
			}
			for _, f := range []string{"leaf", "mid", "asmleaf"} {
				if err := Annotate(io.Discard, p, f); err != nil {
					t.Fatalf("annotate %s: %v", f, err)
				}
			}
		}
	}
}

// TestNoSamples checks the error for a recording without SAMPLE records.
func TestNoSamples(t *testing.T) {
	prog := program(t, "amd64")
	rec := profiletest.Recording{Image: prog.Path, BuildID: profiletest.BuildID, Arch: wire.ArchAMD64,
		Others: []tracefile.SynthRecord{{TPID: 16, TS: 5, Args: []uint64{1}}}}
	b, err := rec.Bytes()
	if err != nil {
		t.Fatal(err)
	}
	tr, err := tracefile.Load(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	if HasSamples(tr) {
		t.Error("HasSamples")
	}
	im, err := OpenFor("", tr, false)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Build(tr, im, Options{}); err != ErrNoSamples {
		t.Errorf("Build: %v", err)
	}
	if _, err := Build(tr, nil, Options{}); err == nil {
		t.Error("Build without an image: no error")
	}
}
