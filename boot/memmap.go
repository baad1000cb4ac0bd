package boot

// MemoryType is a memory map range type (the E820 / Xen
// XEN_HVM_MEMMAP_TYPE_* numbering). Larger numbers win where ranges overlap,
// as in Linux's e820 sanitising, so RAM (the smallest) never wins.
type MemoryType uint32

const (
	MemoryRAM        MemoryType = 1
	MemoryReserved   MemoryType = 2
	MemoryACPI       MemoryType = 3 // ACPI tables, reclaimable after reading
	MemoryNVS        MemoryType = 4
	MemoryUnusable   MemoryType = 5
	MemoryDisabled   MemoryType = 6
	MemoryPersistent MemoryType = 7
)

// MemoryRange is [Addr, Addr+Size) of one type.
type MemoryRange struct {
	Addr, Size uint64
	Type       MemoryType
}

// End is the first address after the range.
func (r MemoryRange) End() uint64 { return r.Addr + r.Size }

// MaxMemoryRanges is the capacity of a MemoryMap.
const MaxMemoryRanges = 128

// MemoryMap is a sorted list of disjoint, non-empty ranges; neighbours that
// touch have different types.
type MemoryMap struct {
	ranges [MaxMemoryRanges]MemoryRange
	n      int
}

// Len is the number of ranges.
func (m *MemoryMap) Len() int { return m.n }

// At returns range i, or the zero range if i is out of bounds.
func (m *MemoryMap) At(i int) MemoryRange {
	if i < 0 || i >= m.n {
		return MemoryRange{}
	}
	return m.ranges[i]
}

// RAMBytes is the total size of the RAM ranges.
func (m *MemoryMap) RAMBytes() uint64 {
	var total uint64
	for _, r := range m.ranges[:m.n] {
		if r.Type == MemoryRAM {
			total += r.Size
		}
	}
	return total
}

// Set replaces the map with raw, which may be unsorted and overlapping:
// where ranges overlap the larger type wins, empty ranges and ranges of
// type 0 are dropped, and
// touching ranges of one type are merged. A range whose end passes 2^64 is
// ErrMemoryRangeWraps; a result of more than MaxMemoryRanges ranges is
// ErrMemoryMapFull (never truncated). On error the map is empty.
//
// It sweeps the boundaries in order, finding each next boundary and the type
// covering the piece before it by scanning raw: O(len(raw)^2) with no
// scratch memory, which is fine for the few dozen ranges firmware reports.
func (m *MemoryMap) Set(raw []MemoryRange) Error {
	m.n = 0
	for _, r := range raw {
		if r.Addr+r.Size < r.Addr {
			return ErrMemoryRangeWraps
		}
	}
	p, ok := nextBoundary(raw, 0, true)
	for ok {
		q, more := nextBoundary(raw, p, false)
		if !more {
			break
		}
		if t := typeAt(raw, p); t != 0 {
			if err := m.appendRange(MemoryRange{Addr: p, Size: q - p, Type: t}); err != OK {
				m.n = 0
				return err
			}
		}
		p = q
	}
	return OK
}

// nextBoundary is the smallest range start or end that is > p (>= p when
// inclusive), ignoring empty ranges.
func nextBoundary(raw []MemoryRange, p uint64, inclusive bool) (uint64, bool) {
	var best uint64
	found := false
	consider := func(b uint64) {
		if (b > p || inclusive && b == p) && (!found || b < best) {
			best, found = b, true
		}
	}
	for _, r := range raw {
		if r.Size != 0 {
			consider(r.Addr)
			consider(r.End())
		}
	}
	return best, found
}

// typeAt is the largest type of the ranges containing address p, or 0.
func typeAt(raw []MemoryRange, p uint64) MemoryType {
	var t MemoryType
	for _, r := range raw {
		if r.Addr <= p && p < r.End() && r.Type > t {
			t = r.Type
		}
	}
	return t
}

func (m *MemoryMap) appendRange(r MemoryRange) Error {
	if m.n > 0 {
		last := &m.ranges[m.n-1]
		if last.Type == r.Type && last.End() == r.Addr {
			last.Size += r.Size
			return OK
		}
	}
	if m.n == MaxMemoryRanges {
		return ErrMemoryMapFull
	}
	m.ranges[m.n] = r
	m.n++
	return OK
}
