package ring

// snapshotTries bounds how often Snapshot starts again when the producer
// evicted records while it copied.
const snapshotTries = 4

// Snapshot copies the newest complete records of a flight-mode ring into
// dst, oldest first and without PADs: as many as fit, always a suffix of
// the ring's contents ending at head. It returns the bytes written, and ok
// false (n 0) if the ring is not a flight ring or the producer kept
// overwriting what it read (see the package comment: the kernel pauses
// emits around a snapshot). It never modifies the ring.
func (r *Ring) Snapshot(dst []byte) (n int, ok bool) {
	if r.size == 0 || r.mode != Flight {
		return 0, false
	}
	for range snapshotTries {
		start := r.start.Load()
		head := r.head.Load()
		n, ok = r.copyNewest(dst, start, head)
		if ok && r.start.Load() == start {
			return n, true
		}
	}
	return 0, false
}

// copyNewest copies the records of [start, head) that fit in dst, skipping
// the oldest ones first. ok is false on an invalid size (a torn or corrupt
// ring).
func (r *Ring) copyNewest(dst []byte, start, head uint64) (n int, ok bool) {
	// First pass: bytes of non-PAD records from each record to head.
	var total uint64
	for p := start; p < head; {
		size, tpid, valid := r.recordAt(p, head)
		if !valid {
			return 0, false
		}
		if tpid != tpidPad {
			total += size
		}
		p += size
	}
	// Second pass: skip the oldest until the rest fits, then copy.
	for p := start; p < head; {
		size, tpid, valid := r.recordAt(p, head)
		if !valid {
			return 0, false
		}
		if tpid != tpidPad {
			if total <= uint64(len(dst)-n) {
				copyFrom(dst[n:n+int(size)], r.addr(p))
				n += int(size)
			}
			total -= size
		}
		p += size
	}
	return n, true
}
