package mm

import "github.com/unitrace/unitrace/kernel/abi"

// Memory protections, with the values of Linux's PROT_* (mmap(2)).
const (
	ProtNone  = 0
	ProtRead  = 1
	ProtWrite = 2
	ProtExec  = 4

	protAll = ProtRead | ProtWrite | ProtExec
)

const (
	// MaxRegions is how many regions a Space holds. The Go runtime needs few, because adjacent
	// regions with equal protection merge: its heap is one reservation mapped read-write in
	// pieces that coalesce.
	MaxRegions = 1024
	// MaxExcluded is how many disjoint excluded ranges a Space holds.
	MaxExcluded = 16
)

// Region is a mapped range [Start, End) of the user address space: page-aligned and non-empty.
type Region struct {
	Start, End uintptr
	Prot       uint32
	// Shared names the shared memory object whose pages back the region (the caller's numbering,
	// never 0), or is 0 for private anonymous memory, which the fault handler fills with fresh
	// zeroed frames. Off is the object's byte offset that Start maps; it follows Start when a
	// region is cut, and is 0 for anonymous memory.
	Shared uint32
	Off    uintptr
}

// sub returns the part [start, end) of r, its object offset moved along.
func (r Region) sub(start, end uintptr) Region {
	if r.Shared != 0 {
		r.Off += start - r.Start
	}
	r.Start, r.End = start, end
	return r
}

// joins reports whether next begins where r ends and continues it: the same protection and the
// same memory behind it (anonymous, or the next pages of the same object).
func (r Region) joins(next Region) bool {
	return r.End == next.Start && r.Prot == next.Prot && r.Shared == next.Shared &&
		(r.Shared == 0 || r.Off+(r.End-r.Start) == next.Off)
}

// Space is the map of the user address space that mmap, munmap and mprotect edit, and that the
// page-fault handler consults. It only records what is mapped with which protection, and which
// shared memory object's pages back a region if any; frames are attached on demand by the fault
// handler, and page tables are the caller's business.
//
// Regions are kept sorted, non-overlapping and merged (no region continues the one before it:
// see Region.joins) in a fixed array, so every lookup is a binary search and every edit is one move of
// the tail. Every edit is atomic: it either succeeds or returns an errno having changed nothing.
//
// Errors follow Linux (mm/mmap.c, mm/mprotect.c), errno values positive, 0 for success:
//
//	         unaligned addr  length 0  unknown prot  length overflows  outside [lo,hi) or excluded  unmapped hole  capacity
//	Map      EINVAL (fixed)  EINVAL    EINVAL        ENOMEM            ENOMEM (fixed)               -              ENOMEM
//	Unmap    EINVAL          EINVAL    -             EINVAL            EINVAL                       fine           ENOMEM
//	Protect  EINVAL          0         EINVAL        ENOMEM            ENOMEM                       ENOMEM         ENOMEM
//
// Linux says ENOMEM for a MAP_FIXED range it cannot give (above TASK_SIZE) and for mprotect over
// memory that is not mapped, but EINVAL for munmap outside the address space; excluded ranges are
// treated as outside. (Linux says EPERM below mmap_min_addr; here that is just "outside".)
//
// The zero value refuses everything until Init. A Space is not safe for concurrent use.
type Space struct {
	lo, hi, mmapBase uintptr
	limit            int // capacity: MaxRegions; tests lower it to reach ENOMEM cheaply

	n       int
	regions [MaxRegions]Region

	nex      int
	excluded [MaxExcluded]Region // Prot unused
}

// Init empties the space and sets its bounds: user mappings live in [lo, hi), and mmaps without a
// usable hint go top-down below mmapBase, like Linux, then anywhere in [lo, hi). Bounds are rounded
// inward to pages.
func (s *Space) Init(lo, hi, mmapBase uintptr) {
	*s = Space{}
	s.limit = MaxRegions
	s.lo = (lo + pageMask) &^ pageMask
	if s.lo < lo {
		s.lo = hi // lo rounded past the top: nothing fits
	}
	s.hi = hi &^ pageMask
	if s.hi < s.lo {
		s.hi = s.lo
	}
	s.mmapBase = min(max(mmapBase&^pageMask, s.lo), s.hi)
}

// Exclude keeps [start, end) (grown outward to pages) out of the space for good: no mmap returns
// it and MAP_FIXED over it fails. It is for the kernel's identity map and MMIO windows. Mappings
// already there are removed. It returns ENOMEM, changing nothing, when MaxExcluded disjoint
// ranges are already excluded (or removing the mappings needs a region too many), EINVAL when
// end < start.
func (s *Space) Exclude(start, end uintptr) (errno int) {
	if end < start {
		return abi.EINVAL
	}
	start &^= pageMask
	if end&pageMask != 0 {
		end = (end + pageMask) &^ pageMask
		if end == 0 {
			end = ^uintptr(pageMask) // to the top of the address space
		}
	}
	start, end = max(start, s.lo), min(end, s.hi)
	if start >= end {
		return 0
	}
	// Excluded ranges that overlap or touch [start, end) merge with it: [i, j).
	i := 0
	for i < s.nex && s.excluded[i].End < start {
		i++
	}
	j := i
	for j < s.nex && s.excluded[j].Start <= end {
		start, end = min(start, s.excluded[j].Start), max(end, s.excluded[j].End)
		j++
	}
	if s.nex-(j-i)+1 > MaxExcluded {
		return abi.ENOMEM
	}
	if e := s.splice(start, end, Region{}, false); e != 0 {
		return e
	}
	copy(s.excluded[i+1:], s.excluded[j:s.nex])
	s.excluded[i] = Region{Start: start, End: end}
	s.nex += 1 - (j - i)
	return 0
}

// Map is mmap(hint, length, prot, MAP_ANONYMOUS|MAP_PRIVATE, plus MAP_FIXED if fixed). The new
// pages read as zero once the fault handler populates them.
//
// With fixed, the range must be exactly [hint, hint+length) and replaces whatever was mapped
// there. Without it, hint (rounded up to a page) is used when the whole range there is free;
// otherwise the highest free range below mmapBase is chosen, then the highest anywhere, so a hint
// that is not free always yields a different address (the Go runtime relies on that).
func (s *Space) Map(hint, length uintptr, prot uint32, fixed bool) (addr uintptr, errno int) {
	return s.mapRegion(hint, length, Region{Prot: prot}, fixed)
}

// MapShared is Map for the pages of shared memory object obj (not 0), from its offset 0: the
// fault handler finds their frames through the region's Shared and Off, and regions of it are
// never merged with anything but the object's own next pages.
func (s *Space) MapShared(hint, length uintptr, prot uint32, fixed bool, obj uint32) (addr uintptr, errno int) {
	if obj == 0 {
		return 0, abi.EINVAL
	}
	return s.mapRegion(hint, length, Region{Prot: prot, Shared: obj}, fixed)
}

// mapRegion maps length bytes at or near hint as with says (its protection and object; its
// bounds are ignored).
func (s *Space) mapRegion(hint, length uintptr, with Region, fixed bool) (addr uintptr, errno int) {
	prot := with.Prot
	if prot&^protAll != 0 || length == 0 || (fixed && hint&pageMask != 0) {
		return 0, abi.EINVAL
	}
	size := (length + pageMask) &^ pageMask
	if size == 0 || size > s.hi-s.lo {
		return 0, abi.ENOMEM
	}
	if fixed {
		if hint < s.lo || hint > s.hi-size || s.overlapsExcluded(hint, hint+size) {
			return 0, abi.ENOMEM
		}
		addr = hint
	} else {
		h := (hint + pageMask) &^ pageMask
		if hint != 0 && h >= hint && h >= s.lo && h <= s.hi-size && s.isFree(h, h+size) {
			addr = h
		} else if a, ok := s.highestFit(s.lo, s.mmapBase, size); ok {
			addr = a
		} else if a, ok := s.highestFit(s.lo, s.hi, size); ok {
			addr = a
		} else {
			return 0, abi.ENOMEM
		}
	}
	if e := s.splice(addr, addr+size, with, true); e != 0 {
		return 0, e
	}
	return addr, 0
}

// Unmap is munmap(start, length): it removes every mapping in the range, splitting regions that
// straddle its ends. Holes in the range are fine.
func (s *Space) Unmap(start, length uintptr) (errno int) {
	if start&pageMask != 0 || length == 0 {
		return abi.EINVAL
	}
	size := (length + pageMask) &^ pageMask
	if size == 0 || start > s.hi || size > s.hi-start || s.overlapsExcluded(start, start+size) {
		return abi.EINVAL
	}
	// Below lo nothing is ever mapped (Linux's mmap_min_addr): unmapping there succeeds and
	// does nothing, as Linux's munmap checks only the top of the address space.
	lo := max(start, s.lo)
	if lo >= start+size {
		return 0
	}
	return s.splice(lo, start+size, Region{}, false)
}

// Protect is mprotect(start, length, prot): every page of the range must be mapped.
func (s *Space) Protect(start, length uintptr, prot uint32) (errno int) {
	if start&pageMask != 0 || prot&^protAll != 0 {
		return abi.EINVAL
	}
	if length == 0 {
		return 0
	}
	size := (length + pageMask) &^ pageMask
	end := start + size
	if size == 0 || end < start || !s.covered(start, end) {
		return abi.ENOMEM
	}
	if !s.anyShared(start, end) {
		return s.splice(start, end, Region{Prot: prot}, true)
	}
	// Shared memory keeps its object and offsets, so each overlapped region changes alone. Only
	// the first and the last can split, one more region each: with room for two more, no step
	// can fail and the edit stays atomic. (The all-anonymous case above needs no such room.)
	if s.n+2 > s.limit || s.n+2 > MaxRegions {
		return abi.ENOMEM
	}
	for a := start; a < end; {
		r := s.regions[s.firstEndAbove(a)]
		e := min(r.End, end)
		with := r.sub(a, e)
		with.Prot = prot
		s.splice(a, e, with, true)
		a = e
	}
	return 0
}

// anyShared reports whether a region of shared memory overlaps [start, end).
func (s *Space) anyShared(start, end uintptr) bool {
	for i := s.firstEndAbove(start); i < s.n && s.regions[i].Start < end; i++ {
		if s.regions[i].Shared != 0 {
			return true
		}
	}
	return false
}

// Find returns the region that contains addr.
func (s *Space) Find(addr uintptr) (Region, bool) {
	i := s.firstEndAbove(addr)
	if i < s.n && s.regions[i].Start <= addr {
		return s.regions[i], true
	}
	return Region{}, false
}

// Mapped returns how many bytes of [start, end) lie in regions: the address space a mapping
// there already takes, which RLIMIT_AS counts (Linux's total_vm, less what MAP_FIXED replaces).
func (s *Space) Mapped(start, end uintptr) uintptr {
	var n uintptr
	for i := s.firstEndAbove(start); i < s.n && s.regions[i].Start < end; i++ {
		n += min(end, s.regions[i].End) - max(start, s.regions[i].Start)
	}
	return n
}

// Len returns the number of regions.
func (s *Space) Len() int { return s.n }

// At returns region i in address order, or the zero Region when i is out of range.
func (s *Space) At(i int) Region {
	if i < 0 || i >= s.n {
		return Region{}
	}
	return s.regions[i]
}

// splice makes [start, end) one region as with says (fill: its protection, object and offset at
// start) or a hole (!fill), merging it with the neighbours it joins. It returns ENOMEM, changing
// nothing, if the result would not fit.
func (s *Space) splice(start, end uintptr, with Region, fill bool) int {
	i := s.firstEndAbove(start) // regions[i:j] overlap [start, end)
	j := i
	for j < s.n && s.regions[j].Start < end {
		j++
	}
	// The replacement for regions[from:to]: the left neighbour, what remains of the first and last
	// overlapped regions, the new region, the right neighbour; merged as they are added.
	var out regionList
	from, to := i, j
	if i > 0 {
		from = i - 1
		out.add(s.regions[i-1])
	}
	if i < j && s.regions[i].Start < start {
		out.add(s.regions[i].sub(s.regions[i].Start, start))
	}
	if fill {
		with.Start, with.End = start, end
		if with.Shared == 0 {
			with.Off = 0
		}
		out.add(with)
	}
	if i < j && s.regions[j-1].End > end {
		out.add(s.regions[j-1].sub(end, s.regions[j-1].End))
	}
	if j < s.n {
		to = j + 1
		out.add(s.regions[j])
	}
	n := s.n - (to - from) + out.n
	if n > s.limit || n > MaxRegions {
		return abi.ENOMEM
	}
	copy(s.regions[from+out.n:n], s.regions[to:s.n])
	copy(s.regions[from:from+out.n], out.r[:out.n])
	s.n = n
	return 0
}

// regionList is splice's scratch list, merging each region with the one it continues.
type regionList struct {
	r [5]Region
	n int
}

func (l *regionList) add(r Region) {
	if l.n > 0 && l.r[l.n-1].joins(r) {
		l.r[l.n-1].End = r.End
		return
	}
	if l.n < len(l.r) {
		l.r[l.n] = r
		l.n++
	}
}

// firstEndAbove returns the index of the first region that ends above addr (s.n if none).
func (s *Space) firstEndAbove(addr uintptr) int {
	lo, hi := 0, s.n
	for lo < hi {
		mid := int(uint(lo+hi) >> 1)
		if s.regions[mid].End <= addr {
			lo = mid + 1
		} else {
			hi = mid
		}
	}
	return lo
}

// covered reports whether every page of [start, end) is mapped.
func (s *Space) covered(start, end uintptr) bool {
	for i := s.firstEndAbove(start); start < end; i++ {
		if i >= s.n || s.regions[i].Start > start {
			return false
		}
		start = s.regions[i].End
	}
	return true
}

func (s *Space) isFree(start, end uintptr) bool {
	_, busy := s.highestObstacle(start, end)
	return !busy
}

func (s *Space) overlapsExcluded(start, end uintptr) bool {
	for i := 0; i < s.nex; i++ {
		if s.excluded[i].Start < end && s.excluded[i].End > start {
			return true
		}
	}
	return false
}

// highestObstacle returns the highest start of a region or excluded range overlapping [start, end).
func (s *Space) highestObstacle(start, end uintptr) (at uintptr, found bool) {
	if i := s.firstEndAbove(start); i < s.n && s.regions[i].Start < end {
		// Regions are sorted: the last one starting below end overlaps too.
		k := s.firstEndAbove(end) // first region ending above end; it may start below end
		if k >= s.n || s.regions[k].Start >= end {
			k--
		}
		at, found = s.regions[k].Start, true
	}
	for i := 0; i < s.nex; i++ {
		if e := s.excluded[i]; e.Start < end && e.End > start && (!found || e.Start > at) {
			at, found = e.Start, true
		}
	}
	return at, found
}

// highestFit returns the highest page-aligned address a with [a, a+size) inside [lo, hi) and free.
// Each step moves below one obstacle, so it takes at most one step per region and excluded range.
func (s *Space) highestFit(lo, hi, size uintptr) (uintptr, bool) {
	end := hi
	for end >= lo && end-lo >= size {
		obstacle, busy := s.highestObstacle(end-size, end)
		if !busy {
			return end - size, true
		}
		if obstacle >= end {
			break // cannot happen; guarantees progress
		}
		end = obstacle
	}
	return 0, false
}

// FaultBlock returns the part of region r that lies in the aligned block of pages pages
// (a power of two) around va: the pages a fault at va may map together.
func FaultBlock(va uintptr, r Region, pages uintptr) (lo, hi uintptr) {
	size := pages * PageSize
	block := va &^ (size - 1)
	lo, hi = max(block, r.Start), min(block+size, r.End)
	if block+size < block {
		hi = r.End // the block at the top of the address space
	}
	return lo, hi
}
