package fdt

// MaxReservations caps the memory reservation map. QEMU writes none; a
// longer map than this is treated as corrupt.
const MaxReservations = 64

// rsvEntrySize is one struct fdt_reserve_entry: address and size, u64 each.
const rsvEntrySize = 16

// Region is [Addr, Addr+Size).
type Region struct {
	Addr, Size uint64
}

// End is the first address after the region; it wraps to 0 for a region
// that reaches the top of the address space.
func (r Region) End() uint64 { return r.Addr + r.Size }

// Reservation returns entry i of the memory reservation map (spec 5.3),
// which the kernel must not allocate from. ErrIndex means i is at or past
// the terminating all-zero entry.
func (b Blob) Reservation(i int) (Region, Err) {
	h, err := b.Header()
	if err != OK {
		return Region{}, err
	}
	n, err := b.reservations(h)
	if err != OK {
		return Region{}, err
	}
	if i < 0 || i >= n {
		return Region{}, ErrIndex
	}
	off := int(h.OffRsvmap) + i*rsvEntrySize
	addr, _ := be64(b, off)
	size, _ := be64(b, off+8)
	return Region{Addr: addr, Size: size}, OK
}

// reservations counts the entries before the terminator: ErrReservations
// if the map runs past totalsize or holds more than MaxReservations.
func (b Blob) reservations(h Header) (int, Err) {
	for n := 0; n <= MaxReservations; n++ {
		off := int(h.OffRsvmap) + n*rsvEntrySize
		if uint64(off)+rsvEntrySize > uint64(h.TotalSize) {
			return 0, ErrReservations
		}
		addr, _ := be64(b, off)
		size, _ := be64(b, off+8)
		if addr == 0 && size == 0 {
			return n, OK
		}
	}
	return 0, ErrReservations
}
