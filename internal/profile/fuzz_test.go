package profile

import (
	"bytes"
	"encoding/binary"
	"io"
	"testing"

	"github.com/unitrace/unitrace/internal/profile/profiletest"
	"github.com/unitrace/unitrace/internal/tracefile"
	"github.com/unitrace/unitrace/trace/record"
	"github.com/unitrace/unitrace/trace/wire"
)

// fuzzWords are what the fuzzer's bytes pick stack words and registers from: the marks, zero,
// and addresses of the real program where the leaf fixes have something to find.
func fuzzWords(p *profiletest.Program) []uint64 {
	sys := p.Find("runtime.futex", "SYSCALL")
	return []uint64{
		record.StackMarkThread, record.StackMarkKernel, 0,
		p.Func("prog/kernel.lockKernel").Entry + 4, p.ReturnAddress("prog/kernel.syscall", "prog/kernel.lockKernel"),
		p.ReturnAddress("prog/kernel.Trap", "prog/kernel.syscall"), sys.PC + uint64(sys.Len),
		p.ReturnAddress("runtime.futexsleep", "runtime.futex"), p.ReturnAddress("runtime.notesleep", "runtime.futexsleep"),
		p.Func("main.leaf").Entry, p.ReturnAddress("main.mid", "main.leaf"), p.ReturnAddress("main.outer", "main.mid"),
		p.Func("main.asmleaf").Entry + 4, p.Func("main.mid").Entry, 0xc000040f00, 0xffff_8000_0010_0f00,
	}
}

// fuzzRecording reads the fuzzer's bytes as SAMPLE records: per record a flags byte, an
// argument-count byte, a stack-length byte, then one byte per argument slot and stack word;
// a byte picks one of fuzzWords, or with its top bit set takes the next 8 bytes as they are.
func fuzzRecording(p *profiletest.Program, b []byte) *profiletest.Recording {
	words := fuzzWords(p)
	rec := &profiletest.Recording{Image: p.Path, BuildID: profiletest.BuildID, Arch: wire.ArchAMD64, Accel: "kvm"}
	next := func() byte {
		if len(b) == 0 {
			return 0
		}
		c := b[0]
		b = b[1:]
		return c
	}
	word := func() uint64 {
		c := next()
		if c&0x80 != 0 && len(b) >= 8 {
			v := binary.LittleEndian.Uint64(b)
			b = b[8:]
			return v
		}
		return words[int(c)%len(words)]
	}
	for i := 0; len(b) > 0 && i < 64; i++ {
		s := profiletest.Sample{CPU: uint16(i % 3), TID: uint32(i % 4), Ns: uint64(i+1) * 1_000_000, Flags: record.Flags(next())}
		nargs := record.SampleArgs + int(next()%8)
		nwords := int(next() % 12)
		for j := range nargs {
			switch j {
			case record.SampleArgState:
				s.Args = append(s.Args, uint64(next())<<4|uint64(next()&1)|uint64(next()&0xf)<<record.ThreadKindShift)
			case record.SampleArgWeight:
				s.Args = append(s.Args, uint64(next()%6))
			default:
				s.Args = append(s.Args, word())
			}
		}
		for range nwords {
			s.Stack = append(s.Stack, word())
		}
		rec.Samples = append(rec.Samples, s)
	}
	if len(rec.Samples) == 0 {
		rec.Samples = []profiletest.Sample{{Stack: []uint64{words[3]}}}
	}
	return rec
}

// FuzzBuild feeds Build synthetic SAMPLE records with marks, weights and registers anywhere,
// and every view the profile: nothing may panic, no stack mark may become a frame, the
// kernel's frames come before the thread's, and every view counts the same weights.
func FuzzBuild(f *testing.F) {
	prog := program(f, "amd64")
	im, err := OpenImage(prog.Path)
	if err != nil {
		f.Fatal(err)
	}
	// A crossed sample (lockKernel, the thread mark, futex) with its thread registers; a
	// nested one; an old-format one; garbage.
	f.Add([]byte{byte(record.PC0Exact | record.StackFromInterrupt), 6, 4, 15, 15, 2, 4, 2, 2, 2, 3, 0, 1, 1, 14, 14, 2, 7, 2, 3, 0, 6, 8})
	f.Add([]byte{byte(record.PC0Exact), 6, 6, 15, 15, 2, 2, 2, 2, 2, 3, 0, 1, 3, 14, 14, 2, 7, 2, 3, 1, 5, 0, 6, 8})
	f.Add([]byte{byte(record.PC0Exact), 0, 2, 14, 14, 2, 10, 2, 2, 2, 1, 0, 0, 9, 11})
	f.Add([]byte{0xff, 7, 11, 0, 1, 0, 0x80, 1, 2, 3, 4, 5, 6, 7, 8, 1, 1, 1, 5, 0, 1, 0, 1, 0, 0, 1, 0})
	f.Fuzz(func(t *testing.T, b []byte) {
		raw, err := fuzzRecording(prog, b).Bytes()
		if err != nil {
			t.Fatal(err)
		}
		tr, err := tracefile.Load(bytes.NewReader(raw))
		if err != nil {
			t.Fatal(err)
		}
		for _, opt := range []Options{{}, {NoLeafFix: true}, {FoldKernel: true}, {Idle: true, FoldKernel: true}} {
			p, err := Build(tr, im, opt)
			if err != nil {
				t.Fatal(err)
			}
			checkFuzzedProfile(t, p, opt)
		}
	})
}

func checkFuzzedProfile(t *testing.T, p *Profile, opt Options) {
	t.Helper()
	weights := 0
	for _, s := range p.Samples {
		if s.Weight < 1 {
			t.Fatalf("weight %d", s.Weight)
		}
		weights += s.Weight
		kernel := true
		for _, l := range s.Locs {
			if record.IsStackMark(l.Addr) {
				t.Fatalf("a stack mark became a frame: %+v", s.Locs)
			}
			if l.Kernel && (!kernel || opt.FoldKernel) {
				t.Fatalf("a kernel location after a thread's, or with -fold-kernel: %+v", s.Locs)
			}
			kernel = l.Kernel
		}
		if s.Thread >= len(s.Stack) || s.Thread >= 0 && !s.Stack[s.Thread].Exact {
			t.Fatalf("thread index %d in %+v", s.Thread, s.Stack)
		}
	}
	if weights != p.Deadlines {
		t.Fatalf("weights %d, Deadlines %d", weights, p.Deadlines)
	}
	if root := Tree(p.Samples, GroupCPU, false); root.Hits != p.Deadlines {
		t.Fatalf("the tree holds %d, want %d", root.Hits, p.Deadlines)
	}
	folded := 0
	for _, n := range Folded(p, FoldOptions{}) {
		folded += n
	}
	if folded != p.Deadlines+p.LostTotal() {
		t.Fatalf("folded stacks hold %d, want %d", folded, p.Deadlines+p.LostTotal())
	}
	if _, all := p.Split(); opt.Idle && all.Total() != p.Deadlines {
		t.Fatalf("split %+v, want %d in all", all, p.Deadlines)
	}
	pp, err := PProf(p)
	if err != nil {
		t.Fatal(err)
	}
	var count int64
	for _, s := range pp.Sample {
		count += s.Value[0]
	}
	if count != int64(p.Deadlines+p.LostTotal()) {
		t.Fatalf("pprof samples hold %d, want %d", count, p.Deadlines+p.LostTotal())
	}
	if err := pp.Write(io.Discard); err != nil {
		t.Fatal(err)
	}
	for _, g := range []Group{GroupNone, GroupThread} {
		if err := WriteProf(io.Discard, p, ProfOptions{Group: g, MinHits: "1%"}); err != nil {
			t.Fatal(err)
		}
		_ = WriteProf(io.Discard, p, ProfOptions{Group: g, Function: "lockKernel"})
		if err := WriteFlame(io.Discard, p, FoldOptions{Group: g}, "fuzz"); err != nil {
			t.Fatal(err)
		}
	}
	if err := WriteSplit(io.Discard, p); err != nil {
		t.Fatal(err)
	}
	for _, fn := range []string{"lockKernel", "runtime.futex", "leaf"} {
		if err := Annotate(io.Discard, p, fn); err != nil {
			t.Fatal(err)
		}
	}
}
