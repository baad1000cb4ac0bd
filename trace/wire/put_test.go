package wire

import (
	"bytes"
	"testing"
)

// The in-place encoders must write exactly what the Message encoders append.

func TestPutHeaderMatchesAppendFrame(t *testing.T) {
	payload := []byte("some payload bytes")
	want := AppendFrame(nil, TypeData, FlagMore, 77, payload)
	got := make([]byte, HeaderSize+len(payload))
	copy(got[HeaderSize:], payload)
	if n := PutHeader(got, TypeData, FlagMore, 77, got[HeaderSize:]); n != HeaderSize {
		t.Fatalf("PutHeader wrote %d bytes", n)
	}
	if !bytes.Equal(got, want) {
		t.Fatalf("PutHeader frame\n got %x\nwant %x", got, want)
	}
	if PutHeader(got[:HeaderSize-1], TypeData, 0, 0, nil) != 0 {
		t.Fatal("PutHeader into a short buffer")
	}
}

func TestPutDataHeaderMatchesData(t *testing.T) {
	want, _ := (&Data{CPU: 3, FirstSeq: 0xdeadbeef}).Marshal()
	got := make([]byte, DataHeaderSize)
	if PutDataHeader(got, 3, 0xdeadbeef) != DataHeaderSize || !bytes.Equal(got, want) {
		t.Fatalf("got %x, want %x", got, want)
	}
}

func TestPutStatsMatchesStats(t *testing.T) {
	s := &Stats{Ticks: 123456789, CPUs: []CPUStats{
		{CPU: 0, Written: 1, Bytes: 2, DroppedFull: 3, DroppedNested: 4, DroppedEarly: 5,
			TruncatedStacks: 6, WalkStops: 7, SamplerTicks: 8, SamplerLate: 9, Throttled: 10, Overwritten: 11, DroppedOther: 12, Discarded: 13, Pending: 14},
		{CPU: 1, Written: 100, Overwritten: 1 << 40},
	}}
	want, err := s.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	got := make([]byte, StatsHeaderSize+2*StatsCPUSize)
	n := PutStatsHeader(got, s.Ticks, len(s.CPUs))
	for i := range s.CPUs {
		n += PutCPUStats(got[n:], &s.CPUs[i])
	}
	if n != len(want) || !bytes.Equal(got, want) {
		t.Fatalf("got %x, want %x", got[:n], want)
	}
}

func TestPutEndMatchesEnd(t *testing.T) {
	want, err := (&End{Reason: EndExit, Status: -3, Ticks: 42}).Marshal()
	if err != nil {
		t.Fatal(err)
	}
	got := make([]byte, EndSize)
	if PutEnd(got, EndExit, -3, 42) != EndSize || !bytes.Equal(got, want) {
		t.Fatalf("got %x, want %x", got, want)
	}
}
