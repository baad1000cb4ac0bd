package sysvshm

import "encoding/binary"

// The structures shmctl(2) copies, as a 64-bit Linux lays them out (amd64 and arm64 alike:
// include/uapi/asm-generic/ipcbuf.h, shmbuf.h and include/uapi/linux/shm.h).
const (
	// DescSize is struct shmid64_ds: struct ipc64_perm (key, uid, gid, cuid, cgid, mode, seq,
	// two unused longs: 48 bytes), then shm_segsz, the three times, cpid, lpid, shm_nattch and
	// two unused longs.
	DescSize = 112
	// InfoSize is struct shminfo64: shmmax, shmmin, shmmni, shmseg, shmall and four unused longs.
	InfoSize = 72
	// UsageSize is struct shm_info: used_ids (an int, padded), shm_tot, shm_rss, shm_swp,
	// swap_attempts, swap_successes.
	UsageSize = 48

	descKey, descUID, descGID, descCUID, descCGID, descMode, descSeq = 0, 4, 8, 12, 16, 20, 24
	descSegsz, descAtime, descDtime, descCtime                       = 48, 56, 64, 72
	descCPID, descLPID, descNattch                                   = 80, 84, 88
)

// PutDesc writes s as IPC_STAT's struct shmid64_ds into b (DescSize bytes).
func (s *Segment) PutDesc(b []byte) {
	b = b[:DescSize]
	clear(b)
	le := binary.LittleEndian
	le.PutUint32(b[descKey:], uint32(s.Key))
	le.PutUint32(b[descUID:], s.UID)
	le.PutUint32(b[descGID:], s.GID)
	le.PutUint32(b[descCUID:], s.CUID)
	le.PutUint32(b[descCGID:], s.CGID)
	le.PutUint32(b[descMode:], s.Mode)
	le.PutUint16(b[descSeq:], s.Seq)
	le.PutUint64(b[descSegsz:], uint64(s.Size))
	le.PutUint64(b[descAtime:], uint64(s.Atime))
	le.PutUint64(b[descDtime:], uint64(s.Dtime))
	le.PutUint64(b[descCtime:], uint64(s.Ctime))
	le.PutUint32(b[descCPID:], uint32(s.CPID))
	le.PutUint32(b[descLPID:], uint32(s.LPID))
	le.PutUint64(b[descNattch:], s.Attached)
}

// DescPerm reads what IPC_SET takes from a struct shmid64_ds: shm_perm's uid, gid and mode.
func DescPerm(b []byte) (uid, gid, mode uint32) {
	b = b[:DescSize]
	le := binary.LittleEndian
	return le.Uint32(b[descUID:]), le.Uint32(b[descGID:]), le.Uint32(b[descMode:])
}

// PutInfo writes IPC_INFO's struct shminfo64, the table's limits, into b (InfoSize bytes): the
// largest segment, the smallest (1 byte), the most segments, the most a process may attach (no
// limit of its own: the most segments) and the most pages in all.
func PutInfo(b []byte) {
	b = b[:InfoSize]
	clear(b)
	le := binary.LittleEndian
	le.PutUint64(b[0:], MaxPages*PageSize)
	le.PutUint64(b[8:], 1)
	le.PutUint64(b[16:], MaxSegments)
	le.PutUint64(b[24:], MaxSegments)
	le.PutUint64(b[32:], MaxPages)
}

// PutUsage writes SHM_INFO's struct shm_info into b (UsageSize bytes): every page is resident
// and none is ever swapped.
func (t *Table) PutUsage(b []byte) {
	b = b[:UsageSize]
	clear(b)
	segments, pages, _ := t.Usage()
	le := binary.LittleEndian
	le.PutUint32(b[0:], uint32(segments))
	le.PutUint64(b[8:], pages)
	le.PutUint64(b[16:], pages)
}
