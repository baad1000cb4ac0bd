package le

import (
	"bytes"
	"testing"
)

func TestWriter(t *testing.T) {
	var b [24]byte
	w := Writer{B: b[:]}
	w.U8(1)
	w.U16(0x0302)
	w.U32(0x07060504)
	w.U64(0x0f0e0d0c0b0a0908)
	w.Bytes([]byte{0x10})
	w.CString("ab")
	w.Align(8)
	want := []byte{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 0x10, 'a', 'b', 0, 0, 0, 0, 0, 0}
	if w.Err != OK || w.N != 24 || !bytes.Equal(b[:], want) {
		t.Fatalf("wrote % x (n %d, err %d), want % x", b, w.N, w.Err, want)
	}
	w.U8(0xff)
	if w.Err != ErrFull || w.N != 24 {
		t.Fatalf("a byte past the end: n %d err %d, want ErrFull and nothing written", w.N, w.Err)
	}
}

// The first failure sticks, and a limit below the buffer is ErrLimit, checked first.
func TestWriterLimit(t *testing.T) {
	var b [16]byte
	w := Writer{B: b[:], Limit: 4}
	w.U16(1)
	w.U32(2) // past the limit
	w.U8(3)  // would fit: the failure sticks
	if w.Err != ErrLimit || w.N != 2 || b[2] != 0 {
		t.Fatalf("n %d err %d, b % x", w.N, w.Err, b)
	}
	w = Writer{B: b[:2], Limit: 100}
	w.U32(1)
	if w.Err != ErrFull {
		t.Fatalf("a buffer shorter than the limit: err %d, want ErrFull", w.Err)
	}
	w = Writer{B: b[:], Limit: 10}
	w.Bytes(make([]byte, 11))
	if w.Err != ErrLimit {
		t.Fatalf("a write past the limit and within the buffer: err %d, want ErrLimit", w.Err)
	}
}

func TestWriterNoAllocation(t *testing.T) {
	var b [64]byte
	if n := testing.AllocsPerRun(100, func() {
		w := Writer{B: b[:]}
		w.U64(1)
		w.CString("x")
		w.Align(8)
	}); n != 0 {
		t.Fatalf("%v allocations", n)
	}
}
