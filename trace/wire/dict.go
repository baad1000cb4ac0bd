package wire

import (
	"encoding/binary"
	"hash/fnv"

	"github.com/unitrace/unitrace/trace/record"
)

// Dict is the tracepoint table. A long table may be split over several DICT
// frames, each holding whole entries; all but the last carry FlagMore.
type Dict struct {
	Entries []DictEntry
}

// DictEntry describes one tracepoint.
type DictEntry struct {
	ID     record.TPID
	Flags  PointFlags
	Name   string
	Format string
	Kinds  []record.Kind // one per argument; a KStr argument takes record.StrSlots slots
}

// PointFlags are a tracepoint's state when the DICT was sent.
type PointFlags uint16

const (
	PointEnabled            PointFlags = 1 << 0
	PointBacktrace          PointFlags = 1 << 1 // walk the call path that reached the tracepoint
	PointInterruptBacktrace PointFlags = 1 << 2 // walk the interrupted thread (sampler only)
)

// Payload: count u32, then each entry as len u16 (bytes after this field),
// id u16, flags u16, nkinds u8, kinds [nkinds]u8, name str, format str.
// The entry length lets later versions append per-entry fields.

// FrameType implements Message.
func (*Dict) FrameType() Type { return TypeDict }

// AppendPayload implements Message.
func (t *Dict) AppendPayload(b []byte) ([]byte, error) {
	e := enc{b: b}
	e.u32(uint32(len(t.Entries)))
	for i := range t.Entries {
		en := &t.Entries[i]
		if len(en.Kinds) > 255 {
			return e.b, ErrTooLong
		}
		lenAt := len(e.b)
		e.u16(0)
		e.u16(uint16(en.ID))
		e.u16(uint16(en.Flags))
		e.u8(uint8(len(en.Kinds)))
		for _, k := range en.Kinds {
			e.u8(uint8(k))
		}
		e.str(en.Name)
		e.str(en.Format)
		n := len(e.b) - lenAt - 2
		if n > maxString {
			return e.b, ErrTooLong
		}
		binary.LittleEndian.PutUint16(e.b[lenAt:], uint16(n))
	}
	return e.b, e.err
}

// Marshal returns the payload.
func (t *Dict) Marshal() ([]byte, error) { return t.AppendPayload(nil) }

// Unmarshal decodes a payload, ignoring unknown per-entry and trailing bytes.
func (t *Dict) Unmarshal(p []byte) error {
	d := dec{b: p}
	n := d.u32()
	t.Entries = nil
	for i := uint32(0); i < n && d.err == nil; i++ {
		body := d.take(int(d.u16()))
		if d.err != nil {
			break
		}
		ed := dec{b: body}
		en := DictEntry{ID: record.TPID(ed.u16()), Flags: PointFlags(ed.u16())}
		if k := ed.take(int(ed.u8())); k != nil {
			en.Kinds = make([]record.Kind, len(k))
			for j, v := range k {
				en.Kinds[j] = record.Kind(v)
			}
		}
		en.Name = ed.str()
		en.Format = ed.str()
		if ed.err != nil {
			return ed.err
		}
		t.Entries = append(t.Entries, en)
	}
	return d.err
}

// Hash returns the dictionary hash that HELLO carries: FNV-1a over the
// entries' id, name, format and kinds (not their flags, which change at run
// time), in order.
func (t *Dict) Hash() uint64 {
	h := fnv.New64a()
	var b [2]byte
	for _, en := range t.Entries {
		binary.LittleEndian.PutUint16(b[:], uint16(en.ID))
		h.Write(b[:])
		h.Write([]byte(en.Name))
		h.Write([]byte{0})
		h.Write([]byte(en.Format))
		h.Write([]byte{0})
		h.Write([]byte{byte(len(en.Kinds))})
		for _, k := range en.Kinds {
			h.Write([]byte{byte(k)})
		}
	}
	return h.Sum64()
}
