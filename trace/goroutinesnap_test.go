package trace

import (
	"bytes"
	"errors"
	"testing"

	"github.com/unitrace/unitrace/trace/record"
)

func TestGoroutineEntryRoundTrip(t *testing.T) {
	entries := []GoroutineEntry{
		{ID: 7, State: 4, Reason: 19, GoPC: 0x1234, StartPC: 0x2000, WaitNs: 5e9},
		{ID: 9, State: 3, Wait: WaitPipe, ThreadState: StateBlocked, TID: 3, Syscall: 1, SP: 0x10, FP: 0x20, W0: 1, W1: 2},
		{ID: 11, State: 2, ThreadState: StateRunning, TID: 4, Flags: GoroutineOnCPU},
	}
	words := [][]uint64{{0x4000, 0x4100, 0x4200}, {0x9000, record.StackMarkThread, 0x5000, 0x5100}, nil}
	buf := make([]byte, len(entries)*GoroutineEntrySize)
	for i := range entries {
		if !PutGoroutineEntry(buf[i*GoroutineEntrySize:], &entries[i], words[i]) {
			t.Fatalf("entry %d did not encode", i)
		}
	}
	got, err := DecodeGoroutines(buf, len(entries))
	if err != nil {
		t.Fatal(err)
	}
	again := make([]byte, len(buf))
	for i := range got {
		if got[i].ID != entries[i].ID || got[i].State != entries[i].State || len(got[i].Frames) != len(words[i]) {
			t.Errorf("entry %d: %+v", i, got[i])
		}
		PutGoroutineEntry(again[i*GoroutineEntrySize:], &got[i], got[i].Frames)
	}
	if !bytes.Equal(again, buf) {
		t.Error("the decoded entries do not encode back to the same bytes")
	}
	if PutGoroutineEntry(buf[:GoroutineEntrySize-1], &entries[0], nil) || PutGoroutineEntry(buf, &entries[0], make([]uint64, GoroutineFrames+1)) {
		t.Error("PutGoroutineEntry wrote an entry that does not fit")
	}
}

func TestDecodeGoroutinesRefusesMalformed(t *testing.T) {
	good := GoroutineEntry{ID: 5, State: 4}
	for name, edit := range map[string]func(b []byte){
		"id 0":              func(b []byte) { le64(b[grID:], 0) },
		"state 0":           func(b []byte) { b[grState] = 0 },
		"state 5":           func(b []byte) { b[grState] = 5 },
		"unknown wait":      func(b []byte) { b[grWait] = uint8(numWaits) },
		"unknown flag":      func(b []byte) { le16(b[grFlags:], 1<<15) },
		"too many words":    func(b []byte) { le16(b[grNFrames:], GoroutineFrames+1) },
		"an unused word":    func(b []byte) { le64(b[grFrames+8*10:], 1) },
		"a stack on no-cpu": func(b []byte) { le16(b[grFlags:], uint16(GoroutineOnCPU)); le16(b[grNFrames:], 1) },
		"reserved":          func(b []byte) { le64(b[grReserved:], 1) },
	} {
		b := make([]byte, GoroutineEntrySize)
		PutGoroutineEntry(b, &good, nil)
		edit(b)
		var se *StacksError
		if _, err := DecodeGoroutines(b, 1); !errors.As(err, &se) || se.Entry != 0 {
			t.Errorf("%s: %v, want a StacksError for entry 0", name, err)
		}
	}
	b := make([]byte, 2*GoroutineEntrySize)
	PutGoroutineEntry(b, &good, nil)
	PutGoroutineEntry(b[GoroutineEntrySize:], &good, nil)
	if _, err := DecodeGoroutines(b, 2); err == nil {
		t.Error("the same goroutine twice was accepted")
	}
	if _, err := DecodeGoroutines(b, 3); err == nil {
		t.Error("a count past the buffer was accepted")
	}
}
