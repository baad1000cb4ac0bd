package ring

import "sync/atomic"

// Ring is one CPU's control block. Its zero value is a ring without memory:
// Reserve counts early drops (with sequence numbers) until Init gives it
// memory, and the first record after that carries the LOST record for them.
type Ring struct {
	// Shared with the consumer.
	head  atomic.Uint64 // end of committed data; written by the producer only
	tail  atomic.Uint64 // stream mode: consumer's read position; written by the consumer only
	start atomic.Uint64 // flight mode: oldest complete record; written by the producer only

	base uintptr
	size uint64 // a power of two, or 0 before Init
	cpu  uint16
	mode Mode

	// Producer-private: the open reservation and the pending LOST range.
	open        bool
	openSeq     uint32
	openLen     uint32
	openNext    uint64 // head after the open record
	openLostEnd uint64 // head after the LOST record (and PADs) written before it
	seq         uint32 // next sequence number
	lostFirst   uint32 // first seq of the pending LOST range
	lostFirstTS uint64
	lostLastTS  uint64
	lostCauses  uint64
	lostCount   atomic.Uint64 // also read by Stats

	// Drops reported from nested context (Drop), folded in by the next
	// Reserve; atomic because Drop may interrupt the producer anywhere.
	deferred       atomic.Uint64
	deferredCauses atomic.Uint64

	written     atomic.Uint64
	bytes       atomic.Uint64
	dropped     [NumCauses]atomic.Uint64
	overwritten atomic.Uint64
	lostRecords atomic.Uint64
	discarded   atomic.Uint64
	resyncs     atomic.Uint64
}

// Stats are a ring's cumulative counters. Produced records are Written plus
// the sum of Dropped; each dropped record is in a LOST record the consumer
// sees, or still Pending.
type Stats struct {
	Written     uint64            // records committed
	Bytes       uint64            // bytes of committed records (PAD and LOST not included)
	Dropped     [NumCauses]uint64 // records dropped, by Cause
	Overwritten uint64            // flight mode: records overwritten by newer ones
	LostRecords uint64            // LOST records written
	Pending     uint64            // dropped records not yet reported by a LOST record
	Discarded   uint64            // unread records thrown away by Init
	Resyncs     uint64            // corrupt sizes met in ring memory (contents given up)
}

// Init gives the ring its memory (base, size bytes; size a power of two in
// [MinSize, MaxSize]; base 8-byte aligned), its CPU number and its mode. It
// returns false and changes nothing when the arguments are invalid.
//
// Init may be called again to change size or mode; the caller must first
// stop the producer and the consumer. Unread records are discarded and
// counted; the sequence numbers and the pending LOST range carry over, so
// drops before Init (early drops) are reported by the first record after it.
func (r *Ring) Init(base uintptr, size uint64, cpu uint16, mode Mode) bool {
	if base == 0 || base%8 != 0 || size < MinSize || size > MaxSize || size&(size-1) != 0 ||
		base+uintptr(size) < base || mode > Flight {
		return false
	}
	r.Abort(r.lostLastTS)
	if r.size != 0 {
		from := r.tail.Load()
		if r.mode == Flight {
			from = r.start.Load()
		}
		r.discarded.Add(r.countRecords(from, r.head.Load()))
	}
	r.base, r.size, r.cpu, r.mode = base, size, cpu, mode
	r.head.Store(0)
	r.tail.Store(0)
	r.start.Store(0)
	return true
}

// Size returns the ring's size in bytes (0 before Init).
func (r *Ring) Size() uint64 { return r.size }

// Mode returns the ring's mode.
func (r *Ring) Mode() Mode { return r.mode }

// Stats returns the counters. It may run on any CPU, concurrently with the
// producer; each counter is read atomically, the set is not a snapshot.
func (r *Ring) Stats() Stats {
	s := Stats{
		Written:     r.written.Load(),
		Bytes:       r.bytes.Load(),
		Overwritten: r.overwritten.Load(),
		LostRecords: r.lostRecords.Load(),
		Pending:     r.lostCount.Load() + r.deferred.Load(),
		Discarded:   r.discarded.Load(),
		Resyncs:     r.resyncs.Load(),
	}
	for i := range s.Dropped {
		s.Dropped[i] = r.dropped[i].Load()
	}
	return s
}

// addr returns the memory address of virtual position p.
//
//go:nosplit
func (r *Ring) addr(p uint64) uintptr { return r.base + uintptr(p&(r.size-1)) }

// recordAt reads the size and tpid of the record at p and checks that it is
// a plausible record inside [p, limit): at least 8 bytes (PAD) or a header,
// 8-aligned, not past the end of the ring or limit. ok is false otherwise.
//
//go:nosplit
func (r *Ring) recordAt(p, limit uint64) (size uint64, tpid uint16, ok bool) {
	a := r.addr(p)
	size = uint64(get16(a + offSize))
	tpid = get16(a + offTpid)
	if size < 8 || size%8 != 0 || (tpid != tpidPad && size < HeaderSize) ||
		p&(r.size-1)+size > r.size || size > limit-p {
		return 0, 0, false
	}
	return size, tpid, true
}

// countRecords counts the data records (not PAD or LOST) in [from, to), stopping at the
// first invalid size.
func (r *Ring) countRecords(from, to uint64) uint64 {
	var n uint64
	for p := from; p < to; {
		size, tpid, ok := r.recordAt(p, to)
		if !ok {
			r.resyncs.Add(1)
			break
		}
		if tpid > tpidLost {
			n++
		}
		p += size
	}
	return n
}
