package p9

import (
	"math"

	"github.com/unitrace/unitrace/kernel/fs"
)

// defaultBlksize is st_blksize when the server gives none: a page.
const defaultBlksize = 4096

// Stat maps an Rgetattr to the fields stat reports. Dev is the mount's, which 9P does not
// know: the caller sets it. As in Linux's v9fs_stat2inode_dotl, only the fields
// the server marked valid are taken; the others keep a default (zero; one link; a page for the
// block size). The inode number is the qid's path, and a mode without file-type bits takes
// them from the qid. Values a Linux stat cannot hold are clamped rather than wrapped.
func (a Attr) Stat() fs.Stat {
	s := fs.Stat{Ino: a.Qid.Path, Nlink: 1, Blksize: defaultBlksize}
	if a.Valid&GetattrMode != 0 {
		s.Mode = a.Mode
	}
	if s.Mode&fs.S_IFMT == 0 {
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

func (t Time) timespec() fs.Timespec {
	return fs.Timespec{Sec: clampInt64(t.Sec), Nsec: int64(min(t.Nsec, 999_999_999))}
}

func clampInt64(v uint64) int64 { return int64(min(v, math.MaxInt64)) }

// QidMode returns the st_mode file type a qid's type bits imply: a directory, a symbolic link
// or (anything else) a regular file. 9P2000.L qids carry no other types.
func QidMode(q Qid) uint32 {
	switch {
	case q.Type&QTDIR != 0:
		return fs.S_IFDIR
	case q.Type&QTSYMLINK != 0:
		return fs.S_IFLNK
	}
	return fs.S_IFREG
}

// DirentType returns the d_type getdents64 reports for e: the server's, or, if it sent
// DT_UNKNOWN, the one its qid implies.
func DirentType(e Dirent) uint8 {
	if e.Type != fs.DT_UNKNOWN {
		return e.Type
	}
	return fs.DirentType(QidMode(e.Qid))
}
