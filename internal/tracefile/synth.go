package tracefile

import (
	"github.com/unitrace/unitrace/trace/record"
	"github.com/unitrace/unitrace/trace/wire"
)

// Synth builds recordings for tests (here and in the tools that read
// recordings): frames are appended in the order the methods are called,
// numbered like one port's writer.
type Synth struct {
	b   []byte
	seq uint32
	err error
}

// Bytes returns the recording so far, or the first encoding error.
func (s *Synth) Bytes() ([]byte, error) { return s.b, s.err }

// Host appends a HOST frame.
func (s *Synth) Host(h *Host) *Synth {
	b, err := AppendHostFrame(s.b, h)
	s.b = b
	s.keep(err)
	return s
}

// Message appends one frame holding m.
func (s *Synth) Message(m wire.Message) *Synth {
	return s.MessageFlags(m, 0)
}

// MessageFlags appends one frame holding m, with frame flags.
func (s *Synth) MessageFlags(m wire.Message, flags uint16) *Synth {
	p, err := m.AppendPayload(nil)
	s.keep(err)
	s.b = wire.AppendFrame(s.b, m.FrameType(), flags, s.seq, p)
	s.seq++
	return s
}

// Raw appends bytes as they are (corruption, garbage).
func (s *Synth) Raw(b []byte) *Synth {
	s.b = append(s.b, b...)
	return s
}

// Data appends a DATA frame of cpu holding recs, encoded with EncodeRecord.
func (s *Synth) Data(cpu uint16, recs ...SynthRecord) *Synth {
	var body []byte
	first := uint32(0)
	for i, r := range recs {
		r.CPU = cpu
		if i == 0 {
			first = r.Seq
			if r.Lost != nil {
				first = r.Lost.FirstSeq
			}
		}
		body = append(body, r.Encode()...)
	}
	return s.Message(&wire.Data{CPU: cpu, FirstSeq: first, Records: body})
}

func (s *Synth) keep(err error) {
	if s.err == nil {
		s.err = err
	}
}

// SynthRecord describes one record for Synth.Data.
type SynthRecord struct {
	TPID  record.TPID
	Flags record.Flags
	CPU   uint16
	TS    uint64
	TID   uint32
	Seq   uint32
	Args  []uint64
	Stack []uint64
	Lost  *record.Lost // makes a LOST record
}

// Encode returns the record's bytes.
func (r SynthRecord) Encode() []byte {
	h := record.Header{CPU: r.CPU, TS: r.TS, TID: r.TID, Seq: r.Seq, Flags: r.Flags}
	if r.Lost != nil {
		b := make([]byte, record.Size(record.LostArgs, 0))
		record.EncodeLost(b, h, *r.Lost)
		return b
	}
	n := record.Size(len(r.Args), len(r.Stack))
	b := make([]byte, n)
	h.Size, h.TPID, h.NFrames = uint16(n), r.TPID, uint8(len(r.Stack))
	if len(r.Stack) > 0 {
		h.Flags |= record.HasStack
	}
	record.PutHeader(b, h)
	for i, v := range r.Args {
		record.PutArg(b, i, v)
	}
	for j, pc := range r.Stack {
		record.PutFrame(b, j, pc)
	}
	return b
}

// StrArg packs s into record.StrSlots argument slots, as the guest does.
func StrArg(s string) []uint64 {
	var a [record.StrSlots]uint64
	for i := 0; i < len(s) && i < record.StrBytes; i++ {
		a[i/record.SlotSize] |= uint64(s[i]) << (8 * (i % record.SlotSize))
	}
	return a[:]
}
