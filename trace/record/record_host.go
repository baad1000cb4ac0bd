package record

// Host-only code (see decode_host.go).

// Record is one decoded record. Args and Stack are fresh slices owned by the
// caller; Raw aliases the decoder's input.
type Record struct {
	Header
	Offset int64    // of the record's first byte, in the caller's coordinates
	Args   []uint64 // argument slots
	Stack  []uint64 // stack words, leaf first
	Raw    []byte   // the whole record
}

// String returns the NUL-trimmed string argument that starts at slot i, and
// false if the slots are outside the args.
func (r *Record) String(i int) (string, bool) {
	if i < 0 || i+StrSlots > len(r.Args) {
		return "", false
	}
	var b [StrBytes]byte
	for j := 0; j < StrSlots; j++ {
		v := r.Args[i+j]
		for k := 0; k < SlotSize; k++ {
			b[j*SlotSize+k] = byte(v >> (8 * k))
		}
	}
	n := 0
	for n < len(b) && b[n] != 0 {
		n++
	}
	return string(b[:n]), true
}

// Lost returns the LOST arguments; ok is false for other records.
func (r *Record) Lost() (l Lost, ok bool) {
	if r.TPID != TPLost || len(r.Args) < LostArgs {
		return Lost{}, false
	}
	return Lost{
		FirstSeq: r.Seq,
		Count:    r.Args[LostArgCount],
		FirstTS:  r.Args[LostArgFirstTS],
		LastTS:   r.Args[LostArgLastTS],
		Causes:   LostCause(r.Args[LostArgCauses]),
	}, true
}

// Sample returns the SAMPLE arguments; ok is false for other records.
func (r *Record) Sample() (s Sample, ok bool) {
	if r.TPID != TPSample || len(r.Args) < SampleArgs {
		return Sample{}, false
	}
	a := r.Args
	s = Sample{SP: a[SampleArgSP], FP: a[SampleArgFP], LR: a[SampleArgLR],
		W0: a[SampleArgW0], W1: a[SampleArgW1], TID: a[SampleArgTID],
		LateNs: a[SampleArgLateNs], State: SampleState(a[SampleArgState]), Weight: 1}
	if len(a) >= SampleArgsWeighted && a[SampleArgWeight] > 1 {
		s.Weight = a[SampleArgWeight]
	}
	if len(a) >= SampleArgsCrossed {
		s.ThreadSP, s.ThreadFP, s.ThreadLR = a[SampleArgThreadSP], a[SampleArgThreadFP], a[SampleArgThreadLR]
		s.ThreadW0, s.ThreadW1 = a[SampleArgThreadW0], a[SampleArgThreadW1]
	}
	return s, true
}

// Goroutine holds a GOROUTINE record's arguments.
type Goroutine struct {
	ID       uint64
	State    GoroutineState
	WaitNs   uint64
	PeriodNs uint64
	Syscall  int64 // the system call's number, -1 for none
	GoPC     uint64
	Sweep    uint64
	// The thread context's registers (all 0 when the stack is the goroutine's own).
	ThreadSP, ThreadFP, ThreadLR, ThreadW0, ThreadW1 uint64
}

// Goroutine returns the GOROUTINE arguments; ok is false for other records.
func (r *Record) Goroutine() (g Goroutine, ok bool) {
	if r.TPID != TPGoroutine || len(r.Args) < GoroutineArgs {
		return Goroutine{}, false
	}
	a := r.Args
	return Goroutine{ID: a[GoroutineArgID], State: GoroutineState(a[GoroutineArgState]), WaitNs: a[GoroutineArgWaitNs],
		PeriodNs: a[GoroutineArgPeriodNs], Syscall: int64(a[GoroutineArgSyscall]) - 1, GoPC: a[GoroutineArgGoPC],
		Sweep: a[GoroutineArgSweep], ThreadSP: a[GoroutineArgThreadSP], ThreadFP: a[GoroutineArgThreadFP],
		ThreadLR: a[GoroutineArgThreadLR], ThreadW0: a[GoroutineArgThreadW0], ThreadW1: a[GoroutineArgThreadW1]}, true
}

// GoroutineSame returns a GOROUTINE_SAME record's goroutine, the weight (ns) and the number of
// the sweeps it stands for; ok is false for other records.
func (r *Record) GoroutineSame() (id, ns, sweeps uint64, ok bool) {
	if r.TPID != TPGoroutineSame || len(r.Args) < GoroutineSameArgs {
		return 0, 0, 0, false
	}
	return r.Args[GoroutineSameArgID], r.Args[GoroutineSameArgNs], r.Args[GoroutineSameArgSweeps], true
}

// Wake holds a WAKE record's arguments, with its stack split in two.
type Wake struct {
	Woken, WakerGoid uint64
	BlockedNs        uint64
	Wait             uint8 // StackWait
	Syscall          int64 // the woken thread's system call, -1 for none
	Waker            WakerKind
	WakerTID         uint64
	WokenStack       []uint64
	WakerStack       []uint64
	WokenRegs        [5]uint64 // SP, FP, LR, W0, W1
	WakerRegs        [5]uint64
}

// Wake returns the WAKE arguments; ok is false for other records and for one whose split
// point lies past its stack.
func (r *Record) Wake() (w Wake, ok bool) {
	if r.TPID != TPWake || len(r.Args) < WakeArgs || r.Args[WakeArgWokenWords] > uint64(len(r.Stack)) {
		return Wake{}, false
	}
	a := r.Args
	n := a[WakeArgWokenWords]
	w = Wake{Woken: a[WakeArgWoken], WakerGoid: a[WakeArgWakerGoid], BlockedNs: a[WakeArgBlockedNs], Wait: uint8(a[WakeArgWait]),
		Syscall: int64(uint32(a[WakeArgWait]>>8)) - 1, Waker: WakerKind(a[WakeArgWaker]), WakerTID: a[WakeArgWakerTID],
		WokenStack: r.Stack[:n], WakerStack: r.Stack[n:]}
	copy(w.WokenRegs[:], a[WakeArgWokenSP:WakeArgWokenW1+1])
	copy(w.WakerRegs[:], a[WakeArgWakerSP:WakeArgWakerW1+1])
	return w, true
}

// Clock returns the CLOCK arguments; ok is false for other records.
func (r *Record) Clock() (ticks, ns uint64, ok bool) {
	if r.TPID != TPClock || len(r.Args) < ClockArgs {
		return 0, 0, false
	}
	return r.Args[ClockArgTicks], r.Args[ClockArgNs], true
}

// Throttle returns the THROTTLE arguments; ok is false for other records.
func (r *Record) Throttle() (oldHz, newHz uint64, ok bool) {
	if r.TPID != TPThrottle || len(r.Args) < ThrottleArgs {
		return 0, 0, false
	}
	return r.Args[ThrottleArgOldHz], r.Args[ThrottleArgNewHz], true
}

// Probe holds a PROBE record's arguments.
type Probe struct {
	Probe       uint16
	Kind        uint8 // 1 entry, 2 return
	PC, SP      uint64
	Goid        uint64
	StackHi     uint64
	Ints, Float []uint64
	Strings     []ProbeString
}

// ProbeString is a string a probe's hit copied.
type ProbeString struct {
	PtrReg     uint8 // the integer register of its pointer
	Bytes      []byte
	Trunc      bool // longer than the bytes copied
	Unreadable bool // a word was not mapped: Bytes stops there
}

// Probe returns the PROBE arguments; ok is false for other records and for one whose register
// counts do not fit its slots.
func (r *Record) Probe() (p Probe, ok bool) {
	if r.TPID != TPProbe || len(r.Args) < ProbeArgs {
		return Probe{}, false
	}
	a := r.Args
	info := a[ProbeArgInfo]
	ni, nf := int(info>>24&0xff), int(info>>32&0xff)
	if ProbeArgs+ni+nf > len(a) {
		return Probe{}, false
	}
	p = Probe{Probe: uint16(info), Kind: uint8(info >> 16), PC: a[ProbeArgPC], SP: a[ProbeArgSP], Goid: a[ProbeArgGoid],
		StackHi: a[ProbeArgStackHi], Ints: a[ProbeArgs : ProbeArgs+ni], Float: a[ProbeArgs+ni : ProbeArgs+ni+nf]}
	ns, slots := int(info>>40&0xff), int(info>>48&0xff)
	rest := a[ProbeArgs+ni+nf:]
	if slots > len(rest) {
		return Probe{}, false
	}
	rest = rest[:slots]
	for i := 0; i < ns; i++ {
		if len(rest) == 0 {
			return Probe{}, false
		}
		h := rest[0]
		n := int(h & 0xffff)
		words := (n + 7) / 8
		if 1+words > len(rest) {
			return Probe{}, false
		}
		b := make([]byte, n)
		for j := range b {
			b[j] = byte(rest[1+j/8] >> (8 * (j % 8)))
		}
		p.Strings = append(p.Strings, ProbeString{PtrReg: uint8(h >> 16), Bytes: b, Trunc: h&ProbeStringTrunc != 0,
			Unreadable: h&ProbeStringUnreadable != 0})
		rest = rest[1+words:]
	}
	return p, true
}
