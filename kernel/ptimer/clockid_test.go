package ptimer

import "testing"

// TestDecodeClockID checks the decoding against ids built as Linux's macros build them, and the
// ids it must refuse.
func TestDecodeClockID(t *testing.T) {
	for _, c := range []struct {
		id   int32
		want ClockID
	}{
		{ClockMonotonic, ClockID{Valid: true, Static: ClockMonotonic}},
		{ClockTAI, ClockID{Valid: true, Static: ClockTAI}},
		{ThreadClockID(42), ClockID{Valid: true, Static: -1, ID: 42, PerThread: true}},
		{ThreadClockID(0), ClockID{Valid: true, Static: -1, ID: 0, PerThread: true}},
		{ProcessClockID(1), ClockID{Valid: true, Static: -1, ID: 1}},
		{^int32(7)<<3 | 1, ClockID{Valid: true, Static: -1, ID: 7, UserOnly: true}},      // MAKE_PROCESS_CPUCLOCK(7, CPUCLOCK_VIRT)
		{^int32(9)<<3 | 4 | 0, ClockID{Valid: true, Static: -1, ID: 9, PerThread: true}}, // PROF, per thread
		{^int32(3)<<3 | 3, ClockID{}},                                                    // FD_TO_CLOCKID(3)
		{10, ClockID{}},                                                                  // unused
		{12, ClockID{}},
		{1 << 30, ClockID{}},
	} {
		if got := DecodeClockID(c.id); got != c.want {
			t.Errorf("DecodeClockID(%d) = %+v, want %+v", c.id, got, c.want)
		}
	}
	// MAKE_THREAD_CPUCLOCK(0, CPUCLOCK_SCHED), the caller's own thread: (~0 << 3) | 4 | 2.
	if ThreadClockID(0) != -2 {
		t.Errorf("ThreadClockID(0) = %d, want -2", ThreadClockID(0))
	}
}

// FuzzDecodeClockID: any id decodes without panicking, and a dynamic clock decodes to what
// encodes it again.
func FuzzDecodeClockID(f *testing.F) {
	for _, id := range []int32{0, 3, 11, -2, -6, -1, -8, -1 << 31} {
		f.Add(id)
	}
	f.Fuzz(func(t *testing.T, id int32) {
		d := DecodeClockID(id)
		if !d.Valid || d.Static >= 0 {
			return
		}
		which := int32(2)
		switch {
		case d.UserOnly:
			which = 1
		case id&3 == 0:
			which = 0
		}
		re := ^d.ID<<3 | which
		if d.PerThread {
			re |= 4
		}
		if re != id {
			t.Fatalf("DecodeClockID(%d) = %+v, which encodes as %d", id, d, re)
		}
	})
}
