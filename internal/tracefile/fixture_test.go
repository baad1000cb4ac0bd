package tracefile

import (
	"testing"
	"time"

	"github.com/unitrace/unitrace/trace/record"
	"github.com/unitrace/unitrace/trace/wire"
)

// Tracepoint ids of the example recording.
const (
	tpSysEnter record.TPID = 16
	tpSysExit  record.TPID = 17
	tpSwitch   record.TPID = 18
	tpName     record.TPID = 19
)

var exampleDict = wire.Dict{Entries: []wire.DictEntry{
	{ID: tpSysEnter, Flags: wire.PointEnabled, Name: "syscall_enter", Format: "nr=%d a0=%x", Kinds: []record.Kind{record.KU64, record.KHex}},
	{ID: tpSysExit, Flags: wire.PointEnabled, Name: "syscall_exit", Format: "nr=%d res=%d", Kinds: []record.Kind{record.KU64, record.KI64}},
	{ID: tpSwitch, Flags: wire.PointEnabled | wire.PointBacktrace, Name: "sched_switch", Format: "to=%d idle=%t wait=%v", Kinds: []record.Kind{record.KU64, record.KBool, record.KDur}},
	{ID: tpName, Name: "thread_name", Format: "name=%s", Kinds: []record.Kind{record.KStr}},
}}

func exampleHello() *wire.Hello {
	return &wire.Hello{ProtoMajor: 1, RecordVersion: 1, Arch: wire.ArchAMD64, NCPU: 2, TickSource: wire.TickTSC,
		RingMode: wire.ModeStream, PageSize: 4096, RingSize: 1 << 20, TickHz: 1_000_000_000, RefTicks: 1000, RefNs: 0,
		TextStart: 0x101000, DictHash: exampleDict.Hash(), BuildID: []byte{0xde, 0xad, 0xbe, 0xef}, Accel: "tcg"}
}

// exampleRecording has every record kind on two CPUs, a LOST record, a
// LOST frame, a flight-style gap, a fragmented DICT and an END. One tick is
// one ns, and ns 0 is tick 1000.
func exampleRecording(t testing.TB) []byte {
	t.Helper()
	var s Synth
	s.Host(&Host{Image: "/nonexistent/hello.elf", BuildID: "deadbeef", Start: time.Unix(1700000000, 0).UTC(), Tool: "test"})
	s.Message(exampleHello())
	s.MessageFlags(&wire.Dict{Entries: exampleDict.Entries[:2]}, wire.FlagMore)
	s.Message(&wire.Dict{Entries: exampleDict.Entries[2:]})
	s.Data(0,
		SynthRecord{TPID: tpName, TS: 1100, TID: 1, Seq: 0, Args: StrArg("main")},
		SynthRecord{TPID: tpSysEnter, TS: 2000, TID: 1, Seq: 1, Args: []uint64{39, 0xc000}},
		SynthRecord{TPID: tpSysExit, TS: 2500, TID: 1, Seq: 2, Args: []uint64{39, 1}},
		SynthRecord{TPID: tpSwitch, TS: 3000, TID: 1, Seq: 3, Args: []uint64{2, 0, 1500}, Stack: []uint64{0x101234, 0x105678}},
		SynthRecord{Lost: &record.Lost{FirstSeq: 4, Count: 3, FirstTS: 3100, LastTS: 3300, Causes: record.CauseRingFull}, TS: 3400},
		SynthRecord{TPID: tpSysEnter, TS: 3500, TID: 2, Seq: 7, Args: []uint64{1, 0x1}},
		SynthRecord{TPID: record.TPClock, TS: 3600, Seq: 8, Args: []uint64{3600, 2600}},
	)
	s.Data(1,
		SynthRecord{TPID: tpSysEnter, TS: 1500, TID: 3, Seq: 0, Args: []uint64{202, 0x10}},
		SynthRecord{TPID: tpSysExit, TS: 4500, TID: 3, Seq: 1, Args: []uint64{202, ^uint64(10)}},
		SynthRecord{TPID: record.TPSample, TS: 4600, TID: 3, Seq: 2, Flags: record.PC0Exact | record.StackFromInterrupt,
			Args:  []uint64{0x2000, 0x2010, 0, 0x101300, 0, 7, 1000, uint64(record.MakeSampleState(false, record.StackGoroutine))},
			Stack: []uint64{0x101300, 0x101400}},
		SynthRecord{TPID: record.TPThrottle, TS: 4700, Seq: 3, Args: []uint64{1000, 500}},
	)
	s.Message(&wire.Lost{CPU: 1, Cause: wire.LostTransport, FirstSeq: 4, Count: 2, Bytes: 96})
	s.Data(1,
		SynthRecord{TPID: tpSysExit, TS: 5000, TID: 3, Seq: 6, Args: []uint64{202, 0}},
		SynthRecord{TPID: tpSysEnter, TS: 5200, TID: 4, Seq: 9, Args: []uint64{60, 0}}, // 7, 8 overwritten
		SynthRecord{TPID: 99, TS: 5300, TID: 4, Seq: 10, Args: []uint64{1, 2}},         // not in the DICT
	)
	s.Message(&wire.Clock{CPU: 0, Ticks: 6000, Ns: 5000})
	s.Message(&wire.Stats{Ticks: 6000, CPUs: []wire.CPUStats{{CPU: 0, Written: 6, DroppedFull: 3}, {CPU: 1, Written: 8, Overwritten: 2}}})
	s.Message(&wire.JSON{Type: wire.TypeEvent, Body: []byte(`{"event":"x"}`)})
	s.Message(&wire.Unknown{Type: 77, Body: []byte("future")})
	s.Message(&wire.End{Reason: wire.EndExit, Status: 0, Ticks: 6100})
	b, err := s.Bytes()
	if err != nil {
		t.Fatal(err)
	}
	return b
}
