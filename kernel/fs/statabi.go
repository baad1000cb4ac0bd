package fs

// PutStat lays st out as the kernel's struct stat for fstat, newfstatat and stat (StatSize
// bytes, little-endian) at the start of dst, zeroing the padding; it reports false if dst is
// shorter.
func PutStat(dst []byte, st *Stat) bool {
	if len(dst) < StatSize {
		return false
	}
	b := dst[:StatSize]
	clear(b)
	putLE(b[statDev:statDev+8], st.Dev)
	putLE(b[statIno:statIno+8], st.Ino)
	putLE(b[statNlink:statNlink+statNlinkSize], uint64(st.Nlink))
	putLE(b[statMode:statMode+4], uint64(st.Mode))
	putLE(b[statUid:statUid+4], uint64(st.Uid))
	putLE(b[statGid:statGid+4], uint64(st.Gid))
	putLE(b[statRdev:statRdev+8], st.Rdev)
	putLE(b[statSize:statSize+8], uint64(st.Size))
	putLE(b[statBlksize:statBlksize+statBlksizeLen], uint64(st.Blksize))
	putLE(b[statBlocks:statBlocks+8], uint64(st.Blocks))
	putTime(b[statAtime:], st.Atime)
	putTime(b[statMtime:], st.Mtime)
	putTime(b[statCtime:], st.Ctime)
	return true
}

func putTime(b []byte, t Timespec) {
	putLE(b[0:8], uint64(t.Sec))
	putLE(b[8:16], uint64(t.Nsec))
}

// struct statx (include/uapi/linux/stat.h), the same on every architecture.
const (
	StatxSize         = 256
	statxMask         = 0     // u32
	statxBlksize      = 4     // u32
	statxNlink        = 16    // u32
	statxUid          = 20    // u32
	statxGid          = 24    // u32
	statxMode         = 28    // u16
	statxIno          = 32    // u64
	statxSize         = 40    // u64
	statxBlocks       = 48    // u64
	statxAtime        = 64    // struct statx_timestamp: s64 tv_sec, u32 tv_nsec, s32 reserved
	statxBtime        = 80    //
	statxCtime        = 96    //
	statxMtime        = 112   //
	statxRdevMajor    = 128   // u32
	statxRdevMinor    = 132   // u32
	statxDevMajor     = 136   // u32
	statxDevMinor     = 140   // u32
	STATX_BASIC_STATS = 0x7ff // type, mode, nlink, uid, gid, atime, mtime, ctime, ino, size, blocks
	STATX_BTIME       = 0x800
)

// PutStatx lays st out as struct statx at the start of dst and reports false if dst is shorter.
// Every field memfs knows is filled, whatever the caller asked for, and stx_mask says so
// (STATX_BASIC_STATS|STATX_BTIME), as Linux allows.
func PutStatx(dst []byte, st *Stat) bool {
	if len(dst) < StatxSize {
		return false
	}
	b := dst[:StatxSize]
	clear(b)
	putLE(b[statxMask:statxMask+4], STATX_BASIC_STATS|STATX_BTIME)
	putLE(b[statxBlksize:statxBlksize+4], uint64(st.Blksize))
	putLE(b[statxNlink:statxNlink+4], uint64(st.Nlink))
	putLE(b[statxUid:statxUid+4], uint64(st.Uid))
	putLE(b[statxGid:statxGid+4], uint64(st.Gid))
	putLE(b[statxMode:statxMode+2], uint64(st.Mode))
	putLE(b[statxIno:statxIno+8], st.Ino)
	putLE(b[statxSize:statxSize+8], uint64(st.Size))
	putLE(b[statxBlocks:statxBlocks+8], uint64(st.Blocks))
	putStatxTime(b[statxAtime:], st.Atime)
	putStatxTime(b[statxBtime:], st.Btime)
	putStatxTime(b[statxCtime:], st.Ctime)
	putStatxTime(b[statxMtime:], st.Mtime)
	putLE(b[statxRdevMajor:statxRdevMajor+4], uint64(Major(st.Rdev)))
	putLE(b[statxRdevMinor:statxRdevMinor+4], uint64(Minor(st.Rdev)))
	putLE(b[statxDevMajor:statxDevMajor+4], uint64(Major(st.Dev)))
	putLE(b[statxDevMinor:statxDevMinor+4], uint64(Minor(st.Dev)))
	return true
}

func putStatxTime(b []byte, t Timespec) {
	putLE(b[0:8], uint64(t.Sec))
	putLE(b[8:12], uint64(t.Nsec))
}

// Major and Minor take a Mkdev number apart.
func Major(dev uint64) uint32 { return uint32(dev>>8&0xfff | dev>>32&^0xfff) }
func Minor(dev uint64) uint32 { return uint32(dev&0xff | dev>>12&^0xff) }

// struct statfs on 64-bit Linux (asm-generic/statfs.h, which amd64's x86_64 layout matches):
// eight-byte words throughout, f_fsid two four-byte halves. statabi_test.go checks the offsets
// against syscall.Statfs_t.
const (
	StatfsSize    = 120
	statfsType    = 0
	statfsBsize   = 8
	statfsBlocks  = 16
	statfsBfree   = 24
	statfsBavail  = 32
	statfsFiles   = 40
	statfsFfree   = 48
	statfsFsid    = 56
	statfsNamelen = 64
	statfsFrsize  = 72
	statfsFlags   = 80
)

// PutStatfs lays st out as struct statfs at the start of dst (the file system id is fsid, the
// spare words zero) and reports false if dst is shorter.
func PutStatfs(dst []byte, st *Statfs, fsid uint64) bool {
	if len(dst) < StatfsSize {
		return false
	}
	b := dst[:StatfsSize]
	clear(b)
	putLE(b[statfsType:statfsType+8], uint64(st.Type))
	putLE(b[statfsBsize:statfsBsize+8], uint64(st.Bsize))
	putLE(b[statfsBlocks:statfsBlocks+8], st.Blocks)
	putLE(b[statfsBfree:statfsBfree+8], st.Bfree)
	putLE(b[statfsBavail:statfsBavail+8], st.Bavail)
	putLE(b[statfsFiles:statfsFiles+8], st.Files)
	putLE(b[statfsFfree:statfsFfree+8], st.Ffree)
	putLE(b[statfsFsid:statfsFsid+8], fsid)
	putLE(b[statfsNamelen:statfsNamelen+8], uint64(st.Namelen))
	putLE(b[statfsFrsize:statfsFrsize+8], uint64(st.Bsize))
	putLE(b[statfsFlags:statfsFlags+8], st.Flags)
	return true
}
