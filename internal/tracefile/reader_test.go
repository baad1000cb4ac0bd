package tracefile

import (
	"bytes"
	"errors"
	"io"
	"strings"
	"testing"

	"github.com/unitrace/unitrace/trace/record"
	"github.com/unitrace/unitrace/trace/wire"
)

func TestLoadExample(t *testing.T) {
	tr, err := Load(bytes.NewReader(exampleRecording(t)))
	if err != nil {
		t.Fatal(err)
	}
	if len(tr.Errors) != 0 {
		t.Fatalf("errors: %v", tr.Errors)
	}
	if tr.Host == nil || tr.Host.Image != "/nonexistent/hello.elf" || tr.Hello == nil || tr.Hello.NCPU != 2 {
		t.Fatalf("host %+v hello %+v", tr.Host, tr.Hello)
	}
	if tr.Dict == nil || len(tr.Dict.Entries) != 4 || tr.Dict.Name(tpSwitch) != "sched_switch" {
		t.Fatalf("dict %+v", tr.Dict)
	}
	if len(tr.Records) != 14 || tr.Counts.Records != 14 || tr.Counts.Lost != 5 {
		t.Errorf("%d records, counts %+v", len(tr.Records), tr.Counts)
	}
	if tr.End == nil || tr.End.Reason != wire.EndExit || len(tr.Lost) != 1 || len(tr.Stats) != 1 || len(tr.Clocks) != 1 || len(tr.Control) != 1 {
		t.Errorf("end %+v lost %v stats %v clocks %v control %v", tr.End, tr.Lost, tr.Stats, tr.Clocks, tr.Control)
	}
	acct := tr.Account.CPUs()
	want := []CPUAccount{
		{CPU: 0, Produced: 9, Received: 6, LostRecords: 3},
		{CPU: 1, Produced: 11, Received: 7, LostFrames: 2, Missing: 2, Gaps: []Gap{{7, 9}}},
	}
	for i := range want {
		if i >= len(acct) || !equalAccount(acct[i], want[i]) {
			t.Errorf("account %d: got %+v, want %+v", i, acct, want[i])
		}
	}
	// Times: ns 0 is tick 1000 at 1 GHz until the CLOCK record at tick 3600
	// (ns 2600, same rate), then the CLOCK frame says tick 6000 is ns 5000.
	merged := tr.Merged()
	var last int64 = -1 << 63
	for _, r := range merged {
		if r.Ns < last {
			t.Fatalf("not merged by time: %d after %d", r.Ns, last)
		}
		last = r.Ns
	}
	if merged[0].Ns != 100 || merged[1].CPU != 1 || merged[1].Ns != 500 {
		t.Errorf("first records: %+v %+v", merged[0].Header, merged[1].Header)
	}
}

func TestFormatArgs(t *testing.T) {
	d := NewDict(exampleDict.Entries)
	tests := []struct {
		rec  SynthRecord
		name string
		want string
	}{
		{SynthRecord{TPID: tpSysEnter, Args: []uint64{39, 0xc000}}, "syscall_enter", "nr=39 a0=0xc000"},
		{SynthRecord{TPID: tpSysExit, Args: []uint64{39, ^uint64(0)}}, "syscall_exit", "nr=39 res=-1"},
		{SynthRecord{TPID: tpSysExit, Args: []uint64{39}}, "syscall_exit", "nr=39 res=<missing>"},
		{SynthRecord{TPID: tpSysExit, Args: []uint64{39, 1, 7}}, "syscall_exit", "nr=39 res=1 extra=[0x7]"},
		{SynthRecord{TPID: tpSwitch, Args: []uint64{2, 1, 1500}}, "sched_switch", "to=2 idle=true wait=1.5µs"},
		{SynthRecord{TPID: tpSwitch, Args: []uint64{2, 5, 0}}, "sched_switch", "to=2 idle=bool(5) wait=0s"},
		{SynthRecord{TPID: tpName, Args: StrArg("a-very-long-thread-name-cut")}, "thread_name", `name="a-very-long-thread-name-"`},
		{SynthRecord{TPID: 99, Args: []uint64{1, 0xff}}, "tp99", "[0x1 0xff]"},
		{SynthRecord{Lost: &record.Lost{FirstSeq: 4, Count: 3, Causes: record.CauseNested | 1<<9}}, "lost", "first_seq=4 count=3 causes=nested|0x200"},
		{SynthRecord{TPID: record.TPClock, Args: []uint64{5, 6}}, "clock", "ticks=5 ns=6"},
		{SynthRecord{TPID: record.TPThrottle, Args: []uint64{5, 6}}, "throttle", "old_hz=5 new_hz=6"},
	}
	for _, tt := range tests {
		r, err := record.NewDecoder(tt.rec.Encode(), 0).Next()
		if err != nil {
			t.Fatal(err)
		}
		if got := d.Name(r.TPID); got != tt.name {
			t.Errorf("name %q, want %q", got, tt.name)
		}
		if got := d.FormatArgs(&r); got != tt.want {
			t.Errorf("%s: %q, want %q", tt.name, got, tt.want)
		}
	}
	odd := NewDict([]wire.DictEntry{{ID: 20, Name: "odd", Format: "100%% of %d, then %d and %", Kinds: []record.Kind{record.KU64, 42}}})
	r, _ := record.NewDecoder(SynthRecord{TPID: 20, Args: []uint64{1, 2}}.Encode(), 0).Next()
	if got, want := odd.FormatArgs(&r), "100% of 1, then 2 and %"; got != want {
		t.Errorf("odd format: %q, want %q", got, want)
	}
}

func TestCorruptAndTruncated(t *testing.T) {
	good := exampleRecording(t)
	frames := frameOffsets(t, good)
	// Flip a payload byte of the first DATA frame (the fifth frame).
	bad := bytes.Clone(good)
	bad[frames[4]+wire.HeaderSize+10] ^= 0xff
	tr, err := Load(bytes.NewReader(bad))
	if err != nil {
		t.Fatal(err)
	}
	if len(tr.Errors) != 1 || !errors.Is(tr.Errors[0].Err, wire.ErrBadCRC) || tr.Errors[0].Offset != frames[4] {
		t.Fatalf("errors %v, want one CRC error at %d", tr.Errors, frames[4])
	}
	if len(tr.Records) != 7 || tr.End == nil {
		t.Errorf("after resync: %d records, end %v", len(tr.Records), tr.End)
	}
	if !strings.Contains(tr.Errors[0].Err.Error(), "offset") {
		t.Errorf("error does not name the offset: %v", tr.Errors[0].Err)
	}
	// Cut the file in the middle of the last frame.
	cut := good[:len(good)-5]
	tr, err = Load(bytes.NewReader(cut))
	if err != nil {
		t.Fatal(err)
	}
	last := frames[len(frames)-1]
	if len(tr.Errors) != 1 || !errors.Is(tr.Errors[0].Err, wire.ErrTruncated) || tr.Errors[0].Offset != last || tr.End != nil {
		t.Fatalf("truncated: errors %v end %v", tr.Errors, tr.End)
	}
	// Garbage between frames and a DICT that does not match HELLO's hash.
	var s Synth
	h := exampleHello()
	h.DictHash = 1
	s.Raw([]byte("garbage")).Message(h).Message(&exampleDict).Raw([]byte{0, 1})
	b, _ := s.Bytes()
	tr, _ = Load(bytes.NewReader(b))
	if len(tr.Errors) != 3 || tr.Errors[0].Offset != 0 || !strings.Contains(tr.Errors[1].Err.Error(), "DICT hash") {
		t.Errorf("garbage: %v", tr.Errors)
	}
}

// frameOffsets returns the offset of every frame of an intact recording.
func frameOffsets(t *testing.T, b []byte) []int64 {
	r := wire.NewReader(bytes.NewReader(b))
	var offs []int64
	for {
		f, err := r.Next()
		if err == io.EOF {
			return offs
		}
		if err != nil {
			t.Fatal(err)
		}
		offs = append(offs, f.Offset)
	}
}

func TestBadRecordsAndVersions(t *testing.T) {
	var s Synth
	h := exampleHello()
	h.ProtoMajor = 9
	s.Message(h)
	rec := SynthRecord{TPID: tpSysEnter, Seq: 5, Args: []uint64{1, 2}}.Encode()
	rec[0] = 13 // size not a multiple of 8
	s.Message(&wire.Data{CPU: 0, FirstSeq: 5, Records: rec})
	s.Data(2, SynthRecord{TPID: tpSysEnter, Seq: 1, Args: []uint64{1}}, SynthRecord{TPID: tpSysEnter, Seq: 1, Args: []uint64{1}})
	b, _ := s.Bytes()
	tr, _ := Load(bytes.NewReader(b))
	want := []error{ErrProto, record.ErrBadSize, nil}
	if len(tr.Errors) != len(want) {
		t.Fatalf("errors %v", tr.Errors)
	}
	for i, w := range want {
		if w != nil && !errors.Is(tr.Errors[i].Err, w) {
			t.Errorf("error %d: %v, want %v", i, tr.Errors[i].Err, w)
		}
	}
	if !strings.Contains(tr.Errors[2].Err.Error(), "already accounted") {
		t.Errorf("duplicate seq: %v", tr.Errors[2].Err)
	}
}
