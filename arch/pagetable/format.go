package pagetable

// Format is how one architecture encodes translation-table entries, as masks the walker tests
// and sets. Check lists what the walker relies on.
type Format struct {
	// Valid is the bit without which an entry, at any level, maps and points to nothing.
	Valid uint64

	// At levels 3 to 1, e&DirMask tells what an entry is: Table points to a table, Block maps a
	// block (at levels 2 and 1 only: a block at the root is invalid); anything else is invalid.
	DirMask, Table, Block uint64
	// At level 0, an entry with e&PageMask == Page maps a page; anything else is invalid.
	PageMask, Page uint64

	// Addr is the output-address field of a table or page entry: the frame's address. A block
	// uses the part of it at and above the block's size.
	Addr uint64

	// PageFlags and BlockFlags are the attributes a caller may pass for a page (Map, Protect)
	// and a block (MapHuge): a flags word with any other bit is refused.
	PageFlags, BlockFlags uint64
	// PageSet and BlockSet are the bits every page and block entry gets on top of the caller's
	// flags: the valid bit, the type bits, whatever the walker implies (an access flag).
	PageSet, BlockSet uint64

	// TableSet are the bits of every table entry the walker writes. The tables above a leaf must
	// not restrict it: a new table entry also gets the leaf's flags&TableCopy, and on the way to
	// a leaf an existing one gains the leaf's TableCopy bits and loses the TableClear bits the
	// leaf lacks (an execute-never the leaf does not have).
	TableSet, TableCopy, TableClear uint64

	// Translated addresses are [0, LowEnd) and, if HighStart is not 0, [HighStart, 2^64).
	LowEnd, HighStart uintptr
}

// Check reports the first assumption of the walker that f breaks, or "" if f is sound. The arch
// packages' tests run it on their formats.
func (f *Format) Check() string {
	switch {
	case f.Valid == 0 || f.Valid&(f.Valid-1) != 0:
		return "Valid is not a single bit"
	case f.DirMask&f.Valid == 0 || f.PageMask&f.Valid == 0:
		return "DirMask or PageMask does not test the valid bit"
	case f.Table&^f.DirMask != 0 || f.Block&^f.DirMask != 0 || f.Page&^f.PageMask != 0:
		return "Table, Block or Page has bits outside its mask"
	case f.Table&f.Valid == 0 || f.Block&f.Valid == 0 || f.Page&f.Valid == 0:
		return "an invalid entry would pass for a table, a block or a page"
	case f.Table == f.Block:
		return "Table and Block are the same"
	case f.Addr == 0 || f.Addr&(Size4K-1) != 0 || f.Addr&(f.Addr+Size4K) != 0:
		return "Addr is not one contiguous field from bit 12 up"
	case f.Addr&(f.DirMask|f.PageMask|f.PageSet|f.BlockSet|f.TableSet|f.TableCopy|f.TableClear) != 0:
		return "Addr overlaps type or attribute bits"
	case f.PageFlags&f.Addr != 0 || f.BlockFlags&f.Addr != 0:
		return "PageFlags or BlockFlags lets address bits through"
	case f.PageSet&f.PageMask != f.Page || f.PageFlags&f.PageMask&^f.Page != 0:
		return "a page entry would not have the page type"
	case f.BlockSet&f.DirMask != f.Block || f.BlockFlags&f.DirMask&^f.Block != 0:
		return "a block entry would not have the block type"
	case f.TableSet&f.DirMask != f.Table || (f.TableCopy|f.TableClear)&f.DirMask != 0:
		return "a table entry would not have the table type"
	case f.LowEnd == 0 || f.LowEnd&(Size1G-1) != 0:
		return "LowEnd is not a whole number of level-2 entries"
	case f.HighStart != 0 && (f.HighStart <= f.LowEnd || f.HighStart&(Size1G-1) != 0):
		return "HighStart is not above LowEnd or not a whole number of level-2 entries"
	}
	return ""
}
