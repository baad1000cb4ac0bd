package main

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/unitrace/unitrace/internal/tracefile"
	"github.com/unitrace/unitrace/trace/record"
	"github.com/unitrace/unitrace/trace/wire"
)

// TestSummaryShares checks summary's table of p9_rpc round trips: per share, busiest request
// type first, with counts, total and percentile latencies and reply bytes.
func TestSummaryShares(t *testing.T) {
	const tpRPC record.TPID = 21
	dict := wire.Dict{Entries: []wire.DictEntry{{ID: tpRPC, Name: "p9_rpc", Format: "share=%d type=%d latency_ns=%d bytes=%d",
		Kinds: []record.Kind{record.KU64, record.KU64, record.KU64, record.KU64}}}}
	var recs []tracefile.SynthRecord
	for i, r := range [][4]uint64{
		{0, 110, 200_000, 22}, {0, 110, 400_000, 22}, {0, 116, 1_000_000, 65_547},
		{1, 24, 150_000, 160}, {0, 118, 300_000, 11},
	} {
		recs = append(recs, tracefile.SynthRecord{TPID: tpRPC, TS: uint64(1000 * (i + 1)), TID: 1, Seq: uint32(i), Args: r[:]})
	}
	golden(t, "summary_shares.golden", summaryOf(t, dict, recs))
}

// TestSummarySockets checks summary's table of net_rpc round trips: per call, busiest first,
// EAGAIN and EINPROGRESS apart from the errors, and the bytes of sends and receives.
func TestSummarySockets(t *testing.T) {
	const tpRPC record.TPID = 22
	dict := wire.Dict{Entries: []wire.DictEntry{{ID: tpRPC, Name: "net_rpc", Format: "op=%d handle=%x latency_ns=%d result=%d",
		Kinds: []record.Kind{record.KU64, record.KHex, record.KU64, record.KI64}}}}
	neg := func(e int64) uint64 { return uint64(-e) }
	var recs []tracefile.SynthRecord
	for i, r := range [][4]uint64{
		{11, 0x10001, 200_000, 512}, {11, 0x10001, 100_000, neg(11)}, {10, 0x10001, 300_000, 4096},
		{5, 0x20001, 150_000, neg(115)}, {5, 0x30001, 120_000, neg(111)}, {1, 0x20001, 90_000, 0},
	} {
		recs = append(recs, tracefile.SynthRecord{TPID: tpRPC, TS: uint64(1000 * (i + 1)), TID: 1, Seq: uint32(i), Args: r[:]})
	}
	out := summaryOf(t, dict, recs)
	golden(t, "summary_sockets.golden", out)
}

// summaryOf writes a recording of recs under dict and returns summary's output for it.
func summaryOf(t *testing.T, dict wire.Dict, recs []tracefile.SynthRecord) string {
	t.Helper()
	var s tracefile.Synth
	s.Host(&tracefile.Host{Image: "/images/app.elf", Accel: "tcg", Start: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)})
	s.Message(&wire.Hello{ProtoMajor: 1, RecordVersion: 1, Arch: wire.ArchAMD64, NCPU: 1, TickSource: wire.TickTSC, RingMode: wire.ModeStream,
		RingSize: 1 << 20, TickHz: 1e9, DictHash: dict.Hash(), Accel: "tcg"})
	s.Message(&dict)
	s.Data(0, recs...)
	s.Message(&wire.End{Reason: wire.EndExit, Ticks: 10_000})
	b, err := s.Bytes()
	if err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(t.TempDir(), "summary.utrace")
	if err := os.WriteFile(p, b, 0o644); err != nil {
		t.Fatal(err)
	}
	out, errOut, st := runCLI(t, "summary", p)
	if st != 0 {
		t.Fatalf("status %d: %s", st, errOut)
	}
	return out
}
