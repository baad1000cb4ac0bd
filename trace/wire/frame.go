// Package wire defines the framing that carries trace data from the guest to
// the host, and the payload of every frame type. A recorded trace file is the
// frames exactly as they came off the wire, concatenated, so the same Reader
// serves a live socket and a file.
//
// Frame header (24 bytes, little-endian):
//
//	off  size  field
//	0    4     magic "UTRC"
//	4    1     version (1)
//	5    1     type (see Type)
//	6    2     flags (bit 0: more fragments follow)
//	8    4     payload length (<= MaxPayload)
//	12   4     per-port frame sequence number
//	16   4     CRC32C (Castagnoli) over bytes 0-15 and the payload
//	20   4     reserved (0)
//
// docs/trace-format.md is the full specification.
package wire

import (
	"encoding/binary"

	"github.com/unitrace/unitrace/decimal"
)

// Frame header layout and limits.
const (
	Magic      = "UTRC"
	Version    = 1
	HeaderSize = 24
	MaxPayload = 1 << 20

	offVersion  = 4
	offType     = 5
	offFlags    = 6
	offLength   = 8
	offSeq      = 12
	offCRC      = 16
	offReserved = 20
	crcCovered  = 16 // header bytes covered by the CRC
)

// Protocol version carried in HELLO. A host rejects a HELLO whose major it
// does not know; minor versions only append fields or frame types.
const (
	ProtoMajor = 1
	ProtoMinor = 1
)

// Type is a frame type. Readers skip types they do not know by length.
type Type uint8

const (
	TypeHello Type = 1
	TypeDict  Type = 2
	TypeData  Type = 3
	TypeLost  Type = 4
	TypeStats Type = 5
	TypeClock Type = 6
	TypeEnd   Type = 7
	TypeCmd   Type = 16
	TypeResp  Type = 17
	TypeEvent Type = 18
)

var typeNames = map[Type]string{
	TypeHello: "HELLO", TypeDict: "DICT", TypeData: "DATA", TypeLost: "LOST", TypeStats: "STATS",
	TypeClock: "CLOCK", TypeEnd: "END", TypeCmd: "CMD", TypeResp: "RESP", TypeEvent: "EVENT",
}

func (t Type) String() string {
	if s, ok := typeNames[t]; ok {
		return s
	}
	return "TYPE(" + itoa(uint64(t)) + ")"
}

// Flag bits of the frame header. Readers ignore bits they do not know.
const (
	FlagMore uint16 = 1 << 0 // the payload continues in the next frame of the same type
)

// Header is a decoded frame header.
type Header struct {
	Type     Type
	Flags    uint16
	Length   uint32 // payload bytes
	Seq      uint32 // per-port frame sequence number
	CRC      uint32
	Reserved uint32
}

// Checksum returns the CRC32C of the first 16 header bytes and the payload.
func Checksum(hdr []byte, payload []byte) uint32 {
	return crc32c(crc32c(0, hdr[:crcCovered]), payload)
}

// AppendFrame appends a whole frame (header with CRC, then payload) to b.
// It does not check the payload length; Writer does.
func AppendFrame(b []byte, typ Type, flags uint16, seq uint32, payload []byte) []byte {
	start := len(b)
	b = append(b, Magic...)
	b = append(b, Version, byte(typ))
	b = binary.LittleEndian.AppendUint16(b, flags)
	b = binary.LittleEndian.AppendUint32(b, uint32(len(payload)))
	b = binary.LittleEndian.AppendUint32(b, seq)
	hdr := b[start:]
	b = binary.LittleEndian.AppendUint32(b, Checksum(hdr, payload))
	b = binary.LittleEndian.AppendUint32(b, 0)
	return append(b, payload...)
}

// parseHeader decodes a header whose magic the caller has already matched.
func parseHeader(b []byte) Header {
	return Header{
		Type:     Type(b[offType]),
		Flags:    binary.LittleEndian.Uint16(b[offFlags:]),
		Length:   binary.LittleEndian.Uint32(b[offLength:]),
		Seq:      binary.LittleEndian.Uint32(b[offSeq:]),
		CRC:      binary.LittleEndian.Uint32(b[offCRC:]),
		Reserved: binary.LittleEndian.Uint32(b[offReserved:]),
	}
}

func itoa(v uint64) string {
	var d decimal.Digits
	return string(d.Uint(v))
}
