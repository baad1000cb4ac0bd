package wire

import (
	"encoding/binary"
	"errors"
)

// Payload codec: little-endian fixed-width integers, and byte strings as a
// u16 length followed by the bytes. Decoding stops at the first field that
// does not fit; fields after the ones a decoder knows are ignored, which is
// what lets payloads grow by appending.

// ErrShortPayload is returned by Unmarshal when a payload ends before the
// fields of its first version.
var ErrShortPayload = errors.New("payload shorter than its fields")

// ErrTooLong is returned by Marshal when a string or list does not fit its
// length field.
var ErrTooLong = errors.New("field too long for its length prefix")

const maxString = 1<<16 - 1

type enc struct {
	b   []byte
	err error
}

func (e *enc) u8(v uint8)   { e.b = append(e.b, v) }
func (e *enc) u16(v uint16) { e.b = binary.LittleEndian.AppendUint16(e.b, v) }
func (e *enc) u32(v uint32) { e.b = binary.LittleEndian.AppendUint32(e.b, v) }
func (e *enc) u64(v uint64) { e.b = binary.LittleEndian.AppendUint64(e.b, v) }

func (e *enc) bytes(v []byte) {
	if len(v) > maxString {
		e.err = ErrTooLong
		v = v[:0]
	}
	e.u16(uint16(len(v)))
	e.b = append(e.b, v...)
}

func (e *enc) str(v string) { e.bytes([]byte(v)) }

type dec struct {
	b   []byte
	err error
}

// take returns the next n bytes, or nil and sets err if fewer remain.
func (d *dec) take(n int) []byte {
	if d.err != nil || n > len(d.b) {
		d.err = ErrShortPayload
		return nil
	}
	v := d.b[:n]
	d.b = d.b[n:]
	return v
}

func (d *dec) u8() uint8 {
	if v := d.take(1); v != nil {
		return v[0]
	}
	return 0
}

func (d *dec) u16() uint16 {
	if v := d.take(2); v != nil {
		return binary.LittleEndian.Uint16(v)
	}
	return 0
}

func (d *dec) u32() uint32 {
	if v := d.take(4); v != nil {
		return binary.LittleEndian.Uint32(v)
	}
	return 0
}

func (d *dec) u64() uint64 {
	if v := d.take(8); v != nil {
		return binary.LittleEndian.Uint64(v)
	}
	return 0
}

func (d *dec) bytes() []byte {
	n := int(d.u16())
	if v := d.take(n); v != nil {
		return append([]byte(nil), v...)
	}
	return nil
}

func (d *dec) str() string { return string(d.bytes()) }
