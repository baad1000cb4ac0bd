package record

import (
	"bytes"
	"encoding/hex"
	"errors"
	"flag"
	"io"
	"math/rand"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite testdata/*.hex golden files")

// golden compares got with testdata/name.hex (hex, whitespace ignored).
func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", name+".hex")
	if *update {
		var sb strings.Builder
		for i := 0; i < len(got); i += 8 {
			end := min(i+8, len(got))
			sb.WriteString(hex.EncodeToString(got[i:end]) + "\n")
		}
		if err := os.WriteFile(path, []byte(sb.String()), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	text, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	want, err := hex.DecodeString(strings.Join(strings.Fields(string(text)), ""))
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s: bytes differ\ngot  %x\nwant %x", name, got, want)
	}
}

var testHeader = Header{CPU: 3, TS: 0x1122334455667788, TID: 42, Seq: 7}

func TestGoldenRecords(t *testing.T) {
	b := make([]byte, 512)
	n := EncodeLost(b, testHeader, Lost{FirstSeq: 100, Count: 5, FirstTS: 10, LastTS: 20, Causes: CauseRingFull | CauseNested})
	golden(t, "lost", b[:n])

	n = EncodeClock(b, testHeader, 123456789, 987654321)
	golden(t, "clock", b[:n])

	n = EncodeThrottle(b, testHeader, 1000, 250)
	golden(t, "throttle", b[:n])

	h := testHeader
	h.NFrames = 2
	h.Flags = PC0Exact | StackFromInterrupt
	s := Sample{SP: 0xc000100000, FP: 0xc000100020, W0: 0x401000, W1: 0x402000, TID: 9, LateNs: 1500,
		State: MakeSampleState(false, StackGoroutine)}
	n = EncodeSample(b, h, &s)
	PutFrame(b[:n], 0, 0x401234)
	PutFrame(b[:n], 1, 0x405678)
	golden(t, "sample", b[:n])

	// A dictionary record: two u64 args, a string, a one-word stack.
	h = Header{Size: uint16(Size(2+StrSlots, 1)), TPID: FirstDictID + 1, Flags: HasStack, NFrames: 1, CPU: 1, TS: 99, TID: 5, Seq: 8}
	PutHeader(b, h)
	PutArg(b, 0, 0xdeadbeef)
	PutArg(b, 1, 1)
	PutString(b, 2, "openat")
	PutFrame(b, 0, 0x4a0000)
	golden(t, "dict_record", b[:h.Size])
}

func TestSize(t *testing.T) {
	for _, tc := range []struct{ nargs, nframes, want int }{
		{0, 0, 24}, {8, 32, 24 + 8*40}, {-1, 0, 0}, {0, -1, 0}, {0, 255, 24 + 8*255}, {0, 256, 0},
		{(MaxSize - 24) / 8, 0, MaxSize}, {(MaxSize-24)/8 + 1, 0, 0}, {1 << 40, 0, 0},
	} {
		if got := Size(tc.nargs, tc.nframes); got != tc.want {
			t.Errorf("Size(%d, %d) = %d, want %d", tc.nargs, tc.nframes, got, tc.want)
		}
	}
}

func TestEncodersRejectBadInput(t *testing.T) {
	b := make([]byte, 64)
	for _, tc := range []struct {
		name string
		ok   bool
	}{
		{"header size too small", PutHeader(b, Header{Size: 16})},
		{"header size unaligned", PutHeader(b, Header{Size: 28})},
		{"header longer than buffer", PutHeader(b, Header{Size: 72})},
		{"stack past size", PutHeader(b, Header{Size: 32, NFrames: 2})},
		{"lost in short buffer", EncodeLost(b[:48], testHeader, Lost{}) != 0},
		{"sample in short buffer", EncodeSample(b, Header{NFrames: 1}, &Sample{}) != 0},
		{"arg on empty buffer", PutArg(nil, 0, 1)},
		{"frame on empty buffer", PutFrame(b[:3], 0, 1)},
	} {
		if tc.ok {
			t.Errorf("%s: accepted", tc.name)
		}
	}
	// A header with 2 args and 1 frame: slots 0-1 and frame 0 only.
	if !PutHeader(b, Header{Size: 48, NFrames: 1}) {
		t.Fatal("valid header rejected")
	}
	for i, want := range map[int]bool{-1: false, 0: true, 1: true, 2: false, 1 << 62: false} {
		if got := PutArg(b, i, 1); got != want {
			t.Errorf("PutArg(slot %d) = %v, want %v", i, got, want)
		}
	}
	for j, want := range map[int]bool{-1: false, 0: true, 1: false} {
		if got := PutFrame(b, j, 1); got != want {
			t.Errorf("PutFrame(%d) = %v, want %v", j, got, want)
		}
	}
	if ok, _ := PutString(b, 0, "x"); ok {
		t.Error("PutString fitted 3 slots into 2")
	}
	// A header whose size exceeds the buffer it is read back from.
	if PutArg(b[:40], 0, 1) || PutFrame(b[:40], 0, 1) {
		t.Error("wrote through a header whose size exceeds the buffer")
	}
}

func TestPutStringTruncates(t *testing.T) {
	b := make([]byte, Size(StrSlots, 0))
	PutHeader(b, Header{Size: uint16(len(b)), TPID: FirstDictID})
	for _, tc := range []struct {
		in, want string
		trunc    bool
	}{
		{"", "", false}, {"abc", "abc", false}, {strings.Repeat("x", 24), strings.Repeat("x", 24), false},
		{strings.Repeat("y", 30), strings.Repeat("y", 24), true},
	} {
		ok, trunc := PutString(b, 0, tc.in)
		if !ok || trunc != tc.trunc {
			t.Errorf("PutString(%q) = %v, %v", tc.in, ok, trunc)
		}
		r, err := NewDecoder(b, 0).Next()
		if err != nil {
			t.Fatal(err)
		}
		if s, _ := r.String(0); s != tc.want {
			t.Errorf("PutString(%q) read back %q, want %q", tc.in, s, tc.want)
		}
	}
}

func TestEncodePad(t *testing.T) {
	for _, n := range []int{8, 24, 4096, MaxSize, MaxSize + 8, 3 * MaxSize, 1 << 20} {
		b := make([]byte, n)
		if got := EncodePad(b); got != n {
			t.Fatalf("EncodePad(%d) = %d", n, got)
		}
		if _, err := NewDecoder(b, 0).Next(); err != io.EOF {
			t.Errorf("pad of %d bytes: Next = %v, want io.EOF", n, err)
		}
	}
	if EncodePad(make([]byte, 12)) != 0 {
		t.Error("EncodePad accepted an unaligned length")
	}
}

func TestDecoderErrors(t *testing.T) {
	valid := make([]byte, 64)
	n := EncodeClock(valid, testHeader, 1, 2)
	valid = valid[:n]
	mod := func(f func(b []byte)) []byte {
		b := append([]byte(nil), valid...)
		f(b)
		return b
	}
	for _, tc := range []struct {
		name string
		data []byte
		want error
	}{
		{"short tail", valid[:5], ErrTruncated},
		{"cut record", valid[:n-8], ErrTruncated},
		{"odd size", mod(func(b []byte) { put16(b, 0, 41) }), ErrBadSize},
		{"zero size", mod(func(b []byte) { put16(b, 0, 0) }), ErrBadSize},
		{"size below header", mod(func(b []byte) { put16(b, 0, 16) }), ErrBadSize},
		{"stack past size", mod(func(b []byte) { b[OffNFrames] = 3 }), ErrStackSize},
		{"clock with one arg", mod(func(b []byte) { b[OffNFrames] = 1 }), ErrShortFixed},
	} {
		d := NewDecoder(tc.data, 1000)
		_, err := d.Next()
		var fe *FormatError
		if !errors.As(err, &fe) || !errors.Is(err, tc.want) || fe.Offset != 1000 {
			t.Errorf("%s: err = %v, want %v at 1000", tc.name, err, tc.want)
		}
		if _, err := d.Next(); err != io.EOF {
			t.Errorf("%s: after error, Next = %v, want io.EOF", tc.name, err)
		}
	}
}

func TestUnknownTPIDAndFlagsDecodeGenerically(t *testing.T) {
	b := make([]byte, 48)
	PutHeader(b, Header{Size: 48, TPID: 9, Flags: 0xff, NFrames: 1})
	PutArg(b, 0, 5)
	r, err := NewDecoder(b, 0).Next()
	if err != nil || r.TPID != 9 || len(r.Args) != 2 || r.Args[0] != 5 || len(r.Stack) != 1 {
		t.Fatalf("got %+v, %v", r, err)
	}
	if _, ok := r.Lost(); ok {
		t.Error("Lost() accepted a tpid 9 record")
	}
}

// TestModel encodes random records into one buffer (with PAD runs between
// them) and checks that the decoder returns exactly what was encoded.
func TestModel(t *testing.T) {
	rng := rand.New(rand.NewSource(1))
	for iter := 0; iter < 200; iter++ {
		var want []Record
		buf := make([]byte, 0, 1<<16)
		for len(want) < 50 {
			if rng.Intn(5) == 0 {
				pad := make([]byte, 8*(1+rng.Intn(10)))
				EncodePad(pad)
				buf = append(buf, pad...)
			}
			nargs, nframes := rng.Intn(12), rng.Intn(40)
			h := Header{Size: uint16(Size(nargs, nframes)), TPID: TPID(16 + rng.Intn(100)), Flags: Flags(rng.Intn(256)),
				NFrames: uint8(nframes), CPU: uint16(rng.Intn(4)), TS: rng.Uint64(), TID: rng.Uint32(), Seq: rng.Uint32()}
			rec := make([]byte, h.Size)
			if !PutHeader(rec, h) {
				t.Fatalf("PutHeader(%+v) failed", h)
			}
			r := Record{Header: h, Offset: int64(len(buf)), Args: make([]uint64, nargs), Stack: make([]uint64, nframes)}
			for i := range r.Args {
				r.Args[i] = rng.Uint64()
				PutArg(rec, i, r.Args[i])
			}
			for j := range r.Stack {
				r.Stack[j] = rng.Uint64()
				PutFrame(rec, j, r.Stack[j])
			}
			r.Raw = rec
			buf = append(buf, rec...)
			want = append(want, r)
		}
		d := NewDecoder(buf, 0)
		for i, w := range want {
			got, err := d.Next()
			if err != nil {
				t.Fatalf("iter %d record %d: %v", iter, i, err)
			}
			if !reflect.DeepEqual(got, w) {
				t.Fatalf("iter %d record %d:\ngot  %+v\nwant %+v", iter, i, got, w)
			}
		}
		if _, err := d.Next(); err != io.EOF {
			t.Fatalf("iter %d: trailing Next = %v", iter, err)
		}
	}
}

func TestFixedRoundTrip(t *testing.T) {
	b := make([]byte, 1024)
	l := Lost{FirstSeq: 77, Count: 3, FirstTS: 1, LastTS: 9, Causes: CauseBeforeRings}
	h := testHeader
	h.Seq = 12345 // ignored by EncodeLost
	n := EncodeLost(b, h, l)
	n += EncodeClock(b[n:], testHeader, 5, 6)
	n += EncodeThrottle(b[n:], testHeader, 1000, 500)
	sh := testHeader
	sh.NFrames = 3
	s := Sample{SP: 1, FP: 2, LR: 3, W0: 4, W1: 5, TID: 6, LateNs: 7, State: MakeSampleState(true, StackInterrupt), Weight: 1}
	m := EncodeSample(b[n:], sh, &s)
	n += m
	d := NewDecoder(b[:n], 0)
	r, _ := d.Next()
	if got, ok := r.Lost(); !ok || got != l || r.Seq != 77 {
		t.Errorf("Lost = %+v, %v (seq %d)", got, ok, r.Seq)
	}
	r, _ = d.Next()
	if tk, ns, ok := r.Clock(); !ok || tk != 5 || ns != 6 {
		t.Errorf("Clock = %d, %d, %v", tk, ns, ok)
	}
	r, _ = d.Next()
	if o, nw, ok := r.Throttle(); !ok || o != 1000 || nw != 500 {
		t.Errorf("Throttle = %d, %d, %v", o, nw, ok)
	}
	r, _ = d.Next()
	got, ok := r.Sample()
	if !ok || got != s || r.Flags&HasStack == 0 || len(r.Stack) != 3 {
		t.Errorf("Sample = %+v, %v, flags %#x", got, ok, r.Flags)
	}
	if got.State.Kind() != StackInterrupt || got.State&StateIdle == 0 {
		t.Errorf("state %#x", got.State)
	}
}

func TestEncodersDoNotAllocate(t *testing.T) {
	b := make([]byte, 1024)
	s := Sample{SP: 1}
	allocs := testing.AllocsPerRun(100, func() {
		EncodeLost(b, testHeader, Lost{Count: 1})
		EncodeClock(b, testHeader, 1, 2)
		EncodeThrottle(b, testHeader, 1, 2)
		h := testHeader
		h.NFrames = 4
		n := EncodeSample(b, h, &s)
		PutFrame(b[:n], 3, 1)
		PutHeader(b, Header{Size: 64})
		PutArg(b, 1, 2)
		PutString(b, 2, "name")
		EncodePad(b[:64])
	})
	if allocs != 0 {
		t.Errorf("encoders allocate %v times per run", allocs)
	}
}

func FuzzRecordDecoder(f *testing.F) {
	b := make([]byte, 1024)
	n := EncodeLost(b, testHeader, Lost{Count: 2})
	n += EncodeClock(b[n:], testHeader, 1, 2)
	h := testHeader
	h.NFrames = 2
	n += EncodeSample(b[n:], h, &Sample{})
	n += EncodePad(b[n : n+16])
	f.Add(b[:n])
	f.Add(b[:n-3])
	f.Add([]byte{})
	f.Add([]byte{8, 0, 0, 0, 0, 0, 0, 0})
	f.Add([]byte{0xf8, 0xff, 9, 0, 0, 0xff, 0, 0})
	f.Fuzz(func(t *testing.T, data []byte) {
		d := NewDecoder(data, 0)
		var end int64
		for i := 0; ; i++ {
			r, err := d.Next()
			if err == io.EOF {
				break
			}
			if err != nil {
				var fe *FormatError
				if !errors.As(err, &fe) || fe.Offset < end || fe.Offset >= int64(len(data)) {
					t.Fatalf("bad error %v", err)
				}
				continue
			}
			if r.Offset < end || int(r.Size)%8 != 0 || r.Offset+int64(r.Size) > int64(len(data)) ||
				24+8*(len(r.Args)+len(r.Stack)) != int(r.Size) {
				t.Fatalf("inconsistent record %+v", r)
			}
			end = r.Offset + int64(r.Size)
			if i > len(data) {
				t.Fatal("decoder does not advance")
			}
		}
	})
}

// TestCrossedSampleRoundTrip: a sample taken in the kernel carries its weight and the thread
// context's registers in the appended slots; one of a thread with weight 1 carries neither.
func TestCrossedSampleRoundTrip(t *testing.T) {
	b := make([]byte, 512)
	h := testHeader
	h.NFrames = 4
	h.Flags = PC0Exact | StackFromInterrupt
	s := Sample{SP: 1, FP: 2, W0: 3, W1: 4, TID: 5, State: MakeSampleState(false, StackInterrupt) |
		SampleState(StackGoroutine)<<ThreadKindShift, Weight: 3,
		ThreadSP: 10, ThreadFP: 11, ThreadLR: 12, ThreadW0: 13, ThreadW1: 14}
	n := EncodeSample(b, h, &s)
	for i, w := range []uint64{0x401000, StackMarkThread, 0x402000, 0x403000} {
		PutFrame(b[:n], i, w)
	}
	r, err := NewDecoder(b[:n], 0).Next()
	if err != nil {
		t.Fatal(err)
	}
	got, ok := r.Sample()
	if !ok || got != s || len(r.Args) != SampleArgsCrossed {
		t.Fatalf("Sample = %+v, %v with %d args, want %+v", got, ok, len(r.Args), s)
	}
	if got.State.Kind() != StackInterrupt || got.State.ThreadKind() != StackGoroutine {
		t.Errorf("state %#x: kinds %d, %d", got.State, got.State.Kind(), got.State.ThreadKind())
	}
	if !IsStackMark(r.Stack[1]) || IsStackMark(r.Stack[0]) {
		t.Errorf("stack %x: the mark is not where it was put", r.Stack)
	}

	plain := Sample{SP: 1, Weight: 1}
	n = EncodeSample(b, testHeader, &plain)
	r, _ = NewDecoder(b[:n], 0).Next()
	if got, _ := r.Sample(); len(r.Args) != SampleArgs || got != plain {
		t.Errorf("a weight-1 thread sample: %d args, %+v", len(r.Args), got)
	}
}

// TestStackMarksAreNoAddresses: the marks are non-canonical on amd64 (bits 63-47 differ) and
// above a 48-bit arm64 address, so no pc a walk records can equal one.
func TestStackMarksAreNoAddresses(t *testing.T) {
	for _, m := range []uint64{StackMarkThread, StackMarkKernel, StackMarkSignal, StackMarkTable} {
		if !IsStackMark(m) || StackMarkName(m) == "" || IsContextMark(m) != (m != StackMarkTable) {
			t.Errorf("mark %#x: IsStackMark %v, name %q", m, IsStackMark(m), StackMarkName(m))
		}
		if top := m >> 47; top == 0 || top == 1<<17-1 {
			t.Errorf("mark %#x is a canonical amd64 address", m)
		}
		if m>>48 == 0 {
			t.Errorf("mark %#x is a 48-bit address", m)
		}
	}
	for _, w := range []uint64{0, StackMarkThread &^ 3, StackMarkTable + 1, 0x401000, ^uint64(0)} {
		if IsStackMark(w) {
			t.Errorf("IsStackMark(%#x) = true", w)
		}
	}
}

// TestProbeDecode decodes a PROBE record's registers and string copies, and refuses counts
// that run past its slots.
func TestProbeDecode(t *testing.T) {
	hello := uint64('h') | uint64('e')<<8 | uint64('l')<<16 | uint64('l')<<24 | uint64('o')<<32 | uint64(',')<<40 | uint64(' ')<<48 | uint64('u')<<56
	args := []uint64{MakeProbeInfo(3, 2, 2, 1) | ProbeStrings(1, 3), 0x1000, 0x2000, 7, 0x3000,
		0x11, 0x22, 0x33, // two integer registers, one float
		ProbeStringHeader(9, 1, true, false), hello, uint64('s'),
	}
	r := Record{Header: Header{TPID: TPProbe}, Args: args}
	p, ok := r.Probe()
	if !ok || p.Probe != 3 || p.Kind != 2 || p.PC != 0x1000 || p.SP != 0x2000 || p.Goid != 7 || p.StackHi != 0x3000 ||
		len(p.Ints) != 2 || len(p.Float) != 1 || len(p.Strings) != 1 {
		t.Fatalf("%+v %v", p, ok)
	}
	if s := p.Strings[0]; string(s.Bytes) != "hello, us" || s.PtrReg != 1 || !s.Trunc || s.Unreadable {
		t.Errorf("string %+v", s)
	}
	for _, bad := range [][]uint64{
		append([]uint64{MakeProbeInfo(3, 2, 9, 0)}, args[1:5]...),                     // registers past the slots
		append([]uint64{MakeProbeInfo(3, 2, 2, 1) | ProbeStrings(1, 4)}, args[1:]...), // string slots past the end
		append([]uint64{MakeProbeInfo(3, 2, 2, 1) | ProbeStrings(2, 3)}, args[1:]...), // a second string with no slots
		append([]uint64{MakeProbeInfo(3, 2, 2, 1) | ProbeStrings(1, 2)}, args[1:]...), // a header longer than its slots
		args[:4], // short of the fixed part
	} {
		r := Record{Header: Header{TPID: TPProbe}, Args: bad}
		if p, ok := r.Probe(); ok {
			t.Errorf("%x decoded: %+v", bad, p)
		}
	}
}
