package wire

// Hello opens every connection (and every reconnect): it tells the host how
// to read everything after it.
type Hello struct {
	ProtoMajor    uint8 // ProtoMajor
	ProtoMinor    uint8 // ProtoMinor
	RecordVersion uint8 // record.Version
	Arch          Arch
	NCPU          uint16
	TickSource    TickSource
	RingMode      RingMode
	PageSize      uint32
	RingSize      uint64 // bytes per CPU
	TickHz        uint64 // ticks per second of TickSource
	RefTicks      uint64 // a reference reading of the tick counter...
	RefNs         uint64 // ...taken at this many ns since boot...
	RefUnixNs     int64  // ...and this wall-clock time (0 if unknown)
	TextStart     uint64 // run-time address of the image's text start
	DictHash      uint64 // hash of the DICT entries, to catch a mismatched dictionary
	BuildID       []byte // the image's GNU build id
	GoBuildID     string // the image's Go build id
	Accel         string // "tcg", "kvm" or "unknown"
}

// Arch is the guest architecture.
type Arch uint8

const (
	ArchUnknown Arch = 0
	ArchAMD64   Arch = 1
	ArchARM64   Arch = 2
)

func (a Arch) String() string {
	switch a {
	case ArchAMD64:
		return "amd64"
	case ArchARM64:
		return "arm64"
	}
	return "arch(" + itoa(uint64(a)) + ")"
}

// TickSource is the counter that record timestamps come from.
type TickSource uint8

const (
	TickUnknown TickSource = 0
	TickTSC     TickSource = 1 // amd64 time-stamp counter
	TickCNTVCT  TickSource = 2 // arm64 virtual counter
)

func (t TickSource) String() string {
	switch t {
	case TickTSC:
		return "tsc"
	case TickCNTVCT:
		return "cntvct"
	}
	return "ticks(" + itoa(uint64(t)) + ")"
}

// RingMode is what a full ring does.
type RingMode uint8

const (
	ModeUnknown RingMode = 0
	ModeStream  RingMode = 1 // drop new records, count them, write LOST
	ModeFlight  RingMode = 2 // overwrite the oldest records
)

func (m RingMode) String() string {
	switch m {
	case ModeStream:
		return "stream"
	case ModeFlight:
		return "flight"
	}
	return "mode(" + itoa(uint64(m)) + ")"
}

// FrameType implements Message.
func (*Hello) FrameType() Type { return TypeHello }

// AppendPayload implements Message.
func (h *Hello) AppendPayload(b []byte) ([]byte, error) {
	e := enc{b: b}
	e.u8(h.ProtoMajor)
	e.u8(h.ProtoMinor)
	e.u8(h.RecordVersion)
	e.u8(uint8(h.Arch))
	e.u16(h.NCPU)
	e.u8(uint8(h.TickSource))
	e.u8(uint8(h.RingMode))
	e.u32(h.PageSize)
	e.u32(0) // reserved, keeps the u64s 8-byte aligned
	e.u64(h.RingSize)
	e.u64(h.TickHz)
	e.u64(h.RefTicks)
	e.u64(h.RefNs)
	e.u64(uint64(h.RefUnixNs))
	e.u64(h.TextStart)
	e.u64(h.DictHash)
	e.bytes(h.BuildID)
	e.str(h.GoBuildID)
	e.str(h.Accel)
	return e.b, e.err
}

// Marshal returns the payload.
func (h *Hello) Marshal() ([]byte, error) { return h.AppendPayload(nil) }

// Unmarshal decodes a payload, ignoring bytes after the known fields.
func (h *Hello) Unmarshal(p []byte) error {
	d := dec{b: p}
	*h = Hello{
		ProtoMajor:    d.u8(),
		ProtoMinor:    d.u8(),
		RecordVersion: d.u8(),
		Arch:          Arch(d.u8()),
		NCPU:          d.u16(),
		TickSource:    TickSource(d.u8()),
		RingMode:      RingMode(d.u8()),
		PageSize:      d.u32(),
	}
	d.u32()
	h.RingSize = d.u64()
	h.TickHz = d.u64()
	h.RefTicks = d.u64()
	h.RefNs = d.u64()
	h.RefUnixNs = int64(d.u64())
	h.TextStart = d.u64()
	h.DictHash = d.u64()
	h.BuildID = d.bytes()
	h.GoBuildID = d.str()
	h.Accel = d.str()
	return d.err
}
