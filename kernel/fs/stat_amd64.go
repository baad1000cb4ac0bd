package fs

// struct stat on amd64 (arch/x86/include/uapi/asm/stat.h): st_nlink comes before st_mode and
// is 8 bytes, as is st_blksize. statabi_test.go checks the offsets against syscall.Stat_t.
const (
	StatSize       = 144
	statDev        = 0
	statIno        = 8
	statNlink      = 16
	statNlinkSize  = 8
	statMode       = 24
	statUid        = 28
	statGid        = 32
	statRdev       = 40
	statSize       = 48
	statBlksize    = 56
	statBlksizeLen = 8
	statBlocks     = 64
	statAtime      = 72
	statMtime      = 88
	statCtime      = 104
)
