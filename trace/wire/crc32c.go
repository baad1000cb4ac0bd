package wire

import "encoding/binary"

// CRC32C (Castagnoli, reflected polynomial 0x82f63b78), the frames' checksum, computed here
// rather than by hash/crc32: that package makes its SSE4.2 tables the first time a Castagnoli
// table is asked for, about 1.5 MB of CRC32 instructions, which under TCG took about 20 ms of
// every boot at this package's init; and the kernel, which checksums the frames it builds, must
// not be the first to ask (its lazy set-up takes a lock that can park). These tables cost 8 KiB
// and a few thousand operations at init. TestCRC32C checks them against hash/crc32.

const castagnoliPoly = 0x82f63b78

// crc32cTables is the slicing-by-8 table set: [0] is the byte-at-a-time table, [k][b] the CRC of
// byte b followed by k zero bytes.
var crc32cTables = func() (t [8][256]uint32) {
	for b := range 256 {
		c := uint32(b)
		for range 8 {
			if c&1 != 0 {
				c = c>>1 ^ castagnoliPoly
			} else {
				c >>= 1
			}
		}
		t[0][b] = c
	}
	for b := range 256 {
		c := t[0][b]
		for k := 1; k < 8; k++ {
			c = t[0][c&0xff] ^ c>>8
			t[k][b] = c
		}
	}
	return t
}()

// crc32c continues the CRC32C crc (0 to start) over p, as crc32.Update(crc, castagnoli, p).
func crc32c(crc uint32, p []byte) uint32 {
	t := &crc32cTables
	crc = ^crc
	for len(p) >= 8 {
		crc ^= binary.LittleEndian.Uint32(p)
		hi := binary.LittleEndian.Uint32(p[4:])
		crc = t[7][crc&0xff] ^ t[6][crc>>8&0xff] ^ t[5][crc>>16&0xff] ^ t[4][crc>>24] ^
			t[3][hi&0xff] ^ t[2][hi>>8&0xff] ^ t[1][hi>>16&0xff] ^ t[0][hi>>24]
		p = p[8:]
	}
	for _, b := range p {
		crc = t[0][byte(crc)^b] ^ crc>>8
	}
	return ^crc
}
