package p9

import (
	"math"
	"syscall"
	"testing"

	"github.com/unitrace/unitrace/kernel/abi"
	"github.com/unitrace/unitrace/kernel/fs"
)

// TestLinuxConstants pins the Linux values this package keeps itself (package fs has the rest)
// against package syscall's, the host's.
func TestLinuxConstants(t *testing.T) {
	for _, tt := range []struct {
		name      string
		got, want int
	}{
		{"EHWPOISON", lastErrno, int(syscall.ERFKILL) + 1}, // the errno after ERFKILL, the last
		{"O_DSYNC", oDsync, syscall.O_DSYNC}, {"O_NOATIME", oNoatime, syscall.O_NOATIME},
		{"O_SYNC", oSyncBit | oDsync, syscall.O_SYNC},
		{"P9_DOTL_AT_REMOVEDIR", AtRemovedir, fs.AT_REMOVEDIR},
		{"PATH_MAX", MaxPath + 1, syscall.PathMax},
		// The running architecture's moved bits (not O_LARGEFILE: package syscall has 0 for it on
		// 64-bit machines, whose kernels imply it).
		{"O_DIRECT", int(openBits.direct), syscall.O_DIRECT},
		{"O_DIRECTORY", int(openBits.directory), syscall.O_DIRECTORY}, {"O_NOFOLLOW", int(openBits.nofollow), syscall.O_NOFOLLOW},
	} {
		if tt.got != tt.want {
			t.Errorf("%s = %#o, want %#o", tt.name, tt.got, tt.want)
		}
	}
}

// TestOpenFlagBits checks both architectures' open flags (asm-generic/fcntl.h, arm64's
// asm/fcntl.h) and their translation: the generic ones are the Dotl values themselves.
func TestOpenFlagBits(t *testing.T) {
	if genericOpenBits != (archOpenBits{DotlDirect, DotlLargefile, DotlDirectory, DotlNofollow}) {
		t.Errorf("generic bits %+v", genericOpenBits)
	}
	if arm64OpenBits != (archOpenBits{direct: 0o200000, largefile: 0o400000, directory: 0o40000, nofollow: 0o100000}) {
		t.Errorf("arm64 bits %+v", arm64OpenBits)
	}
	for _, tt := range []struct {
		arch       archOpenBits
		linux, got uint32
	}{
		{genericOpenBits, fs.O_ACCMODE, DotlNoaccess},
		{genericOpenBits, 0o2 | fs.O_TRUNC | fs.O_APPEND | fs.O_CREAT | fs.O_EXCL | fs.O_CLOEXEC | fs.O_NOCTTY, DotlRdwr | DotlTrunc | DotlAppend},
		{genericOpenBits, 0o200000 | 0o400000, DotlDirectory | DotlNofollow},
		{genericOpenBits, oSyncBit | oDsync | fs.O_NONBLOCK | oNoatime, DotlSync | DotlDsync | DotlNonblock | DotlNoatime},
		{genericOpenBits, 0o40000 | 0o100000, DotlDirect | DotlLargefile},
		{arm64OpenBits, 0o40000, DotlDirectory},
		{arm64OpenBits, 0o100000, DotlNofollow},
		{arm64OpenBits, 0o200000, DotlDirect},
		{arm64OpenBits, 0o400000 | 1, DotlLargefile | DotlWronly},
		{genericOpenBits, 0o10000000 | 0o20000000, 0}, // O_PATH, __O_TMPFILE
	} {
		if got := openFlags(tt.linux, tt.arch); got != tt.got {
			t.Errorf("openFlags(%#o, %+v) = %#o, want %#o", tt.linux, tt.arch, got, tt.got)
		}
	}
	if OpenFlags(syscall.O_RDONLY|syscall.O_DIRECTORY) != DotlDirectory {
		t.Errorf("OpenFlags(O_DIRECTORY) = %#o", OpenFlags(syscall.O_DIRECTORY))
	}
}

func TestErrno(t *testing.T) {
	for ecode, want := range map[uint32]int{
		0: abi.EPROTO, 2: abi.ENOENT, 39: abi.ENOTEMPTY, 133: 133, 134: abi.EPROTO, 512: abi.EPROTO, math.MaxUint32: abi.EPROTO,
	} {
		if got := Errno(ecode); got != want {
			t.Errorf("Errno(%d) = %d, want %d", ecode, got, want)
		}
	}
}

func TestStat(t *testing.T) {
	full := Attr{Valid: GetattrAll, Qid: Qid{Path: 42}, Mode: fs.S_IFREG | 0o640, Uid: 1, Gid: 2, Nlink: 3, Rdev: 4,
		Size: 5, Blksize: 8192, Blocks: 6, Atime: Time{7, 8}, Mtime: Time{9, 10}, Ctime: Time{11, 12}, Btime: Time{13, 14}}
	want := fs.Stat{Ino: 42, Mode: fs.S_IFREG | 0o640, Nlink: 3, Uid: 1, Gid: 2, Rdev: 4, Size: 5, Blksize: 8192, Blocks: 6,
		Atime: fs.Timespec{Sec: 7, Nsec: 8}, Mtime: fs.Timespec{Sec: 9, Nsec: 10}, Ctime: fs.Timespec{Sec: 11, Nsec: 12}, Btime: fs.Timespec{Sec: 13, Nsec: 14}}
	if got := full.Stat(); got != want {
		t.Errorf("full: %+v\nwant %+v", got, want)
	}
	// Only what is valid is taken; the file type comes from the qid when the mode lacks it.
	part := full
	part.Valid = GetattrSize
	if got := part.Stat(); got != (fs.Stat{Ino: 42, Mode: fs.S_IFREG, Nlink: 1, Size: 5, Blksize: 4096}) {
		t.Errorf("size only: %+v", got)
	}
	dir := Attr{Valid: GetattrMode, Qid: Qid{Type: QTDIR}, Mode: 0o755}
	if got := dir.Stat().Mode; got != fs.S_IFDIR|0o755 {
		t.Errorf("typeless dir mode %o", got)
	}
	// Values stat cannot hold are clamped.
	huge := Attr{Valid: GetattrBasic | GetattrBtime, Nlink: 1 << 40, Size: math.MaxUint64, Blocks: math.MaxUint64,
		Blksize: 1 << 40, Mtime: Time{math.MaxUint64, 5e9}}
	got := huge.Stat()
	if got.Nlink != math.MaxUint32 || got.Size != math.MaxInt64 || got.Blocks != math.MaxInt64 ||
		got.Blksize != math.MaxInt32 || got.Mtime != (fs.Timespec{Sec: math.MaxInt64, Nsec: 999_999_999}) {
		t.Errorf("clamped: %+v", got)
	}

	for _, tt := range []struct {
		qid  Qid
		mode uint32
		dt   uint8
	}{
		{Qid{Type: QTDIR}, fs.S_IFDIR, fs.DT_DIR},
		{Qid{Type: QTDIR | QTAPPEND}, fs.S_IFDIR, fs.DT_DIR},
		{Qid{Type: QTSYMLINK}, fs.S_IFLNK, fs.DT_LNK},
		{Qid{Type: QTFILE}, fs.S_IFREG, fs.DT_REG},
		{Qid{Type: QTTMP | QTEXCL}, fs.S_IFREG, fs.DT_REG},
	} {
		if m := QidMode(tt.qid); m != tt.mode {
			t.Errorf("QidMode(%#x) = %o", tt.qid.Type, m)
		}
		if dt := DirentType(Dirent{Qid: tt.qid}); dt != tt.dt {
			t.Errorf("DirentType of unknown %#x = %d", tt.qid.Type, dt)
		}
		if dt := DirentType(Dirent{Qid: tt.qid, Type: fs.DT_SOCK}); dt != fs.DT_SOCK {
			t.Errorf("DirentType keeps the server's: %d", dt)
		}
	}
}

func TestPathNames(t *testing.T) {
	for _, tt := range []struct {
		path string
		want []string
	}{
		{"", nil}, {"/", nil}, {".", nil}, {"./", nil}, {"//././/", nil},
		{"a", []string{"a"}}, {"/a/", []string{"a"}}, {"a//b", []string{"a", "b"}},
		{"./a/./b/.", []string{"a", "b"}}, {"../a/..", []string{"..", "a", ".."}}, {".a/..b/...", []string{".a", "..b", "..."}},
	} {
		var got []string
		for off := 0; ; {
			name, next := nextName([]byte(tt.path), off)
			if len(name) == 0 {
				break
			}
			got = append(got, string(name))
			off = next
		}
		if len(got) != len(tt.want) {
			t.Errorf("%q: %q, want %q", tt.path, got, tt.want)
			continue
		}
		for i := range got {
			if got[i] != tt.want[i] {
				t.Errorf("%q: %q, want %q", tt.path, got, tt.want)
			}
		}
	}
}
