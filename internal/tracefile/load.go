package tracefile

import (
	"io"
	"os"
	"slices"

	"github.com/unitrace/unitrace/trace/record"
	"github.com/unitrace/unitrace/trace/wire"
)

// Trace is a whole recording in memory.
type Trace struct {
	Host    *Host
	Hello   *wire.Hello // the last HELLO
	Dict    *Dict       // the last complete DICT
	Clock   Clock       // every reference pair in the recording
	Records []Rec       // in stream order; Merged sorts them by time
	Lost    []*wire.Lost
	Stats   []*wire.Stats
	Clocks  []*wire.Clock // CLOCK frames
	End     *wire.End
	Control []*wire.JSON
	Errors  []Problem
	Account *Accounting
	Counts  Counts
}

// Rec is one record with its time.
type Rec struct {
	record.Record
	Ns int64 // ns since boot
}

// Problem is an error found in the recording, at an offset.
type Problem struct {
	Offset int64
	Err    error
}

// Load reads a whole recording from r. The only error it returns is the
// underlying reader's; problems in the recording are in Trace.Errors. Record
// times are converted with every clock pair in the recording, so a record
// benefits from a CLOCK pair that came after it.
func Load(r io.Reader) (*Trace, error) {
	rd := NewReader(r)
	t := &Trace{}
	for {
		ev, err := rd.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, err
		}
		switch ev.Kind {
		case KindRecord:
			t.Records = append(t.Records, Rec{Record: ev.Record})
		case KindLost:
			t.Lost = append(t.Lost, ev.Msg.(*wire.Lost))
		case KindStats:
			t.Stats = append(t.Stats, ev.Msg.(*wire.Stats))
		case KindClock:
			t.Clocks = append(t.Clocks, ev.Msg.(*wire.Clock))
		case KindEnd:
			t.End = ev.Msg.(*wire.End)
		case KindControl:
			t.Control = append(t.Control, ev.Msg.(*wire.JSON))
		case KindError:
			t.Errors = append(t.Errors, Problem{ev.Offset, ev.Err})
		}
	}
	t.Host, t.Hello, t.Dict, t.Clock, t.Account, t.Counts = rd.Host, rd.Hello, rd.Dict, rd.Clock, &rd.Account, rd.Counts
	for i := range t.Records {
		t.Records[i].Ns = t.Clock.Ns(t.Records[i].TS)
	}
	return t, nil
}

// LoadFile reads the recording in the named file.
func LoadFile(name string) (*Trace, error) {
	f, err := os.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return Load(f)
}

// Merged returns the records of all CPUs in time order; records with the
// same time keep their CPU's seq order (the sort is stable and each CPU's
// records arrive in seq order).
func (t *Trace) Merged() []Rec {
	out := slices.Clone(t.Records)
	slices.SortStableFunc(out, func(a, b Rec) int {
		switch {
		case a.Ns < b.Ns:
			return -1
		case a.Ns > b.Ns:
			return 1
		}
		return int(a.CPU) - int(b.CPU)
	})
	return out
}

// Name returns the tracepoint name of a record.
func (t *Trace) Name(r *record.Record) string { return t.Dict.Name(r.TPID) }

// Args returns a record's formatted arguments.
func (t *Trace) Args(r *record.Record) string { return t.Dict.FormatArgs(r) }
