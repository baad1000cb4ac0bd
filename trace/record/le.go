package record

// Little-endian helpers. The callers check bounds first; these are small
// enough to inline, so the encoders stay leaf functions with tiny frames.

//go:nosplit
func put16(b []byte, off int, v uint16) {
	_ = b[off+1]
	b[off] = byte(v)
	b[off+1] = byte(v >> 8)
}

//go:nosplit
func put32(b []byte, off int, v uint32) {
	_ = b[off+3]
	b[off] = byte(v)
	b[off+1] = byte(v >> 8)
	b[off+2] = byte(v >> 16)
	b[off+3] = byte(v >> 24)
}

//go:nosplit
func put64(b []byte, off int, v uint64) {
	_ = b[off+7]
	for i := 0; i < 8; i++ {
		b[off+i] = byte(v >> (8 * i))
	}
}

//go:nosplit
func get16(b []byte, off int) uint16 {
	_ = b[off+1]
	return uint16(b[off]) | uint16(b[off+1])<<8
}

//go:nosplit
func get32(b []byte, off int) uint32 {
	_ = b[off+3]
	return uint32(b[off]) | uint32(b[off+1])<<8 | uint32(b[off+2])<<16 | uint32(b[off+3])<<24
}

//go:nosplit
func get64(b []byte, off int) uint64 {
	_ = b[off+7]
	var v uint64
	for i := 0; i < 8; i++ {
		v |= uint64(b[off+i]) << (8 * i)
	}
	return v
}
