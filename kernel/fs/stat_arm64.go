package fs

// struct stat on arm64, the generic layout (include/uapi/asm-generic/stat.h): st_mode before a
// 4-byte st_nlink, padding after st_rdev and st_blksize. statabi_test.go checks the offsets
// against syscall.Stat_t when the tests run on arm64.
const (
	StatSize       = 128
	statDev        = 0
	statIno        = 8
	statMode       = 16
	statNlink      = 20
	statNlinkSize  = 4
	statUid        = 24
	statGid        = 28
	statRdev       = 32
	statSize       = 48
	statBlksize    = 56
	statBlksizeLen = 4
	statBlocks     = 64
	statAtime      = 72
	statMtime      = 88
	statCtime      = 104
)
