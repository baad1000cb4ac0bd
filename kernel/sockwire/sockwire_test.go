package sockwire

import (
	"bytes"
	"testing"
)

func TestRoundTrip(t *testing.T) {
	h := Header{Kind: KindReply, Op: OpRecv, ID: 7, Handle: 0x10003, A: [3]int64{-11, 16, 1 << 40}}
	data := []byte("sockaddr........payload")
	b := make([]byte, MaxFrame)
	n := Put(b, h, data)
	if n != HeaderSize+len(data) {
		t.Fatalf("Put = %d", n)
	}
	for cut := 0; cut < n; cut++ {
		if _, _, got, err := Parse(b[:cut]); got != 0 || err != OK {
			t.Fatalf("Parse of %d of %d bytes = %d, %v; want 0, OK (need more)", cut, n, got, err)
		}
	}
	got, gotData, m, err := Parse(b[:n+5])
	h.DataLen = uint32(len(data))
	if err != OK || m != n || got != h || !bytes.Equal(gotData, data) {
		t.Fatalf("Parse = %+v %q %d %v, want %+v %q %d", got, gotData, m, err, h, data, n)
	}
}

func TestRefused(t *testing.T) {
	good := func() []byte {
		b := make([]byte, HeaderSize)
		Put(b, Header{Kind: KindRequest, Op: OpClose, Handle: 1}, nil)
		return b
	}
	for _, tc := range []struct {
		name string
		edit func(b []byte)
		want Err
	}{
		{"magic", func(b []byte) { b[0] ^= 1 }, ErrMagic},
		{"version", func(b []byte) { b[2] = Version + 1 }, ErrVersion},
		{"kind 0", func(b []byte) { b[3] = 0 }, ErrKind},
		{"kind 9", func(b []byte) { b[3] = 9 }, ErrKind},
		{"op 0 in a request", func(b []byte) { b[4] = 0 }, ErrOp},
		{"op past the end", func(b []byte) { b[4] = byte(opEnd) }, ErrOp},
		{"reserved byte", func(b []byte) { b[6] = 1 }, ErrReserved},
		{"reserved word", func(b []byte) { b[21] = 1 }, ErrReserved},
		{"too long", func(b []byte) { b[16], b[17], b[18] = 0, 0, 1 }, ErrTooLong},
		{"reply without id", func(b []byte) { b[3] = byte(KindReply) }, ErrNoID},
		{"event with an op", func(b []byte) { b[3] = byte(KindEvent) }, ErrOp},
	} {
		b := good()
		tc.edit(b)
		if _, _, n, err := Parse(b); err != tc.want || n != 0 {
			t.Errorf("%s: Parse = %d, %v; want 0, %v", tc.name, n, err, tc.want)
		}
	}
	if _, _, n, err := Parse(good()); err != OK || n != HeaderSize {
		t.Errorf("unedited frame: Parse = %d, %v", n, err)
	}
}

func TestPutRefuses(t *testing.T) {
	if n := Put(make([]byte, HeaderSize+3), Header{Kind: KindRequest, Op: OpSend}, make([]byte, 4)); n != 0 {
		t.Errorf("Put into a short buffer = %d", n)
	}
	if n := Put(make([]byte, MaxFrame+10), Header{Kind: KindRequest, Op: OpSend}, make([]byte, MaxData+1)); n != 0 {
		t.Errorf("Put of too much data = %d", n)
	}
	if PutHeader(make([]byte, HeaderSize), Header{}, -1) {
		t.Error("PutHeader with a negative length")
	}
}

func TestOpNames(t *testing.T) {
	for o := Op(1); o < opEnd; o++ {
		if o.String() == "" || o.String() == "invalid" {
			t.Errorf("op %d has no name", o)
		}
	}
	if Op(0).String() != "invalid" || opEnd.String() != "invalid" {
		t.Error("out-of-range ops named")
	}
}

// FuzzParse: any bytes parse without panicking; a frame that parses puts back to the same bytes.
func FuzzParse(f *testing.F) {
	b := make([]byte, MaxFrame)
	n := Put(b, Header{Kind: KindReply, Op: OpAccept, ID: 3, Handle: 9, A: [3]int64{0, 2, -1}}, []byte{2, 0, 0x1f, 0x90, 127, 0, 0, 1})
	f.Add(b[:n])
	n = Put(b, Header{Kind: KindEvent, Handle: 5, A: [3]int64{1}}, nil)
	f.Add(b[:n])
	f.Add([]byte{0x55, 0x4e, 1})
	f.Fuzz(func(t *testing.T, in []byte) {
		h, data, n, err := Parse(in)
		if err != OK || n == 0 {
			return
		}
		if n != HeaderSize+len(data) || int(h.DataLen) != len(data) {
			t.Fatalf("n %d, data %d, DataLen %d", n, len(data), h.DataLen)
		}
		out := make([]byte, n)
		if Put(out, h, data) != n || !bytes.Equal(out, in[:n]) {
			t.Fatalf("Put(Parse(x)) != x: %x vs %x", out, in[:n])
		}
	})
}
