package pagetable

// The walker: each method takes the physical address of the root table (4 KiB aligned; an
// unaligned root is refused) and works on the tree below it in format f.
//
// Speed matters here (Lookup runs for every page a system call's buffer spans and for every
// pointer the sampler checks, Map in every page fault): the hot walks read the masks they need
// into locals first, so they stay in registers, and Lookup and walk are written out level by
// level, so every index is a constant shift.

// Map maps the 4 KiB page at va to the frame at pa: the entry is pa|flags|f.PageSet. alloc must
// return zero-filled 4 KiB frames; it is called for missing tables on the way, whose entries
// are f.TableSet plus the leaf's f.TableCopy bits, and existing tables on the way are widened
// for the leaf (f.TableCopy, f.TableClear). Map refuses (false) a va outside the translated
// ranges, an unaligned va or pa, a pa beyond f.Addr, flags outside f.PageFlags, a va under a
// block, a va already mapped, and a failed or misaligned allocation. Tables allocated before a
// failure stay in place, empty and valid.
func (f *Format) Map(root, va, pa uintptr, flags uint64, alloc func() (uintptr, bool)) bool {
	if !f.leafOK(va, pa, flags, f.PageFlags, Size4K) {
		return false
	}
	table, ok := f.tableFor(root, va, 0, flags, alloc)
	if !ok {
		return false
	}
	e := entry(table, va, 0)
	if *e&f.Valid != 0 {
		return false
	}
	*e = uint64(pa) | flags | f.PageSet
	return true
}

// MapHuge maps the 2 MiB block at va to the 2 MiB frame at pa, like Map with f.BlockFlags and
// f.BlockSet. It refuses what Map refuses, and a va whose level-1 entry is already valid (a
// table or a block).
func (f *Format) MapHuge(root, va, pa uintptr, flags uint64, alloc func() (uintptr, bool)) bool {
	if !f.leafOK(va, pa, flags, f.BlockFlags, Size2M) {
		return false
	}
	table, ok := f.tableFor(root, va, 1, flags, alloc)
	if !ok {
		return false
	}
	e := entry(table, va, 1)
	if *e&f.Valid != 0 {
		return false
	}
	*e = uint64(pa) | flags | f.BlockSet
	return true
}

// Unmap clears the 4 KiB mapping of va and returns the frame it pointed to. It reports false for
// an address that is not mapped by a 4 KiB page.
func (f *Format) Unmap(root, va uintptr) (pa uintptr, ok bool) {
	e, ok := f.leaf(root, va)
	if !ok {
		return 0, false
	}
	pa = uintptr(*e & f.Addr)
	*e = 0
	return pa, true
}

// Lookup translates va: the physical address it maps to (with va's offset in the page or
// block), and the flags of the entry that maps it (everything but f.Addr).
func (f *Format) Lookup(root, va uintptr) (pa uintptr, flags uint64, ok bool) {
	if !f.translated(va) || root&(Size4K-1) != 0 {
		return 0, 0, false
	}
	dirMask, tableType, addr := f.DirMask, f.Table, f.Addr
	e := *entry(root, va, 3)
	if e&dirMask != tableType {
		return 0, 0, false // a block at the root is invalid
	}
	e = *entry(uintptr(e&addr), va, 2)
	if e&dirMask != tableType {
		if e&dirMask != f.Block {
			return 0, 0, false
		}
		return uintptr(e&addr)&^(Size1G-1) | va&(Size1G-1), e &^ addr, true
	}
	e = *entry(uintptr(e&addr), va, 1)
	if e&dirMask != tableType {
		if e&dirMask != f.Block {
			return 0, 0, false
		}
		return uintptr(e&addr)&^(Size2M-1) | va&(Size2M-1), e &^ addr, true
	}
	e = *entry(uintptr(e&addr), va, 0)
	if e&f.PageMask != f.Page {
		return 0, 0, false
	}
	return uintptr(e&addr) | va&(Size4K-1), e &^ addr, true
}

// Protect replaces the flags of the 4 KiB mapping of va (as Map takes them; f.PageSet is implied
// again), widening the tables above it for the new flags. It refuses flags outside f.PageFlags
// and an address not mapped by a 4 KiB page. Changing only permissions is what a live entry
// allows without breaking it first; the caller flushes the TLB.
func (f *Format) Protect(root, va uintptr, flags uint64) bool {
	if flags&^f.PageFlags != 0 {
		return false
	}
	e, ok := f.leaf(root, va)
	if !ok {
		return false
	}
	if f.widens() {
		grow, strip := f.widening(flags)
		table := root
		for level := 3; level > 0; level-- {
			te := entry(table, va, level)
			widen(te, grow, strip)
			table = uintptr(*te & f.Addr)
		}
	}
	*e = *e&f.Addr | flags | f.PageSet
	return true
}

// UnmapRange clears every valid 4 KiB mapping of a page that starts in [start, end), calls free
// with each frame (if free is not nil) and returns how many it cleared. It steps over missing
// tables a whole table at a time, so a 512 MiB reservation with a few pages populated costs a few
// hundred entry reads, and over the gap between the translated ranges. Blocks in the range are
// left alone; so are the now empty tables.
func (f *Format) UnmapRange(root, start, end uintptr, free func(pa uintptr)) int {
	if root&(Size4K-1) != 0 {
		return 0
	}
	valid, addr := f.Valid, f.Addr
	n := 0
	va := (start + Size4K - 1) &^ (Size4K - 1)
	if va < start {
		return 0 // start rounds past the top of the address space
	}
	for va < end {
		if !f.translated(va) {
			if va < f.HighStart {
				va = f.HighStart
				continue
			}
			break // past the last translated address
		}
		// Find the page table holding va, or how far the missing table lets us skip.
		table, level := f.walk(root, va)
		if level != 0 {
			next := (va | (Size4K<<(9*level) - 1)) + 1
			if next == 0 {
				break // past the top of the address space
			}
			va = next
			continue
		}
		for i := (va >> 12) % Entries; i < Entries && va < end; i++ {
			e := entryAt(table, i)
			if *e&valid != 0 {
				pa := uintptr(*e & addr)
				*e = 0
				n++
				if free != nil {
					free(pa)
				}
			}
			va += Size4K
			if va == 0 {
				return n // wrapped past the top of the address space
			}
		}
	}
	return n
}

// tableFor returns the table at level stop (0: the page table, 1: the level-1 table) on va's
// path, widening the tables on the way for a leaf with flags and creating the missing ones with
// alloc. It fails on an unaligned root, a block in the way, or a failed or unusable allocation.
func (f *Format) tableFor(root, va uintptr, stop int, flags uint64, alloc func() (uintptr, bool)) (uintptr, bool) {
	if root&(Size4K-1) != 0 {
		return 0, false
	}
	widens := f.widens()
	grow, strip := f.widening(flags)
	table, level := root, 3
	for ; level > stop; level-- {
		e := entry(table, va, level)
		if *e&f.DirMask != f.Table {
			if *e&f.Valid != 0 {
				return 0, false // a block
			}
			break // the rest of the path is missing
		}
		if widens {
			widen(e, grow, strip)
		}
		table = uintptr(*e & f.Addr)
	}
	// A new table is empty (alloc zero-fills), so every level below it is missing too.
	for ; level > stop; level-- {
		frame, ok := alloc()
		if !ok || frame&(Size4K-1) != 0 || uint64(frame)&^f.Addr != 0 {
			return 0, false
		}
		*entry(table, va, level) = uint64(frame) | grow
		table = frame
	}
	return table, true
}

// leaf returns the page entry that maps va.
func (f *Format) leaf(root, va uintptr) (*uint64, bool) {
	if !f.translated(va) || root&(Size4K-1) != 0 {
		return nil, false
	}
	table, level := f.walk(root, va)
	e := entry(table, va, level)
	return e, level == 0 && *e&f.PageMask == f.Page
}

// walk follows va's path down from root as far as table entries lead: it returns the table whose
// entry for va is not a table entry, and its level, or the page table on the path (level 0).
func (f *Format) walk(root, va uintptr) (table uintptr, level int) {
	dirMask, tableType, addr := f.DirMask, f.Table, f.Addr
	e := *entry(root, va, 3)
	if e&dirMask != tableType {
		return root, 3
	}
	next := uintptr(e & addr)
	if e = *entry(next, va, 2); e&dirMask != tableType {
		return next, 2
	}
	next = uintptr(e & addr)
	if e = *entry(next, va, 1); e&dirMask != tableType {
		return next, 1
	}
	return uintptr(e & addr), 0
}

// widening returns what the tables above a leaf with flags need so that they do not restrict
// it: the bits to set (f.TableSet and the leaf's f.TableCopy bits: also what a new table entry
// gets) and the bits to clear (the f.TableClear bits the leaf lacks).
func (f *Format) widening(flags uint64) (grow, strip uint64) {
	return f.TableSet | flags&f.TableCopy, f.TableClear &^ flags
}

// widens reports whether the format ever widens a table entry: whether table entries have more
// than the table type, or leaves have bits to copy up or clear.
func (f *Format) widens() bool { return f.TableSet != f.Table || f.TableCopy|f.TableClear != 0 }

// widen sets grow and clears strip in the table entry e, storing only when that changes it.
func widen(e *uint64, grow, strip uint64) {
	if v := (*e | grow) &^ strip; v != *e {
		*e = v
	}
}

// leafOK checks what Map and MapHuge share: a va inside the translated ranges, va and pa aligned
// to size, a pa that f.Addr keeps whole, and flags inside allowed.
func (f *Format) leafOK(va, pa uintptr, flags, allowed uint64, size uintptr) bool {
	return f.translated(va) && (va|pa)&(size-1) == 0 && uint64(pa)&^f.Addr == 0 && flags&^allowed == 0
}

// translated reports whether va is inside the format's translated ranges.
func (f *Format) translated(va uintptr) bool {
	return va < f.LowEnd || f.HighStart != 0 && va >= f.HighStart
}
