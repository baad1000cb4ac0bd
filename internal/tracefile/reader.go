package tracefile

import (
	"errors"
	"fmt"
	"io"

	"github.com/unitrace/unitrace/trace/record"
	"github.com/unitrace/unitrace/trace/wire"
)

// Kind says what an Event holds.
type Kind uint8

const (
	KindHost    Kind = iota + 1 // Host
	KindHello                   // Msg is *wire.Hello
	KindDict                    // Msg is *wire.Dict (a whole table, fragments joined)
	KindRecord                  // Record, Ns
	KindLost                    // Msg is *wire.Lost: records the transport dropped
	KindStats                   // Msg is *wire.Stats
	KindClock                   // Msg is *wire.Clock
	KindEnd                     // Msg is *wire.End
	KindControl                 // Msg is *wire.JSON: a CMD, RESP or EVENT frame
	KindUnknown                 // Msg is *wire.Unknown: a frame type this version does not know
	KindError                   // Err: a transport, payload or record error; reading goes on
)

// Event is one thing read from a recording.
type Event struct {
	Kind   Kind
	Offset int64 // of the frame (or record) in the stream
	Msg    wire.Message
	Host   *Host
	Record record.Record
	Ns     int64 // KindRecord: ns since boot, from the clock known so far
	Err    error
}

// Reader reads a recording event by event. It keeps the session state the
// events need (the latest HELLO and DICT, the clock) and accounts every
// record's seq.
type Reader struct {
	fr      *wire.Reader
	Host    *Host
	Hello   *wire.Hello
	Dict    *Dict
	Clock   Clock
	Account Accounting
	Counts  Counts

	partial []wire.DictEntry // DICT fragments so far
	inDict  bool
	queue   []Event // records of the current DATA frame, then its errors
}

// Counts are running totals over what a Reader has read.
type Counts struct {
	Frames       uint64
	Bytes        int64  // input consumed
	Records      uint64 // records, LOST records included
	Lost         uint64 // Σ count of LOST records and LOST frames
	FrameErrors  uint64 // CRC, magic, version, length and truncation errors
	SkippedBytes int64  // bytes the frame errors covered
	OtherErrors  uint64 // payload and record errors, protocol problems
}

// NewReader reads a recording from r.
func NewReader(r io.Reader) *Reader { return &Reader{fr: wire.NewReader(r)} }

// ErrProto is the cause of an Event error for a HELLO whose protocol or
// record version this reader does not know.
var ErrProto = errors.New("unsupported protocol version")

// Next returns the next event, or io.EOF at the end of the input. Any other
// error is the underlying reader's (a closed socket); problems inside the
// recording are events of KindError, after which Next carries on.
func (r *Reader) Next() (Event, error) {
	for {
		if len(r.queue) > 0 {
			ev := r.queue[0]
			r.queue = r.queue[1:]
			return ev, nil
		}
		f, err := r.fr.Next()
		r.Counts.Bytes = r.fr.Offset()
		if err != nil {
			var fe *wire.FrameError
			if errors.As(err, &fe) {
				r.Counts.FrameErrors++
				r.Counts.SkippedBytes += fe.Skipped
				return Event{Kind: KindError, Offset: fe.Offset, Err: fe}, nil
			}
			return Event{}, err
		}
		r.Counts.Frames++
		if ev, ok := r.frame(f); ok {
			return ev, nil
		}
	}
}

func (r *Reader) errorEvent(off int64, err error) Event {
	r.Counts.OtherErrors++
	return Event{Kind: KindError, Offset: off, Err: err}
}

// frame turns a frame into an event (or queues its records); ok is false
// when there is nothing to return yet.
func (r *Reader) frame(f *wire.Frame) (Event, bool) {
	if f.Type == TypeHost {
		h, err := ParseHost(f.Payload)
		if err != nil {
			return r.errorEvent(f.Offset, fmt.Errorf("offset %d: %w", f.Offset, err)), true
		}
		r.Host = h
		return Event{Kind: KindHost, Offset: f.Offset, Host: h}, true
	}
	m, err := wire.Decode(f)
	if err != nil {
		return r.errorEvent(f.Offset, err), true
	}
	ev := Event{Offset: f.Offset, Msg: m}
	switch m := m.(type) {
	case *wire.Hello:
		r.Hello = m
		r.Clock.SetRate(m.TickHz)
		r.Clock.Add(m.RefTicks, m.RefNs)
		if m.ProtoMajor != wire.ProtoMajor || m.RecordVersion != record.Version {
			r.queue = append(r.queue, r.errorEvent(f.Offset, fmt.Errorf("offset %d: HELLO protocol %d.%d, record version %d: %w",
				f.Offset, m.ProtoMajor, m.ProtoMinor, m.RecordVersion, ErrProto)))
		}
		ev.Kind = KindHello
	case *wire.Dict:
		if !r.inDict {
			r.partial = nil
		}
		r.partial = append(r.partial, m.Entries...)
		r.inDict = f.Flags&wire.FlagMore != 0
		if r.inDict {
			return Event{}, false
		}
		whole := &wire.Dict{Entries: r.partial}
		r.Dict = NewDict(r.partial)
		ev.Msg, ev.Kind = whole, KindDict
		if r.Hello != nil && r.Hello.DictHash != 0 && whole.Hash() != r.Hello.DictHash {
			r.queue = append(r.queue, r.errorEvent(f.Offset, fmt.Errorf("offset %d: DICT hash %#x does not match HELLO's %#x",
				f.Offset, whole.Hash(), r.Hello.DictHash)))
		}
	case *wire.Data:
		r.data(f, m)
		return Event{}, false
	case *wire.Lost:
		r.Counts.Lost += m.Count
		if !r.Account.Lost(m.CPU, m.FirstSeq, m.Count, true) {
			r.queue = append(r.queue, r.errorEvent(f.Offset, fmt.Errorf("offset %d: LOST frame cpu %d seq %d+%d overlaps records already accounted",
				f.Offset, m.CPU, m.FirstSeq, m.Count)))
		}
		ev.Kind = KindLost
	case *wire.Stats:
		ev.Kind = KindStats
	case *wire.Clock:
		r.Clock.Add(m.Ticks, m.Ns)
		ev.Kind = KindClock
	case *wire.End:
		ev.Kind = KindEnd
	case *wire.JSON:
		ev.Kind = KindControl
	default:
		ev.Kind = KindUnknown
	}
	return ev, true
}

// data queues the records of a DATA frame, and their errors.
func (r *Reader) data(f *wire.Frame, m *wire.Data) {
	base := f.Offset + wire.HeaderSize + wire.DataHeaderSize
	dec := record.NewDecoder(m.Records, base)
	first := true
	for {
		rec, err := dec.Next()
		if err == io.EOF {
			return
		}
		if err != nil {
			r.queue = append(r.queue, r.errorEvent(base, fmt.Errorf("DATA frame at offset %d: %w", f.Offset, err)))
			return
		}
		if first && rec.Seq != m.FirstSeq {
			r.queue = append(r.queue, r.errorEvent(rec.Offset, fmt.Errorf("DATA frame at offset %d: first record seq %d, frame says %d",
				f.Offset, rec.Seq, m.FirstSeq)))
		}
		first = false
		if rec.CPU != m.CPU {
			r.queue = append(r.queue, r.errorEvent(rec.Offset, fmt.Errorf("record at offset %d: cpu %d in a DATA frame of cpu %d",
				rec.Offset, rec.CPU, m.CPU)))
		}
		r.Counts.Records++
		ok := true
		if l, isLost := rec.Lost(); isLost {
			r.Counts.Lost += l.Count
			ok = r.Account.Lost(rec.CPU, l.FirstSeq, l.Count, false)
		} else {
			if ticks, ns, isClock := rec.Clock(); isClock {
				r.Clock.Add(ticks, ns)
			}
			ok = r.Account.Received(rec.CPU, rec.Seq)
		}
		if !ok {
			r.queue = append(r.queue, r.errorEvent(rec.Offset, fmt.Errorf("record at offset %d: cpu %d seq %d was already accounted",
				rec.Offset, rec.CPU, rec.Seq)))
		}
		r.queue = append(r.queue, Event{Kind: KindRecord, Offset: rec.Offset, Record: rec, Ns: r.Clock.Ns(rec.TS)})
	}
}
