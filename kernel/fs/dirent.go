package fs

// A linux_dirent64 record, as getdents64 returns them (linux/dirent.h):
//
//	d_ino    u64 at 0
//	d_off    s64 at 8   the cookie of the next entry: where a later call resumes
//	d_reclen u16 at 16  the record's length, a multiple of 8
//	d_type   u8  at 18  DT_*
//	d_name       at 19  NUL-terminated, then zeros up to d_reclen
const direntNameOff = 19

// DirentLen returns the length of the record for a name of n bytes.
func DirentLen(n int) int { return (direntNameOff + n + 1 + 7) &^ 7 }

// PutDirent writes one linux_dirent64 record at the start of dst and returns its length, or 0
// if it does not fit.
func PutDirent(dst []byte, ino uint64, off int64, typ uint8, name []byte) int {
	n := DirentLen(len(name))
	if len(dst) < n {
		return 0
	}
	rec := dst[:n]
	putLE(rec[0:8], ino)
	putLE(rec[8:16], uint64(off))
	putLE(rec[16:18], uint64(n))
	rec[18] = typ
	copy(rec[direntNameOff:], name)
	clear(rec[direntNameOff+len(name):])
	return n
}

// putLE stores v little-endian in all of b.
func putLE(b []byte, v uint64) {
	for i := range b {
		b[i] = byte(v >> (8 * i))
	}
}
