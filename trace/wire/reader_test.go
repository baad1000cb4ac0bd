package wire

import (
	"bytes"
	"errors"
	"io"
	"math/rand"
	"testing"
	"testing/iotest"

	"github.com/unitrace/unitrace/trace/record"
)

type event struct {
	frame   *Frame
	off     int64
	skipped int64
	err     error
}

// readAll drains r, checking that every byte is accounted for exactly once.
func readAll(t testing.TB, r *Reader, size int64) []event {
	t.Helper()
	var out []event
	var pos int64
	for i := 0; ; i++ {
		f, err := r.Next()
		if err == io.EOF {
			break
		}
		if i > int(size)+1 {
			t.Fatal("reader does not advance")
		}
		var fe *FrameError
		switch {
		case err == nil:
			if f.Offset != pos {
				t.Fatalf("frame at %d, want %d", f.Offset, pos)
			}
			pos += HeaderSize + int64(len(f.Payload))
			out = append(out, event{frame: f, off: f.Offset})
		case errors.As(err, &fe):
			if fe.Offset != pos || fe.Skipped <= 0 {
				t.Fatalf("error %v at %d, want a positive skip at %d", err, fe.Offset, pos)
			}
			pos += fe.Skipped
			out = append(out, event{off: fe.Offset, skipped: fe.Skipped, err: fe.Err})
		default:
			t.Fatalf("unexpected error %v", err)
		}
	}
	if pos != size {
		t.Fatalf("accounted for %d of %d bytes", pos, size)
	}
	return out
}

// stream writes n END frames with distinct payloads and returns the bytes and
// frame start offsets (plus the end offset).
func stream(n int) ([]byte, []int64) {
	var buf bytes.Buffer
	w := NewWriter(&buf)
	var offs []int64
	for i := 0; i < n; i++ {
		offs = append(offs, int64(buf.Len()))
		w.WriteMessage(&End{Reason: EndExit, Status: int32(i), Message: string(make([]byte, i%50))})
	}
	return buf.Bytes(), append(offs, int64(buf.Len()))
}

func TestReaderErrors(t *testing.T) {
	good, offs := stream(3)
	f1 := offs[1]
	type want struct {
		off int64
		err error // nil: a frame
	}
	cases := []struct {
		name string
		data []byte
		want []want
	}{
		{"clean", good, []want{{0, nil}, {offs[1], nil}, {offs[2], nil}}},
		{"garbage before", append([]byte("xyzUT"), good...), []want{{0, ErrBadMagic}, {5, nil}, {5 + offs[1], nil}, {5 + offs[2], nil}}},
		{"garbage between", cat(good[:f1], []byte("noise!!"), good[f1:]), []want{{0, nil}, {f1, ErrBadMagic}, {f1 + 7, nil}, {offs[2] + 7, nil}}},
		{"garbage after", cat(good, []byte("tail")), []want{{0, nil}, {offs[1], nil}, {offs[2], nil}, {offs[3], ErrBadMagic}}},
		{"truncated last frame", good[:offs[3]-3], []want{{0, nil}, {offs[1], nil}, {offs[2], ErrTruncated}}},
		{"truncated header", good[:offs[2]+10], []want{{0, nil}, {offs[1], nil}, {offs[2], ErrTruncated}}},
		{"partial magic at end", good[:offs[2]+2], []want{{0, nil}, {offs[1], nil}, {offs[2], ErrTruncated}}},
		{"payload bit flip", flip(good, f1+HeaderSize+2, 0x10), []want{{0, nil}, {f1, ErrBadCRC}, {offs[2], nil}}},
		{"crc bit flip", flip(good, f1+offCRC, 1), []want{{0, nil}, {f1, ErrBadCRC}, {offs[2], nil}}},
		{"version", flip(good, f1+offVersion, 2), []want{{0, nil}, {f1, ErrVersion}, {offs[2], nil}}},
		{"length too large", flip(good, f1+offLength+3, 0x40), []want{{0, nil}, {f1, ErrTooLarge}, {offs[2], nil}}},
		{"length past end", flip(good, f1+offLength+1, 0x10), []want{{0, nil}, {f1, ErrTruncated}, {offs[2], nil}}},
		{"magic flip", flip(good, f1, 0x01), []want{{0, nil}, {f1, ErrBadMagic}, {offs[2], nil}}},
		{"empty", nil, nil},
	}
	for _, tc := range cases {
		// One-byte reads exercise the buffering and the magic split across reads.
		for _, r := range []io.Reader{bytes.NewReader(tc.data), iotest.OneByteReader(bytes.NewReader(tc.data))} {
			got := readAll(t, NewReader(r), int64(len(tc.data)))
			if len(got) != len(tc.want) {
				t.Errorf("%s: got %d events, want %d: %+v", tc.name, len(got), len(tc.want), got)
				continue
			}
			for i, w := range tc.want {
				if got[i].off != w.off || !errors.Is(got[i].err, w.err) || (w.err == nil) != (got[i].frame != nil) {
					t.Errorf("%s: event %d = %+v, want %+v", tc.name, i, got[i], w)
				}
			}
		}
	}
}

func TestReaderReadError(t *testing.T) {
	good, _ := stream(1)
	boom := errors.New("boom")
	r := NewReader(io.MultiReader(bytes.NewReader(good), iotest.ErrReader(boom)))
	if _, err := r.Next(); err != nil {
		t.Fatal(err)
	}
	if _, err := r.Next(); err != boom {
		t.Fatalf("err = %v, want boom", err)
	}
}

// TestModelCorruption writes N frames, corrupts random bytes and checks that
// every intact frame comes back at its offset, and that the errors cover
// exactly the corrupted frames.
func TestModelCorruption(t *testing.T) {
	rng := rand.New(rand.NewSource(7))
	for iter := 0; iter < 300; iter++ {
		n := 1 + rng.Intn(40)
		good, offs := stream(n)
		data := append([]byte(nil), good...)
		bad := make([]bool, n)
		for k := rng.Intn(6); k > 0; k-- {
			p := rng.Intn(len(data))
			x := byte(1 + rng.Intn(255))
			data[p] ^= x
			for i := 0; i < n; i++ {
				// The reserved word is outside the CRC and ignored by readers.
				inReserved := int64(p) >= offs[i]+offReserved && int64(p) < offs[i]+HeaderSize
				if int64(p) >= offs[i] && int64(p) < offs[i+1] && !inReserved {
					bad[i] = true
				}
			}
		}
		if rng.Intn(4) == 0 { // and sometimes cut the tail
			cut := rng.Intn(len(data))
			data = data[:cut]
			for i := 0; i < n; i++ {
				if offs[i+1] > int64(cut) {
					bad[i] = true
				}
			}
		}
		got := readAll(t, NewReader(bytes.NewReader(data)), int64(len(data)))
		covered := make([]bool, n)
		var frames int
		for _, e := range got {
			i := frameAt(offs, e.off)
			if e.frame != nil {
				frames++
				if bad[i] || offs[i] != e.off || !bytes.Equal(AppendFrame(nil, e.frame.Type, e.frame.Flags, e.frame.Seq, e.frame.Payload), good[offs[i]:offs[i+1]]) {
					t.Fatalf("iter %d: frame %d at %d returned but corrupted or altered", iter, i, e.off)
				}
				continue
			}
			if i < 0 || !bad[i] {
				t.Fatalf("iter %d: error %v at %d outside any corrupted frame", iter, e.err, e.off)
			}
			for j := i; j < n && offs[j] < e.off+e.skipped; j++ {
				covered[j] = true
			}
		}
		for i := 0; i < n; i++ {
			if bad[i] && !covered[i] && offs[i] < int64(len(data)) {
				t.Fatalf("iter %d: corrupted frame %d at %d not reported", iter, i, offs[i])
			}
			if !bad[i] {
				frames--
			}
		}
		if frames != 0 {
			t.Fatalf("iter %d: %d intact frames missing", iter, -frames)
		}
	}
}

func frameAt(offs []int64, off int64) int {
	for i := 0; i+1 < len(offs); i++ {
		if off >= offs[i] && off < offs[i+1] {
			return i
		}
	}
	return -1
}

func cat(parts ...[]byte) []byte { return bytes.Join(parts, nil) }

func flip(b []byte, off int64, mask byte) []byte {
	c := append([]byte(nil), b...)
	c[off] ^= mask
	return c
}

func FuzzReader(f *testing.F) {
	var buf bytes.Buffer
	w := NewWriter(&buf)
	for _, name := range []string{"hello", "dict", "data", "lost", "stats", "clock", "end", "cmd"} {
		w.WriteMessage(messages()[name])
	}
	all := buf.Bytes()
	f.Add(all)
	f.Add(all[:len(all)-5])
	f.Add(cat([]byte("junkUTR"), all[:100], []byte("UTRC"), all))
	f.Add(flip(all, 30, 0xff))
	f.Add([]byte("UTRC"))
	f.Add([]byte{})
	f.Fuzz(func(t *testing.T, data []byte) {
		for _, ev := range readAll(t, NewReader(bytes.NewReader(data)), int64(len(data))) {
			if ev.frame == nil {
				continue
			}
			m, err := Decode(ev.frame)
			if err != nil {
				continue
			}
			if d, ok := m.(*Data); ok {
				dec := record.NewDecoder(d.Records, ev.off+HeaderSize+DataHeaderSize)
				for {
					if _, err := dec.Next(); err == io.EOF {
						break
					}
				}
			}
			// What decodes must re-encode to something that decodes the same.
			p, err := m.AppendPayload(nil)
			if err != nil {
				continue
			}
			m2, err := Decode(&Frame{Header: ev.frame.Header, Payload: p})
			if err != nil {
				t.Fatalf("re-encoded %v does not decode: %v", ev.frame.Type, err)
			}
			p2, _ := m2.AppendPayload(nil)
			if !bytes.Equal(p, p2) {
				t.Fatalf("%v payload not stable across re-encoding", ev.frame.Type)
			}
		}
	})
}
