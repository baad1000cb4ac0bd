package symtab

// region is the half-open byte range [start, end) of one subtable inside the
// pclntab. Positions are uint64 so that sums of a position and a 32-bit
// offset read from the table cannot wrap.
type region struct{ start, end uint64 }

// contains reports whether the n bytes at pos lie inside r.
func (r region) contains(pos, n uint64) bool {
	return pos >= r.start && pos <= r.end && r.end-pos >= n
}

// le32 reads the little-endian uint32 at pos of b. Both guest architectures
// are little-endian, and New rejects a table whose magic reads otherwise.
func le32(b []byte, pos uint64) (uint32, bool) {
	if pos > uint64(len(b)) || uint64(len(b))-pos < 4 {
		return 0, false
	}
	i := int(pos)
	return uint32(b[i]) | uint32(b[i+1])<<8 | uint32(b[i+2])<<16 | uint32(b[i+3])<<24, true
}

// word reads the little-endian unsigned integer of size bytes (4 or 8) at
// pos of b: the pcHeader's fields are target-pointer sized.
func word(b []byte, pos uint64, size uint64) (uint64, bool) {
	lo, ok := le32(b, pos)
	if !ok || size == 4 {
		return uint64(lo), ok
	}
	hi, ok := le32(b, pos+4)
	return uint64(lo) | uint64(hi)<<32, ok
}

// uvarint decodes the runtime's varint (7 bits a byte, least significant
// group first, high bit set on all but the last byte) at pos, which must lie
// in r. It returns the value truncated to 32 bits as runtime.readvarint does,
// and the number of bytes read, 0 when the varint runs past r.
func uvarint(b []byte, r region, pos uint64) (uint32, uint64) {
	var v, shift uint32
	for n := uint64(0); ; n++ {
		p := pos + n
		if !r.contains(p, 1) || p >= uint64(len(b)) {
			return 0, 0
		}
		c := b[p]
		v |= uint32(c&0x7f) << (shift & 31)
		if c&0x80 == 0 {
			return v, n + 1
		}
		shift += 7
	}
}

// cstring returns the NUL-terminated string at offset off of r, without the
// NUL; ok is false when off is outside r or no NUL ends the string inside r.
func cstring(b []byte, r region, off uint64) ([]byte, bool) {
	if r.start > r.end || r.end > uint64(len(b)) || off >= r.end-r.start {
		return nil, false
	}
	start := r.start + off
	for p := start; p < r.end; p++ {
		if b[p] == 0 {
			return b[start:p:p], true
		}
	}
	return nil, false
}
