package p9

import "github.com/unitrace/unitrace/kernel/fs"

// Time is a 9P time: seconds and nanoseconds since the epoch, unsigned on the wire.
type Time struct {
	Sec  uint64
	Nsec uint64
}

// Attr is an Rgetattr (struct p9_stat_dotl). Valid holds Getattr* bits: the fields the server
// filled (QEMU fills GetattrBasic whatever the mask asked for); the others are zero.
type Attr struct {
	Valid       uint64
	Qid         Qid
	Mode        uint32 // file type and permission bits, as st_mode
	Uid         uint32
	Gid         uint32
	Nlink       uint64
	Rdev        uint64
	Size        uint64
	Blksize     uint64
	Blocks      uint64 // 512-byte units
	Atime       Time
	Mtime       Time
	Ctime       Time
	Btime       Time
	Gen         uint64
	DataVersion uint64
}

// Statfs is an Rstatfs (struct p9_rstatfs), what statfs(2) reports of the server's file system.
type Statfs struct {
	Type    uint32
	Bsize   uint32
	Blocks  uint64
	Bfree   uint64
	Bavail  uint64
	Files   uint64
	Ffree   uint64
	Fsid    uint64
	Namelen uint32
}

// FS returns what statfs(2) reports of the server's file system (fsid aside: 9P has it, stat
// layouts take it from the mount).
func (s Statfs) FS() fs.Statfs {
	return fs.Statfs{Type: int64(s.Type), Bsize: int64(s.Bsize), Blocks: s.Blocks, Bfree: s.Bfree, Bavail: s.Bavail,
		Files: s.Files, Ffree: s.Ffree, Namelen: int64(s.Namelen)}
}
