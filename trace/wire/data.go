package wire

// DataHeaderSize is the size of the DATA payload header, before the records.
const DataHeaderSize = 8

// Data carries whole records copied from one CPU's ring, never split inside
// a record. FirstSeq is the seq of the first record (or the first dropped
// seq, if the first record is a LOST record).
type Data struct {
	CPU      uint16
	FirstSeq uint32
	Records  []byte // decode with record.NewDecoder; aliases the payload
}

// FrameType implements Message.
func (*Data) FrameType() Type { return TypeData }

// AppendPayload implements Message.
func (m *Data) AppendPayload(b []byte) ([]byte, error) {
	e := enc{b: b}
	e.u16(m.CPU)
	e.u16(0)
	e.u32(m.FirstSeq)
	e.b = append(e.b, m.Records...)
	return e.b, nil
}

// Marshal returns the payload.
func (m *Data) Marshal() ([]byte, error) { return m.AppendPayload(nil) }

// Unmarshal decodes a payload. Records aliases p.
func (m *Data) Unmarshal(p []byte) error {
	d := dec{b: p}
	m.CPU = d.u16()
	d.u16()
	m.FirstSeq = d.u32()
	m.Records = d.b
	if d.err != nil {
		m.Records = nil
	}
	return d.err
}

// Lost reports records that were in a ring but never reached the host: the
// drain discarded them (no host attached, or a transport error). Records in
// [FirstSeq, FirstSeq+Count) of CPU are gone; they count as lost in the
// seq accounting exactly like a LOST record.
type Lost struct {
	CPU      uint16
	Cause    LostCause
	FirstSeq uint32
	Count    uint64 // records
	Bytes    uint64
}

// LostCause says why the transport dropped records.
type LostCause uint16

const (
	LostNoHost    LostCause = 1 // no host had the port open
	LostTransport LostCause = 2 // writing to the port failed
	LostTooLarge  LostCause = 3 // a DATA frame could not be built
)

// FrameType implements Message.
func (*Lost) FrameType() Type { return TypeLost }

// AppendPayload implements Message.
func (m *Lost) AppendPayload(b []byte) ([]byte, error) {
	e := enc{b: b}
	e.u16(m.CPU)
	e.u16(uint16(m.Cause))
	e.u32(m.FirstSeq)
	e.u64(m.Count)
	e.u64(m.Bytes)
	return e.b, nil
}

// Marshal returns the payload.
func (m *Lost) Marshal() ([]byte, error) { return m.AppendPayload(nil) }

// Unmarshal decodes a payload, ignoring bytes after the known fields.
func (m *Lost) Unmarshal(p []byte) error {
	d := dec{b: p}
	*m = Lost{CPU: d.u16(), Cause: LostCause(d.u16()), FirstSeq: d.u32(), Count: d.u64(), Bytes: d.u64()}
	return d.err
}

// Clock is a (ticks, ns since boot, wall clock) reference taken on one CPU,
// sent periodically so the host can correct drift and per-CPU skew.
type Clock struct {
	CPU    uint16
	Ticks  uint64
	Ns     uint64 // since boot
	UnixNs int64  // 0 if unknown
}

// FrameType implements Message.
func (*Clock) FrameType() Type { return TypeClock }

// AppendPayload implements Message.
func (m *Clock) AppendPayload(b []byte) ([]byte, error) {
	e := enc{b: b}
	e.u16(m.CPU)
	e.u16(0)
	e.u32(0)
	e.u64(m.Ticks)
	e.u64(m.Ns)
	e.u64(uint64(m.UnixNs))
	return e.b, nil
}

// Marshal returns the payload.
func (m *Clock) Marshal() ([]byte, error) { return m.AppendPayload(nil) }

// Unmarshal decodes a payload, ignoring bytes after the known fields.
func (m *Clock) Unmarshal(p []byte) error {
	d := dec{b: p}
	m.CPU = d.u16()
	d.u16()
	d.u32()
	m.Ticks = d.u64()
	m.Ns = d.u64()
	m.UnixNs = int64(d.u64())
	return d.err
}

// End is the last frame of a session.
type End struct {
	Reason  EndReason
	Status  int32  // exit status, for EndExit
	Ticks   uint64 // when the guest sent it
	Message string // panic message, for EndPanic
}

// EndReason says why the session ended.
type EndReason uint8

const (
	EndStop     EndReason = 1 // the host sent stop
	EndShutdown EndReason = 2 // the guest is shutting down
	EndExit     EndReason = 3 // the program exited with Status
	EndPanic    EndReason = 4 // the kernel or program panicked
)

func (r EndReason) String() string {
	switch r {
	case EndStop:
		return "stop"
	case EndShutdown:
		return "shutdown"
	case EndExit:
		return "exit"
	case EndPanic:
		return "panic"
	}
	return "reason(" + itoa(uint64(r)) + ")"
}

// FrameType implements Message.
func (*End) FrameType() Type { return TypeEnd }

// AppendPayload implements Message.
func (m *End) AppendPayload(b []byte) ([]byte, error) {
	e := enc{b: b}
	e.u8(uint8(m.Reason))
	e.u8(0)
	e.u16(0)
	e.u32(uint32(m.Status))
	e.u64(m.Ticks)
	e.str(m.Message)
	return e.b, e.err
}

// Marshal returns the payload.
func (m *End) Marshal() ([]byte, error) { return m.AppendPayload(nil) }

// Unmarshal decodes a payload, ignoring bytes after the known fields.
func (m *End) Unmarshal(p []byte) error {
	d := dec{b: p}
	m.Reason = EndReason(d.u8())
	d.u8()
	d.u16()
	m.Status = int32(d.u32())
	m.Ticks = d.u64()
	m.Message = d.str()
	return d.err
}
