package ring

// Record layout, as trace/record defines it (24-byte header: size u16, tpid
// u16, flags u8, nframes u8, cpu u16, ts u64, tid u32, seq u32). These are
// local copies so this package does not depend on trace/record while both
// are written; they are to be switched to trace/record's constants.
const (
	HeaderSize = 24

	offSize  = 0
	offTpid  = 2
	offCPU   = 6
	offTS    = 8
	offTid   = 16
	offSeq   = 20
	offArgs  = HeaderSize
	tpidPad  = 0
	tpidLost = 1

	// LostSize is a LOST record: the header (seq = first dropped seq) and
	// the args {count, first_ts, last_ts, causes}.
	LostSize = HeaderSize + 4*8
)

// Size limits. MaxRecord keeps a PAD's length (always less than the record
// it precedes) inside the u16 size field and lets the largest reservation
// (PAD + LOST + PAD + record) fit in the smallest ring several times over.
const (
	MaxRecord   = 4096
	MinSize     = 16 << 10
	MaxSize     = 1 << 30
	DefaultSize = 1 << 20
)

// Mode is how a full ring behaves.
type Mode uint8

const (
	// Stream drops new records when the ring is full (the consumer drains it).
	Stream Mode = iota
	// Flight overwrites the oldest records (a flight recorder, read by Snapshot).
	Flight
)

// Cause says why a record was dropped. A LOST record's causes argument is a
// bit set with bit c set for each cause c in its range.
type Cause uint8

const (
	CauseFull    Cause = iota // streaming ring full
	CauseNested               // re-entrant emit, reported by the kernel through Drop
	CauseEarly                // emit before the ring existed (zero Ring)
	CauseInvalid              // Reserve with a bad size
	CauseAborted              // reserved but never committed (Abort, or Reserve again)
	NumCauses
)

// validRecordSize reports whether n can be reserved.
func validRecordSize(n uint32) bool {
	return n >= HeaderSize && n <= MaxRecord && n%8 == 0
}
