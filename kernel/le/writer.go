// Package le writes little-endian fields into a bounded buffer, for the kernel's binary formats
// (the vDSO's ELF image, 9P's messages): every write checks its room first, and the first one
// that does not fit sticks, so that an encoder checks once, at the end. Kernel-mode Go: no
// allocation, the caller's buffer only.
package le

import "encoding/binary"

// Err is why a write did not fit: OK while every write has.
type Err uint8

const (
	OK       Err = iota
	ErrFull      // past the end of the buffer
	ErrLimit     // past Limit, a protocol's bound on what it writes
)

// Writer appends fields to B from offset N. A write that does not fit sets Err and writes
// nothing; so does every write after it.
type Writer struct {
	B     []byte
	N     int
	Limit int // the most bytes from B's start that may be written, 0 for B's length alone
	Err   Err
}

// Room reports whether n more bytes fit, setting Err if they do not: the limit is checked
// before the buffer, so that a message too long for its protocol is ErrLimit whatever the
// buffer.
func (w *Writer) Room(n int) bool {
	switch {
	case w.Err != OK:
		return false
	case n < 0, w.Limit != 0 && uint64(w.N)+uint64(n) > uint64(w.Limit):
		w.Err = ErrLimit
		return false
	case len(w.B)-w.N < n:
		w.Err = ErrFull
		return false
	}
	return true
}

func (w *Writer) U8(v uint8) {
	if w.Room(1) {
		w.B[w.N] = v
		w.N++
	}
}

func (w *Writer) U16(v uint16) {
	if w.Room(2) {
		binary.LittleEndian.PutUint16(w.B[w.N:], v)
		w.N += 2
	}
}

func (w *Writer) U32(v uint32) {
	if w.Room(4) {
		binary.LittleEndian.PutUint32(w.B[w.N:], v)
		w.N += 4
	}
}

func (w *Writer) U64(v uint64) {
	if w.Room(8) {
		binary.LittleEndian.PutUint64(w.B[w.N:], v)
		w.N += 8
	}
}

// Bytes appends p as it is.
func (w *Writer) Bytes(p []byte) {
	if w.Room(len(p)) {
		w.N += copy(w.B[w.N:], p)
	}
}

// CString appends s and a NUL.
func (w *Writer) CString(s string) {
	if w.Room(len(s) + 1) {
		w.N += copy(w.B[w.N:], s)
		w.B[w.N] = 0
		w.N++
	}
}

// Align appends zero bytes up to a multiple of n.
func (w *Writer) Align(n int) {
	for w.N%n != 0 && w.Err == OK {
		w.U8(0)
	}
}
