package fdt

// Magic is the first big-endian word of a flattened device tree.
const Magic = 0xd00dfeed

// The versions this reader understands: 17 is what dtc and QEMU write, and
// 16 differs only by a header without size_dt_struct.
const (
	MinVersion  = 16
	ReadVersion = 17
)

// Header offsets (spec 5.2); every field is a big-endian uint32.
const (
	hMagic           = 0
	hTotalSize       = 4
	hOffStruct       = 8
	hOffStrings      = 12
	hOffRsvmap       = 16
	hVersion         = 20
	hLastCompVersion = 24
	hBootCPU         = 28
	hSizeStrings     = 32
	hSizeStruct      = 36
	headerSizeV16    = 36
	headerSizeV17    = 40
)

// Blob is a flattened device tree: the bytes from its header on. It may be
// longer than the tree (a capped view of guest memory); everything past the
// header's totalsize is ignored.
type Blob []byte

// Header is the validated header: offsets and sizes are in bytes from the
// start of the blob, and each block lies inside [0, TotalSize).
type Header struct {
	TotalSize       uint32
	Version         uint32
	LastCompVersion uint32
	BootCPU         uint32 // physical id (reg) of the boot CPU
	OffRsvmap       uint32
	OffStruct       uint32
	SizeStruct      uint32
	OffStrings      uint32
	SizeStrings     uint32
}

// TotalSize reads the magic and totalsize, the 8 bytes a kernel needs to
// size its view of the blob before anything else.
func TotalSize(b []byte) (uint32, Err) {
	magic, ok := be32(b, hMagic)
	if !ok {
		return 0, ErrTruncated
	}
	if magic != Magic {
		return 0, ErrBadMagic
	}
	size, ok := be32(b, hTotalSize)
	if !ok {
		return 0, ErrTruncated
	}
	return size, OK
}

// Header checks and returns the header (spec 5.2): magic, a version this
// reader understands, a totalsize that fits in the blob, and the three
// blocks inside the blob with the memory reservation map 8-aligned and the
// structure block 4-aligned and a multiple of 4 long. A version 16 header
// has no size_dt_struct; the structure block then runs to totalsize.
func (b Blob) Header() (Header, Err) {
	var h Header
	total, err := TotalSize(b)
	if err != OK {
		return h, err
	}
	if len(b) < headerSizeV16 {
		return h, ErrTruncated
	}
	h.TotalSize = total
	h.Version, _ = be32(b, hVersion)
	h.LastCompVersion, _ = be32(b, hLastCompVersion)
	h.BootCPU, _ = be32(b, hBootCPU)
	h.OffStruct, _ = be32(b, hOffStruct)
	h.OffStrings, _ = be32(b, hOffStrings)
	h.OffRsvmap, _ = be32(b, hOffRsvmap)
	h.SizeStrings, _ = be32(b, hSizeStrings)
	if h.Version < MinVersion || h.LastCompVersion > ReadVersion {
		return h, ErrVersion
	}
	hsize := uint32(headerSizeV17)
	if h.Version == MinVersion {
		hsize = headerSizeV16
	}
	if uint64(len(b)) < uint64(hsize) || uint64(len(b)) < uint64(total) {
		return h, ErrTruncated
	}
	if total < hsize {
		return h, ErrLayout
	}
	if hsize == headerSizeV17 {
		h.SizeStruct, _ = be32(b, hSizeStruct)
	} else if h.OffStruct <= total {
		h.SizeStruct = (total - h.OffStruct) &^ 3
	}
	if !block(h.OffRsvmap, rsvEntrySize, hsize, total) || h.OffRsvmap%8 != 0 ||
		!block(h.OffStruct, h.SizeStruct, hsize, total) || h.OffStruct%4 != 0 || h.SizeStruct%4 != 0 ||
		!block(h.OffStrings, h.SizeStrings, hsize, total) {
		return h, ErrLayout
	}
	return h, OK
}

// block reports whether [off, off+size) lies in [lo, hi); the sums are done
// in 64 bits so a huge offset cannot wrap into range.
func block(off, size, lo, hi uint32) bool {
	return off >= lo && uint64(off)+uint64(size) <= uint64(hi)
}

// be32 reads the big-endian word at off, or reports that it is not all
// inside b.
func be32(b []byte, off int) (uint32, bool) {
	if off < 0 || off > len(b)-4 {
		return 0, false
	}
	return uint32(b[off])<<24 | uint32(b[off+1])<<16 | uint32(b[off+2])<<8 | uint32(b[off+3]), true
}

// be64 reads the big-endian double word at off.
func be64(b []byte, off int) (uint64, bool) {
	hi, ok1 := be32(b, off)
	lo, ok2 := be32(b, off+4)
	return uint64(hi)<<32 | uint64(lo), ok1 && ok2
}
