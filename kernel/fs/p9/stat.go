package p9

import "math"

// File-type bits of st_mode (include/uapi/linux/stat.h) and the d_type values of a directory
// entry (DT_*, include/linux/fs_types.h), which are the type bits shifted down by 12.
const (
	S_IFMT   = 0o170000
	S_IFSOCK = 0o140000
	S_IFLNK  = 0o120000
	S_IFREG  = 0o100000
	S_IFBLK  = 0o060000
	S_IFDIR  = 0o040000
	S_IFCHR  = 0o020000
	S_IFIFO  = 0o010000

	DT_UNKNOWN = 0
	DT_FIFO    = 1
	DT_CHR     = 2
	DT_DIR     = 4
	DT_BLK     = 6
	DT_REG     = 8
	DT_LNK     = 10
	DT_SOCK    = 12
)

// Timespec is a time as stat(2) reports it: Nsec in [0, 1e9).
type Timespec struct {
	Sec  int64
	Nsec int64
}

// Stat is what stat(2) reports of a file, before it is laid out in an architecture's struct
// stat or in a statx. Dev is the mount's, which 9P does not know: the caller sets it.
type Stat struct {
	Dev     uint64
	Ino     uint64
	Mode    uint32
	Nlink   uint32
	Uid     uint32
	Gid     uint32
	Rdev    uint64
	Size    int64
	Blksize int32
	Blocks  int64
	Atime   Timespec
	Mtime   Timespec
	Ctime   Timespec
	Btime   Timespec
}

// defaultBlksize is st_blksize when the server gives none: a page.
const defaultBlksize = 4096

// Stat maps an Rgetattr to stat fields. As in Linux's v9fs_stat2inode_dotl, only the fields
// the server marked valid are taken; the others keep a default (zero; one link; a page for the
// block size). The inode number is the qid's path, and a mode without file-type bits takes
// them from the qid. Values a Linux stat cannot hold are clamped rather than wrapped.
func (a Attr) Stat() Stat {
	s := Stat{Ino: a.Qid.Path, Nlink: 1, Blksize: defaultBlksize}
	if a.Valid&GetattrMode != 0 {
		s.Mode = a.Mode
	}
	if s.Mode&S_IFMT == 0 {
		s.Mode |= QidMode(a.Qid)
	}
	if a.Valid&GetattrNlink != 0 {
		s.Nlink = uint32(min(a.Nlink, math.MaxUint32))
	}
	if a.Valid&GetattrUid != 0 {
		s.Uid = a.Uid
	}
	if a.Valid&GetattrGid != 0 {
		s.Gid = a.Gid
	}
	if a.Valid&GetattrRdev != 0 {
		s.Rdev = a.Rdev
	}
	if a.Valid&GetattrSize != 0 {
		s.Size = clampInt64(a.Size)
	}
	if a.Valid&GetattrBlocks != 0 {
		s.Blocks = clampInt64(a.Blocks)
		if a.Blksize != 0 {
			s.Blksize = int32(min(a.Blksize, math.MaxInt32))
		}
	}
	if a.Valid&GetattrAtime != 0 {
		s.Atime = a.Atime.timespec()
	}
	if a.Valid&GetattrMtime != 0 {
		s.Mtime = a.Mtime.timespec()
	}
	if a.Valid&GetattrCtime != 0 {
		s.Ctime = a.Ctime.timespec()
	}
	if a.Valid&GetattrBtime != 0 {
		s.Btime = a.Btime.timespec()
	}
	return s
}

func (t Time) timespec() Timespec {
	return Timespec{Sec: clampInt64(t.Sec), Nsec: int64(min(t.Nsec, 999_999_999))}
}

func clampInt64(v uint64) int64 { return int64(min(v, math.MaxInt64)) }

// QidMode returns the st_mode file type a qid's type bits imply: a directory, a symbolic link
// or (anything else) a regular file. 9P2000.L qids carry no other types.
func QidMode(q Qid) uint32 {
	switch {
	case q.Type&QTDIR != 0:
		return S_IFDIR
	case q.Type&QTSYMLINK != 0:
		return S_IFLNK
	}
	return S_IFREG
}

// ModeType returns the d_type of a file with st_mode mode.
func ModeType(mode uint32) uint8 { return uint8((mode & S_IFMT) >> 12) }

// DirentType returns the d_type getdents64 reports for e: the server's, or, if it sent
// DT_UNKNOWN, the one its qid implies.
func DirentType(e Dirent) uint8 {
	if e.Type != DT_UNKNOWN {
		return e.Type
	}
	return ModeType(QidMode(e.Qid))
}
