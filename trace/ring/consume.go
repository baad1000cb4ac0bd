package ring

// Consumer side (stream mode): the drain goroutine, on any CPU. It is
// allocation-free like the producer but may block and need not be nosplit.

// Span is a run of committed ring memory: Len bytes at Addr.
type Span struct {
	Addr uintptr
	Len  uint64
}

// Peek returns the committed, unreleased bytes [tail, head) as at most two
// spans: the second is non-empty only when the data wraps past the end of
// the ring. Both hold whole records, PADs included (a PAD is the last
// record of a first span that wraps). Peek returns nothing in flight mode.
func (r *Ring) Peek() (first, second Span) {
	if r.size == 0 || r.mode != Stream {
		return Span{}, Span{}
	}
	tail := r.tail.Load()
	avail := r.head.Load() - tail
	off := tail & (r.size - 1)
	if off+avail <= r.size {
		return Span{r.base + uintptr(off), avail}, Span{}
	}
	n := r.size - off
	return Span{r.base + uintptr(off), n}, Span{r.base, avail - n}
}

// Release gives the first n bytes of [tail, head) back to the producer
// (atomic store of tail). n must end on a record boundary; Release refuses
// (returns false) an n larger than what is committed.
func (r *Ring) Release(n uint64) bool {
	if r.mode != Stream {
		return false
	}
	tail := r.tail.Load()
	if n > r.head.Load()-tail {
		return false
	}
	r.tail.Store(tail + n)
	return true
}

// CopyOut copies whole committed records from [tail, head) into dst, oldest
// first and without PADs, until the next record does not fit. It returns the
// bytes written to dst and the bytes of ring they came from (PADs included),
// which the caller passes to Release once it is done with dst. A corrupt
// size in ring memory makes it consume everything up to head, counting a
// resync, so a damaged ring cannot stall the drain.
func (r *Ring) CopyOut(dst []byte) (n int, consumed uint64) {
	if r.size == 0 || r.mode != Stream {
		return 0, 0
	}
	tail := r.tail.Load()
	head := r.head.Load()
	p := tail
	for p < head {
		size, tpid, ok := r.recordAt(p, head)
		if !ok {
			r.resyncs.Add(1)
			return n, head - tail
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
	return n, p - tail
}
