package tracefile

import (
	"slices"
	"sort"
)

// Accounting checks one recording's per-CPU sequence numbers. Every record
// a CPU produces consumes one seq; a LOST record or LOST frame covers a range
// of dropped seqs (docs/trace-format.md). So on each CPU the received
// records and the lost ranges should tile the seqs from 0 to the last one:
// whatever they leave uncovered is a gap (in flight-recorder mode, records
// the ring overwrote). Ranges may arrive in any order; seqs are unwrapped
// from 32 bits relative to the last one seen on the CPU.
type Accounting struct {
	cpus map[uint16]*cpuAccount
}

type spanKind uint8

const (
	spanReceived spanKind = iota
	spanLostRecord
	spanLostFrame
)

// span is the seq range [lo, hi) of one kind.
type span struct {
	lo, hi uint64
	kind   spanKind
}

type cpuAccount struct {
	last     uint64 // unwrapped seq of the last range's start, for unwrapping
	seen     bool
	spans    []span // sorted by lo, disjoint
	overlaps uint64 // seqs covered twice (duplicates, or a record inside a lost range)
}

// unwrap extends a 32-bit seq to 64 bits, choosing the value nearest the
// last one seen.
func (a *cpuAccount) unwrap(seq uint32) uint64 {
	if !a.seen {
		a.seen = true
		a.last = uint64(seq)
		return a.last
	}
	d := int64(int32(seq - uint32(a.last)))
	v := int64(a.last) + d
	if v < 0 {
		v += 1 << 32
	}
	a.last = uint64(v)
	return a.last
}

func (acc *Accounting) cpu(c uint16) *cpuAccount {
	if acc.cpus == nil {
		acc.cpus = make(map[uint16]*cpuAccount)
	}
	a := acc.cpus[c]
	if a == nil {
		a = &cpuAccount{}
		acc.cpus[c] = a
	}
	return a
}

// Received accounts one received record. It returns false if the seq was
// already covered (a duplicate, or a record inside a lost range).
func (acc *Accounting) Received(cpu uint16, seq uint32) bool {
	a := acc.cpu(cpu)
	s := a.unwrap(seq)
	return a.add(span{s, s + 1, spanReceived})
}

// Lost accounts count dropped records from first (a LOST record when
// fromFrame is false, a transport LOST frame when it is true). It returns
// false if part of the range was already covered.
func (acc *Accounting) Lost(cpu uint16, first uint32, count uint64, fromFrame bool) bool {
	if count == 0 {
		return true
	}
	a := acc.cpu(cpu)
	s := a.unwrap(first)
	k := spanLostRecord
	if fromFrame {
		k = spanLostFrame
	}
	hi := s + count
	if hi < s { // a corrupt count: clamp rather than wrap
		hi = ^uint64(0)
	}
	return a.add(span{s, hi, k})
}

// add inserts sp, merging it with a neighbour of the same kind. Parts that
// overlap existing spans are counted and dropped.
func (a *cpuAccount) add(sp span) bool {
	i := sort.Search(len(a.spans), func(i int) bool { return a.spans[i].hi > sp.lo })
	ok := true
	// Trim sp against every span it overlaps, inserting the uncovered pieces.
	for sp.lo < sp.hi {
		if i >= len(a.spans) || a.spans[i].lo >= sp.hi {
			a.insert(i, sp)
			return ok
		}
		o := a.spans[i]
		if o.lo > sp.lo {
			a.insert(i, span{sp.lo, o.lo, sp.kind})
			i++
			continue
		}
		ok = false
		end := min(o.hi, sp.hi)
		a.overlaps += end - sp.lo
		sp.lo = end
		i++
	}
	return ok
}

// insert puts sp at index i, merging with the neighbours of its kind.
func (a *cpuAccount) insert(i int, sp span) {
	if i > 0 && a.spans[i-1].hi == sp.lo && a.spans[i-1].kind == sp.kind {
		a.spans[i-1].hi = sp.hi
		if i < len(a.spans) && a.spans[i].lo == sp.hi && a.spans[i].kind == sp.kind {
			a.spans[i-1].hi = a.spans[i].hi
			a.spans = slices.Delete(a.spans, i, i+1)
		}
		return
	}
	if i < len(a.spans) && a.spans[i].lo == sp.hi && a.spans[i].kind == sp.kind {
		a.spans[i].lo = sp.lo
		return
	}
	a.spans = slices.Insert(a.spans, i, sp)
}

// Gap is a seq range [From, To) on one CPU that no record and no lost range
// covers.
type Gap struct {
	From, To uint64
}

// CPUAccount is one CPU's sequence accounting.
type CPUAccount struct {
	CPU uint16
	// Produced is the number of seqs from 0 to the highest one covered:
	// Received + LostRecords + LostFrames + Missing.
	Produced    uint64
	Received    uint64
	LostRecords uint64 // covered by LOST records (the ring dropped them)
	LostFrames  uint64 // covered by LOST frames (the transport dropped them)
	Missing     uint64 // in gaps: overwritten (flight mode) or unaccounted
	Gaps        []Gap
	Overlaps    uint64 // seqs covered more than once
}

// CPUs returns the accounting of every CPU seen, by CPU number.
func (acc *Accounting) CPUs() []CPUAccount {
	var out []CPUAccount
	for c, a := range acc.cpus {
		r := CPUAccount{CPU: c, Overlaps: a.overlaps}
		next := uint64(0)
		for _, sp := range a.spans {
			if sp.lo > next {
				r.Gaps = append(r.Gaps, Gap{next, sp.lo})
				r.Missing += sp.lo - next
			}
			n := sp.hi - sp.lo
			switch sp.kind {
			case spanReceived:
				r.Received += n
			case spanLostRecord:
				r.LostRecords += n
			case spanLostFrame:
				r.LostFrames += n
			}
			next = sp.hi
		}
		r.Produced = next
		out = append(out, r)
	}
	slices.SortFunc(out, func(a, b CPUAccount) int { return int(a.CPU) - int(b.CPU) })
	return out
}
