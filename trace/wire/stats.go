package wire

// CPUStats are one CPU's tracer counters, all cumulative since boot.
type CPUStats struct {
	CPU             uint16
	Written         uint64 // records written to the ring
	Bytes           uint64 // bytes written to the ring
	DroppedFull     uint64 // streaming ring had no room
	DroppedNested   uint64 // re-entrant emits
	DroppedEarly    uint64 // emits before the rings existed
	TruncatedStacks uint64 // walks that hit the depth cap
	WalkStops       uint64 // walks ended by a failed check
	SamplerTicks    uint64
	SamplerLate     uint64 // ticks later than their deadline
	Throttled       uint64 // sampler rate reductions
	Overwritten     uint64 // flight-recorder records overwritten
	DroppedOther    uint64 // records given up for another cause (an invalid size, an aborted reservation)
	Discarded       uint64 // unread records thrown away when a ring was re-initialised (mode command)
	Pending         uint64 // dropped records no LOST record has reported yet
}

// Dropped is how many records the CPU dropped, every cause together.
func (c *CPUStats) Dropped() uint64 {
	return c.DroppedFull + c.DroppedNested + c.DroppedEarly + c.DroppedOther
}

// Produced is how many records the CPU produced: each written or dropped one took a sequence
// number.
func (c *CPUStats) Produced() uint64 { return c.Written + c.Dropped() }

// NumCounters is how many counters this version writes per CPU.
const NumCounters = 14

func (c *CPUStats) counters() [NumCounters]*uint64 {
	return [NumCounters]*uint64{&c.Written, &c.Bytes, &c.DroppedFull, &c.DroppedNested,
		&c.DroppedEarly, &c.TruncatedStacks, &c.WalkStops, &c.SamplerTicks, &c.SamplerLate,
		&c.Throttled, &c.Overwritten, &c.DroppedOther, &c.Discarded, &c.Pending}
}

// Stats is a snapshot of every CPU's counters.
type Stats struct {
	Ticks uint64 // when the snapshot was taken
	CPUs  []CPUStats
}

// Payload: ticks u64, ncpu u16, ncounters u16, reserved u32, then per CPU
// cpu u16, reserved u16, reserved u32 and ncounters u64 counters in the
// order of CPUStats. A decoder reads the counters it knows and skips the
// rest; counters a sender did not send decode as 0.

// FrameType implements Message.
func (*Stats) FrameType() Type { return TypeStats }

// AppendPayload implements Message.
func (m *Stats) AppendPayload(b []byte) ([]byte, error) {
	e := enc{b: b}
	if len(m.CPUs) > 1<<16-1 {
		return b, ErrTooLong
	}
	e.u64(m.Ticks)
	e.u16(uint16(len(m.CPUs)))
	e.u16(NumCounters)
	e.u32(0)
	for i := range m.CPUs {
		c := &m.CPUs[i]
		e.u16(c.CPU)
		e.u16(0)
		e.u32(0)
		for _, p := range c.counters() {
			e.u64(*p)
		}
	}
	return e.b, nil
}

// Marshal returns the payload.
func (m *Stats) Marshal() ([]byte, error) { return m.AppendPayload(nil) }

// Unmarshal decodes a payload.
func (m *Stats) Unmarshal(p []byte) error {
	d := dec{b: p}
	m.Ticks = d.u64()
	ncpu := int(d.u16())
	ncounters := int(d.u16())
	d.u32()
	m.CPUs = nil
	if d.err != nil {
		return d.err
	}
	if ncpu*(8+8*ncounters) > len(d.b) { // checked before allocating
		return ErrShortPayload
	}
	m.CPUs = make([]CPUStats, ncpu)
	for i := range m.CPUs {
		c := &m.CPUs[i]
		c.CPU = d.u16()
		d.u16()
		d.u32()
		ptrs := c.counters()
		for j := 0; j < ncounters; j++ {
			v := d.u64()
			if j < len(ptrs) {
				*ptrs[j] = v
			}
		}
	}
	return d.err
}
