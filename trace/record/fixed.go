package record

// Encoders for the fixed-schema records. Each writes a whole record at the
// start of b and returns its size, or 0 if b is too short. The caller fills
// in the header fields it owns (cpu, ts, tid, seq) through h; EncodeX sets
// Size, TPID and NFrames itself.

// Lost describes a run of dropped records (a LOST record's arguments plus
// the first dropped seq from its header).
type Lost struct {
	FirstSeq uint32
	Count    uint64
	FirstTS  uint64
	LastTS   uint64
	Causes   LostCause
}

// EncodeLost writes a LOST record. h.Seq is ignored: a LOST record's seq is
// l.FirstSeq, and it consumes no sequence number of its own.
//
//go:nosplit
func EncodeLost(b []byte, h Header, l Lost) int {
	h.Seq = l.FirstSeq
	n := begin(b, h, TPLost, LostArgs)
	if n == 0 {
		return 0
	}
	put64(b, OffArgs+SlotSize*LostArgCount, l.Count)
	put64(b, OffArgs+SlotSize*LostArgFirstTS, l.FirstTS)
	put64(b, OffArgs+SlotSize*LostArgLastTS, l.LastTS)
	put64(b, OffArgs+SlotSize*LostArgCauses, uint64(l.Causes))
	return n
}

// EncodeClock writes a CLOCK record: ticks read at ns since boot.
//
//go:nosplit
func EncodeClock(b []byte, h Header, ticks, ns uint64) int {
	n := begin(b, h, TPClock, ClockArgs)
	if n == 0 {
		return 0
	}
	put64(b, OffArgs+SlotSize*ClockArgTicks, ticks)
	put64(b, OffArgs+SlotSize*ClockArgNs, ns)
	return n
}

// EncodeThrottle writes a THROTTLE record.
//
//go:nosplit
func EncodeThrottle(b []byte, h Header, oldHz, newHz uint64) int {
	n := begin(b, h, TPThrottle, ThrottleArgs)
	if n == 0 {
		return 0
	}
	put64(b, OffArgs+SlotSize*ThrottleArgOldHz, oldHz)
	put64(b, OffArgs+SlotSize*ThrottleArgNewHz, newHz)
	return n
}

// Sample holds the fixed SAMPLE arguments.
type Sample struct {
	SP, FP, LR uint64
	W0, W1     uint64 // words at [sp] and [sp+8]
	TID        uint64 // goroutine or kernel task id
	LateNs     uint64
	State      SampleState

	// Appended slots (SampleArgWeight on): Weight is 1 when the record has none.
	Weight                                           uint64
	ThreadSP, ThreadFP, ThreadLR, ThreadW0, ThreadW1 uint64
}

// EncodeSample writes a SAMPLE record's header and arguments (the appended slots only when they
// say something: a weight above 1, a thread context's registers), sized for
// h.NFrames stack words that the caller then writes with PutFrame (the
// walker writes straight into the record). It sets HasStack when h.NFrames
// is not zero.
//
//go:nosplit
func EncodeSample(b []byte, h Header, s *Sample) int {
	if h.NFrames != 0 {
		h.Flags |= HasStack
	}
	nargs := SampleArgs
	switch {
	case s.ThreadSP|s.ThreadFP|s.ThreadLR|s.ThreadW0|s.ThreadW1 != 0:
		nargs = SampleArgsCrossed
	case s.Weight > 1:
		nargs = SampleArgsWeighted
	}
	n := begin(b, h, TPSample, nargs)
	if n == 0 {
		return 0
	}
	if nargs > SampleArgs {
		put64(b, OffArgs+SlotSize*SampleArgWeight, max(s.Weight, 1))
	}
	if nargs == SampleArgsCrossed {
		put64(b, OffArgs+SlotSize*SampleArgThreadSP, s.ThreadSP)
		put64(b, OffArgs+SlotSize*SampleArgThreadFP, s.ThreadFP)
		put64(b, OffArgs+SlotSize*SampleArgThreadLR, s.ThreadLR)
		put64(b, OffArgs+SlotSize*SampleArgThreadW0, s.ThreadW0)
		put64(b, OffArgs+SlotSize*SampleArgThreadW1, s.ThreadW1)
	}
	put64(b, OffArgs+SlotSize*SampleArgSP, s.SP)
	put64(b, OffArgs+SlotSize*SampleArgFP, s.FP)
	put64(b, OffArgs+SlotSize*SampleArgLR, s.LR)
	put64(b, OffArgs+SlotSize*SampleArgW0, s.W0)
	put64(b, OffArgs+SlotSize*SampleArgW1, s.W1)
	put64(b, OffArgs+SlotSize*SampleArgTID, s.TID)
	put64(b, OffArgs+SlotSize*SampleArgLateNs, s.LateNs)
	put64(b, OffArgs+SlotSize*SampleArgState, uint64(s.State))
	return n
}

// begin sizes h for nargs slots and h.NFrames stack words, writes it, and
// returns the size, or 0 if it does not fit in b.
//
//go:nosplit
func begin(b []byte, h Header, id TPID, nargs int) int {
	n := Size(nargs, int(h.NFrames))
	if n == 0 || len(b) < n {
		return 0
	}
	h.Size = uint16(n)
	h.TPID = id
	if !PutHeader(b, h) {
		return 0
	}
	return n
}
