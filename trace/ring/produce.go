package ring

// Producer side. Every function here runs on the ring's own CPU with
// interrupts masked or in interrupt context, so all are //go:nosplit, take
// no locks, allocate nothing and loop only over bounded ranges.

// Reserve claims a contiguous slot of n bytes (a multiple of 8, HeaderSize
// to MaxRecord) for a record stamped ts, and assigns it the next sequence
// number. It writes the header's size, cpu, ts and seq; the caller writes
// tpid, flags, nframes, tid and the payload, then calls Commit. ok is false
// when the record is dropped (counted, and reported by a later LOST record).
//
// If a reservation is still open, it is aborted first (see Abort).
//
//go:nosplit
func (r *Ring) Reserve(n uint32, ts uint64) (addr uintptr, seq uint32, ok bool) {
	if r.open {
		r.Abort(ts)
	}
	if r.deferred.Load() != 0 {
		r.foldDeferred(ts)
	}
	if r.size == 0 {
		r.drop(CauseEarly, ts)
		return 0, 0, false
	}
	if !validRecordSize(n) {
		r.drop(CauseInvalid, ts)
		return 0, 0, false
	}
	pos := r.head.Load()
	lostAt, lostEnd := pos, pos
	if r.lostCount.Load() != 0 {
		lostAt = pos + r.padFor(pos, LostSize)
		lostEnd = lostAt + LostSize
	}
	recAt := lostEnd + r.padFor(lostEnd, uint64(n))
	end := recAt + uint64(n)
	if r.mode == Stream {
		if end-r.tail.Load() > r.size {
			r.drop(CauseFull, ts)
			return 0, 0, false
		}
	} else {
		r.evict(pos, end)
	}
	r.writePad(pos, lostAt)
	if lostEnd != lostAt {
		r.writeLost(lostAt, ts)
	}
	r.writePad(lostEnd, recAt)
	seq = r.seq
	r.seq++
	a := r.addr(recAt)
	put16(a+offSize, uint16(n))
	put16(a+offCPU, r.cpu)
	put64(a+offTS, ts)
	put32(a+offSeq, seq)
	r.open, r.openSeq, r.openLen, r.openNext, r.openLostEnd = true, seq, n, end, lostEnd
	return a, seq, true
}

// Commit publishes the open reservation. Without one it does nothing.
//
//go:nosplit
func (r *Ring) Commit() {
	if !r.open {
		return
	}
	r.open = false
	r.head.Store(r.openNext)
	r.written.Add(1)
	r.bytes.Add(uint64(r.openLen))
}

// Abort gives up the open reservation: the LOST record written before it
// (if any) is still published, and the aborted record is counted as dropped
// (CauseAborted), so its sequence number is accounted for.
//
//go:nosplit
func (r *Ring) Abort(ts uint64) {
	if !r.open {
		return
	}
	r.open = false
	r.head.Store(r.openLostEnd)
	// Reserve emptied the LOST range and the aborted seq is the newest one,
	// so the range restarts at it and stays contiguous.
	r.dropped[CauseAborted].Add(1)
	r.lostFirst, r.lostFirstTS, r.lostLastTS, r.lostCauses = r.openSeq, ts, ts, 1<<CauseAborted
	r.lostCount.Store(1)
}

// Drop reports a record the kernel dropped before it reached Reserve
// (CauseNested: a re-entrant emit; CauseEarly). It is safe to call from an
// interrupt that arrived in the middle of Reserve or between Reserve and
// Commit: it only adds atomically, and the next Reserve gives the dropped
// records their sequence numbers and puts them in the LOST range.
//
//go:nosplit
func (r *Ring) Drop(c Cause) {
	if c >= NumCauses {
		c = CauseNested
	}
	r.dropped[c].Add(1)
	r.deferredCauses.Or(1 << c)
	r.deferred.Add(1)
}

// foldDeferred moves the drops reported by Drop into the LOST range.
//
//go:nosplit
func (r *Ring) foldDeferred(ts uint64) {
	n := r.deferred.Swap(0)
	causes := r.deferredCauses.Swap(0)
	if n == 0 {
		return
	}
	r.extendLost(n, causes, ts)
}

// drop counts one record dropped by the producer itself.
//
//go:nosplit
func (r *Ring) drop(c Cause, ts uint64) {
	r.dropped[c].Add(1)
	r.extendLost(1, 1<<c, ts)
}

// extendLost gives n dropped records the next sequence numbers and adds
// them to the pending LOST range, which always ends just before r.seq.
//
//go:nosplit
func (r *Ring) extendLost(n, causes, ts uint64) {
	count := r.lostCount.Load()
	if count == 0 {
		r.lostFirst, r.lostFirstTS, r.lostCauses = r.seq, ts, 0
	}
	r.lostLastTS = ts
	r.lostCauses |= causes
	r.seq += uint32(n)
	r.lostCount.Store(count + n)
}

// padFor returns how many bytes of PAD must precede an n-byte record at p so
// that it does not straddle the end of the ring.
//
//go:nosplit
func (r *Ring) padFor(p, n uint64) uint64 {
	off := p & (r.size - 1)
	if off+n > r.size {
		return r.size - off
	}
	return 0
}

// writePad fills [from, to) with one PAD record (nothing if empty).
//
//go:nosplit
func (r *Ring) writePad(from, to uint64) {
	if to == from {
		return
	}
	a := r.addr(from)
	put16(a+offSize, uint16(to-from))
	put16(a+offTpid, tpidPad)
}

// writeLost writes the pending LOST record at p and empties the range.
//
//go:nosplit
func (r *Ring) writeLost(p, ts uint64) {
	a := r.addr(p)
	put16(a+offSize, LostSize)
	put16(a+offTpid, tpidLost)
	put16(a+4, 0) // flags, nframes
	put16(a+offCPU, r.cpu)
	put64(a+offTS, ts)
	put32(a+offTid, 0)
	put32(a+offSeq, r.lostFirst)
	put64(a+offArgs, r.lostCount.Load())
	put64(a+offArgs+8, r.lostFirstTS)
	put64(a+offArgs+16, r.lostLastTS)
	put64(a+offArgs+24, r.lostCauses)
	r.lostCount.Store(0)
	r.lostRecords.Add(1)
}

// evict (flight mode) moves start forward, record by record, until the
// bytes up to end fit in the ring, counting the records it passes, and
// publishes it before the caller overwrites anything. The walk covers at
// most end-pos bytes in steps of at least 8. On a corrupt size it gives the
// old contents up and moves start to pos (the current head).
//
//go:nosplit
func (r *Ring) evict(pos, end uint64) {
	if end <= r.size {
		return
	}
	limit := end - r.size
	s := r.start.Load()
	if s >= limit {
		return
	}
	var n uint64
	for s < limit {
		if s >= pos {
			s = pos
			break
		}
		size, tpid, ok := r.recordAt(s, pos)
		if !ok {
			r.resyncs.Add(1)
			s = pos
			break
		}
		if tpid > tpidLost {
			n++
		}
		s += size
	}
	r.overwritten.Add(n)
	r.start.Store(s)
}
