package fs

// Timespec is a time as Linux's struct timespec holds it: seconds and nanoseconds since the
// epoch, Nsec in [0, 1e9).
type Timespec struct {
	Sec  int64
	Nsec int64
}

// Before reports whether t is earlier than u.
func (t Timespec) Before(u Timespec) bool {
	return t.Sec < u.Sec || t.Sec == u.Sec && t.Nsec < u.Nsec
}

// Stat is what stat and statx report about a file, before it is laid out for one of them.
type Stat struct {
	Dev     uint64 // the file system's device number (Mkdev)
	Ino     uint64
	Mode    uint32 // file type and permission bits
	Nlink   uint32
	Uid     uint32
	Gid     uint32
	Rdev    uint64 // device number of a character or block device (Mkdev)
	Size    int64
	Blksize int32 // preferred I/O size
	Blocks  int64 // 512-byte units allocated
	Atime   Timespec
	Mtime   Timespec
	Ctime   Timespec
	Btime   Timespec // creation (statx's stx_btime)
}

// Statfs is what statfs and fstatfs report about a file system.
type Statfs struct {
	Type    int64 // f_type: the file system's magic number
	Bsize   int64 // f_bsize and f_frsize: the block size
	Blocks  uint64
	Bfree   uint64
	Bavail  uint64
	Files   uint64
	Ffree   uint64
	Namelen int64
	Flags   uint64 // f_flags: ST_RDONLY for a read-only file system
}
