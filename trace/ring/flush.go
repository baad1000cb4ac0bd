package ring

// FlushLost publishes the pending LOST range now, as a LOST record of its own, instead of
// waiting for the next record to carry it. The kernel calls it before its last drain (program
// exit, the host's stop), so that drops at the very end are reported in the stream too. It is a
// producer-side call: on the ring's CPU, interrupts masked. It returns false when nothing was
// pending or (stream mode) the ring has no room for the record; the drops then stay in the
// Pending counter of Stats.
//
//go:nosplit
func (r *Ring) FlushLost(ts uint64) bool {
	if r.open {
		r.Abort(ts)
	}
	if r.deferred.Load() != 0 {
		r.foldDeferred(ts)
	}
	if r.size == 0 || r.lostCount.Load() == 0 {
		return false
	}
	pos := r.head.Load()
	lostAt := pos + r.padFor(pos, LostSize)
	end := lostAt + LostSize
	if r.mode == Stream {
		if end-r.tail.Load() > r.size {
			return false
		}
	} else {
		r.evict(pos, end)
	}
	r.writePad(pos, lostAt)
	r.writeLost(lostAt, ts)
	r.head.Store(end)
	return true
}

// Head returns the position just past the newest committed record. Positions only grow (until
// Init); CopyFrom takes them.
func (r *Ring) Head() uint64 { return r.head.Load() }

// CopyFrom (flight mode) copies whole committed records into dst, oldest first and without
// PADs, starting at position from or, if the producer has overwritten that, at the oldest record
// that survives; it stops at head or at the first record that does not fit. It returns the bytes
// written and the position to pass next time, so a sequence of calls hands out every surviving
// record once, whatever the producer does in between. It never modifies the ring. ok is false
// (n 0) if the ring is not a flight ring or the producer overwrote records while they were copied
// (see the package comment: the kernel pauses emits around it).
func (r *Ring) CopyFrom(dst []byte, from uint64) (n int, next uint64, ok bool) {
	if r.size == 0 || r.mode != Flight {
		return 0, from, false
	}
	start := r.start.Load()
	head := r.head.Load()
	p := from
	if p < start || p > head {
		p = start // overwritten since, or a position from before the last Init
	}
	begin := p
	for p < head {
		size, tpid, valid := r.recordAt(p, head)
		if !valid {
			r.resyncs.Add(1)
			return 0, head, false // give the corrupt contents up; resume at the newest
		}
		if tpid != tpidPad {
			if size > uint64(len(dst)-n) {
				break
			}
			copyFrom(dst[n:n+int(size)], r.addr(p))
			n += int(size)
		}
		p += size
	}
	if r.start.Load() > begin {
		return 0, from, false // the producer evicted part of what was copied
	}
	return n, p, true
}
