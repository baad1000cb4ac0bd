package wire

import (
	"bytes"
	"encoding/hex"
	"errors"
	"flag"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/unitrace/unitrace/trace/record"
)

var update = flag.Bool("update", false, "rewrite testdata/*.hex golden files")

// golden compares got with testdata/name.hex (hex, whitespace ignored).
func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", name+".hex")
	if *update {
		var sb strings.Builder
		for i := 0; i < len(got); i += 8 {
			sb.WriteString(hex.EncodeToString(got[i:min(i+8, len(got))]) + "\n")
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

func sampleRecords() []byte {
	b := make([]byte, 256)
	h := record.Header{CPU: 1, TS: 1000, TID: 7, Seq: 41}
	n := record.EncodeClock(b, h, 1000, 500)
	h.Seq = 42
	n += record.EncodeThrottle(b[n:], h, 1000, 100)
	return b[:n]
}

// messages holds one of every payload kind, used by the golden and round
// trip tests.
func messages() map[string]Message {
	return map[string]Message{
		"hello": &Hello{ProtoMajor: ProtoMajor, ProtoMinor: ProtoMinor, RecordVersion: record.Version,
			Arch: ArchAMD64, NCPU: 2, TickSource: TickTSC, RingMode: ModeStream, PageSize: 4096,
			RingSize: 1 << 20, TickHz: 2_500_000_000, RefTicks: 123456789, RefNs: 49382, RefUnixNs: 1700000000000000000,
			TextStart: 0x101000, DictHash: 0x0123456789abcdef, BuildID: []byte{0xde, 0xad, 0xbe, 0xef},
			GoBuildID: "go-build-id", Accel: "tcg"},
		"dict": &Dict{Entries: []DictEntry{
			{ID: 16, Flags: PointEnabled | PointBacktrace, Name: "syscall_entry", Format: "nr=%d", Kinds: []record.Kind{record.KU64}},
			{ID: 17, Name: "page_fault", Format: "addr=%x pc=%x name=%s", Kinds: []record.Kind{record.KHex, record.KHex, record.KStr}},
		}},
		"data":  &Data{CPU: 1, FirstSeq: 41, Records: sampleRecords()},
		"lost":  &Lost{CPU: 1, Cause: LostNoHost, FirstSeq: 43, Count: 10, Bytes: 640},
		"stats": &Stats{Ticks: 99, CPUs: []CPUStats{{CPU: 0, Written: 1, Bytes: 2, DroppedFull: 3, DroppedNested: 4, DroppedEarly: 5, TruncatedStacks: 6, WalkStops: 7, SamplerTicks: 8, SamplerLate: 9, Throttled: 10, Overwritten: 11, DroppedOther: 12, Discarded: 13, Pending: 14}, {CPU: 1, Written: 100}}},
		"clock": &Clock{CPU: 1, Ticks: 5000, Ns: 2000, UnixNs: -1},
		"end":   &End{Reason: EndPanic, Status: 2, Ticks: 777, Message: "kernel: nil dereference"},
		"cmd":   &JSON{Type: TypeCmd, Body: []byte(`{"id":1,"cmd":"stats"}`)},
	}
}

func TestGoldenHeader(t *testing.T) {
	golden(t, "frame_end", AppendFrame(nil, TypeEnd, FlagMore, 5, []byte{1, 0, 0, 0, 0, 0, 0, 0}))
}

func TestGoldenPayloads(t *testing.T) {
	for name, m := range messages() {
		p, err := m.AppendPayload(nil)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		golden(t, name, p)
	}
}

func TestRoundTrip(t *testing.T) {
	var buf bytes.Buffer
	w := NewWriter(&buf)
	names := []string{"hello", "dict", "data", "lost", "stats", "clock", "end", "cmd"}
	ms := messages()
	for _, name := range names {
		if err := w.WriteMessage(ms[name]); err != nil {
			t.Fatal(err)
		}
	}
	r := NewReader(&buf)
	for i, name := range names {
		f, err := r.Next()
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if f.Seq != uint32(i) || f.Type != ms[name].FrameType() {
			t.Errorf("%s: seq %d type %v", name, f.Seq, f.Type)
		}
		m, err := Decode(f)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if !reflect.DeepEqual(m, ms[name]) {
			t.Errorf("%s:\ngot  %+v\nwant %+v", name, m, ms[name])
		}
	}
	if _, err := r.Next(); err != io.EOF {
		t.Fatalf("after last frame: %v", err)
	}
}

func TestDataRecordsDecode(t *testing.T) {
	p, _ := (&Data{CPU: 1, FirstSeq: 41, Records: sampleRecords()}).Marshal()
	var d Data
	if err := d.Unmarshal(p); err != nil {
		t.Fatal(err)
	}
	dec := record.NewDecoder(d.Records, DataHeaderSize)
	for _, want := range []uint32{41, 42} {
		r, err := dec.Next()
		if err != nil || r.Seq != want || r.CPU != d.CPU {
			t.Fatalf("record seq %d cpu %d err %v, want seq %d", r.Seq, r.CPU, err, want)
		}
	}
}

// TestUnknownTailsAndTypes checks the versioning rules: bytes appended to a
// payload are ignored, unknown frame types and flag bits pass through.
func TestUnknownTailsAndTypes(t *testing.T) {
	for name, m := range messages() {
		if name == "data" || name == "cmd" {
			continue // their tail is their body
		}
		p, _ := m.AppendPayload(nil)
		p = append(p, 0xaa, 0xbb, 0xcc)
		got, err := Decode(&Frame{Header: Header{Type: m.FrameType()}, Payload: p})
		if err != nil || !reflect.DeepEqual(got, m) {
			t.Errorf("%s with a tail: %+v, %v", name, got, err)
		}
	}
	var buf bytes.Buffer
	w := NewWriter(&buf)
	w.WriteFrame(99, 0x8000, []byte("future"))
	w.WriteMessage(&End{Reason: EndStop})
	r := NewReader(&buf)
	f, err := r.Next()
	if err != nil || f.Type != 99 || f.Flags != 0x8000 {
		t.Fatalf("unknown frame: %+v, %v", f, err)
	}
	if m, err := Decode(f); err != nil || m.(*Unknown).Type != 99 {
		t.Errorf("Decode unknown: %+v, %v", m, err)
	}
	if f, err = r.Next(); err != nil || f.Type != TypeEnd {
		t.Fatalf("frame after unknown: %+v, %v", f, err)
	}
}

func TestShortPayloads(t *testing.T) {
	for name, m := range messages() {
		if name == "cmd" {
			continue
		}
		p, _ := m.AppendPayload(nil)
		for n := 0; n < len(p); n++ {
			_, err := Decode(&Frame{Header: Header{Type: m.FrameType()}, Payload: p[:n]})
			if name == "data" && n >= DataHeaderSize {
				continue // any record bytes are a valid DATA payload
			}
			if !errors.Is(err, ErrShortPayload) {
				t.Errorf("%s cut to %d bytes: err = %v", name, n, err)
				break
			}
		}
	}
}

func TestWriterRejectsHugePayload(t *testing.T) {
	w := NewWriter(io.Discard)
	if err := w.WriteFrame(TypeData, 0, make([]byte, MaxPayload+1)); !errors.Is(err, ErrPayloadTooLarge) {
		t.Errorf("err = %v", err)
	}
	if w.Seq() != 0 {
		t.Errorf("rejected frame consumed seq")
	}
	if err := w.WriteFrame(TypeData, 0, make([]byte, MaxPayload)); err != nil {
		t.Errorf("max payload: %v", err)
	}
}

func TestDictHash(t *testing.T) {
	d := messages()["dict"].(*Dict)
	h := d.Hash()
	d2 := *d
	d2.Entries = append([]DictEntry(nil), d.Entries...)
	d2.Entries[0].Flags = 0
	if d2.Hash() != h {
		t.Error("hash depends on run-time flags")
	}
	d2.Entries[1].Kinds = []record.Kind{record.KHex}
	if d2.Hash() == h {
		t.Error("hash ignores kinds")
	}
}

// A STATS payload of protocol 1.0 (11 counters per CPU) still decodes: the counters 1.1
// appended read as zero.
func TestStatsFromProto10(t *testing.T) {
	text, err := os.ReadFile(filepath.Join("testdata", "stats_proto1.0.hex"))
	if err != nil {
		t.Fatal(err)
	}
	p, err := hex.DecodeString(strings.Join(strings.Fields(string(text)), ""))
	if err != nil {
		t.Fatal(err)
	}
	var s Stats
	if err := s.Unmarshal(p); err != nil {
		t.Fatal(err)
	}
	want := CPUStats{CPU: 0, Written: 1, Bytes: 2, DroppedFull: 3, DroppedNested: 4, DroppedEarly: 5, TruncatedStacks: 6,
		WalkStops: 7, SamplerTicks: 8, SamplerLate: 9, Throttled: 10, Overwritten: 11}
	if len(s.CPUs) != 2 || s.CPUs[0] != want || s.CPUs[1].Written != 100 {
		t.Fatalf("decoded %+v", s)
	}
}
