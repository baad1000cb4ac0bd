package p9

import (
	"math"
	"syscall"
	"testing"
)

// TestLinuxConstants pins the Linux values this package mirrors against package syscall's (the
// host's: linux/amd64 or linux/arm64, whose errno, mode and d_type values are the same).
func TestLinuxConstants(t *testing.T) {
	for _, tt := range []struct {
		name      string
		got, want int
	}{
		{"EPERM", EPERM, int(syscall.EPERM)}, {"ENOENT", ENOENT, int(syscall.ENOENT)}, {"EINTR", EINTR, int(syscall.EINTR)},
		{"EIO", EIO, int(syscall.EIO)}, {"EBADF", EBADF, int(syscall.EBADF)}, {"EAGAIN", EAGAIN, int(syscall.EAGAIN)},
		{"ENOMEM", ENOMEM, int(syscall.ENOMEM)}, {"EBUSY", EBUSY, int(syscall.EBUSY)}, {"EEXIST", EEXIST, int(syscall.EEXIST)},
		{"ENOTDIR", ENOTDIR, int(syscall.ENOTDIR)}, {"EISDIR", EISDIR, int(syscall.EISDIR)}, {"EINVAL", EINVAL, int(syscall.EINVAL)},
		{"ENAMETOOLONG", ENAMETOOLONG, int(syscall.ENAMETOOLONG)}, {"ENOTEMPTY", ENOTEMPTY, int(syscall.ENOTEMPTY)},
		{"EPROTO", EPROTO, int(syscall.EPROTO)}, {"EHWPOISON", EHWPOISON, 133}, {"the last errno", EHWPOISON, int(syscall.ERFKILL) + 1},
		{"S_IFMT", S_IFMT, syscall.S_IFMT}, {"S_IFSOCK", S_IFSOCK, syscall.S_IFSOCK}, {"S_IFLNK", S_IFLNK, syscall.S_IFLNK},
		{"S_IFREG", S_IFREG, syscall.S_IFREG}, {"S_IFBLK", S_IFBLK, syscall.S_IFBLK}, {"S_IFDIR", S_IFDIR, syscall.S_IFDIR},
		{"S_IFCHR", S_IFCHR, syscall.S_IFCHR}, {"S_IFIFO", S_IFIFO, syscall.S_IFIFO},
		{"DT_UNKNOWN", DT_UNKNOWN, syscall.DT_UNKNOWN}, {"DT_FIFO", DT_FIFO, syscall.DT_FIFO}, {"DT_CHR", DT_CHR, syscall.DT_CHR},
		{"DT_DIR", DT_DIR, syscall.DT_DIR}, {"DT_BLK", DT_BLK, syscall.DT_BLK}, {"DT_REG", DT_REG, syscall.DT_REG},
		{"DT_LNK", DT_LNK, syscall.DT_LNK}, {"DT_SOCK", DT_SOCK, syscall.DT_SOCK},
		{"O_ACCMODE", O_ACCMODE, syscall.O_ACCMODE}, {"O_CREAT", O_CREAT, syscall.O_CREAT}, {"O_EXCL", O_EXCL, syscall.O_EXCL},
		{"O_NOCTTY", O_NOCTTY, syscall.O_NOCTTY}, {"O_TRUNC", O_TRUNC, syscall.O_TRUNC}, {"O_APPEND", O_APPEND, syscall.O_APPEND},
		{"O_NONBLOCK", O_NONBLOCK, syscall.O_NONBLOCK}, {"O_DSYNC", O_DSYNC, syscall.O_DSYNC},
		{"O_NOATIME", O_NOATIME, syscall.O_NOATIME}, {"O_CLOEXEC", O_CLOEXEC, syscall.O_CLOEXEC},
		{"O_SYNC", oSyncBit | O_DSYNC, syscall.O_SYNC},
		{"AT_REMOVEDIR", AtRemovedir, 0x200},
		{"PATH_MAX", MaxPath + 1, syscall.PathMax}, {"NAME_MAX", MaxName, 255},
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
		{genericOpenBits, O_ACCMODE, DotlNoaccess},
		{genericOpenBits, 0o2 | O_TRUNC | O_APPEND | O_CREAT | O_EXCL | O_CLOEXEC | O_NOCTTY, DotlRdwr | DotlTrunc | DotlAppend},
		{genericOpenBits, 0o200000 | 0o400000, DotlDirectory | DotlNofollow},
		{genericOpenBits, oSyncBit | O_DSYNC | O_NONBLOCK | O_NOATIME, DotlSync | DotlDsync | DotlNonblock | DotlNoatime},
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
		0: EPROTO, 2: ENOENT, 39: ENOTEMPTY, 133: 133, 134: EPROTO, 512: EPROTO, math.MaxUint32: EPROTO,
	} {
		if got := Errno(ecode); got != want {
			t.Errorf("Errno(%d) = %d, want %d", ecode, got, want)
		}
	}
}

func TestStat(t *testing.T) {
	full := Attr{Valid: GetattrAll, Qid: Qid{Path: 42}, Mode: S_IFREG | 0o640, Uid: 1, Gid: 2, Nlink: 3, Rdev: 4,
		Size: 5, Blksize: 8192, Blocks: 6, Atime: Time{7, 8}, Mtime: Time{9, 10}, Ctime: Time{11, 12}, Btime: Time{13, 14}}
	want := Stat{Ino: 42, Mode: S_IFREG | 0o640, Nlink: 3, Uid: 1, Gid: 2, Rdev: 4, Size: 5, Blksize: 8192, Blocks: 6,
		Atime: Timespec{7, 8}, Mtime: Timespec{9, 10}, Ctime: Timespec{11, 12}, Btime: Timespec{13, 14}}
	if got := full.Stat(); got != want {
		t.Errorf("full: %+v\nwant %+v", got, want)
	}
	// Only what is valid is taken; the file type comes from the qid when the mode lacks it.
	part := full
	part.Valid = GetattrSize
	if got := part.Stat(); got != (Stat{Ino: 42, Mode: S_IFREG, Nlink: 1, Size: 5, Blksize: 4096}) {
		t.Errorf("size only: %+v", got)
	}
	dir := Attr{Valid: GetattrMode, Qid: Qid{Type: QTDIR}, Mode: 0o755}
	if got := dir.Stat().Mode; got != S_IFDIR|0o755 {
		t.Errorf("typeless dir mode %o", got)
	}
	// Values stat cannot hold are clamped.
	huge := Attr{Valid: GetattrBasic | GetattrBtime, Nlink: 1 << 40, Size: math.MaxUint64, Blocks: math.MaxUint64,
		Blksize: 1 << 40, Mtime: Time{math.MaxUint64, 5e9}}
	got := huge.Stat()
	if got.Nlink != math.MaxUint32 || got.Size != math.MaxInt64 || got.Blocks != math.MaxInt64 ||
		got.Blksize != math.MaxInt32 || got.Mtime != (Timespec{math.MaxInt64, 999_999_999}) {
		t.Errorf("clamped: %+v", got)
	}

	for _, tt := range []struct {
		qid  Qid
		mode uint32
		dt   uint8
	}{
		{Qid{Type: QTDIR}, S_IFDIR, DT_DIR},
		{Qid{Type: QTDIR | QTAPPEND}, S_IFDIR, DT_DIR},
		{Qid{Type: QTSYMLINK}, S_IFLNK, DT_LNK},
		{Qid{Type: QTFILE}, S_IFREG, DT_REG},
		{Qid{Type: QTTMP | QTEXCL}, S_IFREG, DT_REG},
	} {
		if m := QidMode(tt.qid); m != tt.mode {
			t.Errorf("QidMode(%#x) = %o", tt.qid.Type, m)
		}
		if dt := DirentType(Dirent{Qid: tt.qid}); dt != tt.dt {
			t.Errorf("DirentType of unknown %#x = %d", tt.qid.Type, dt)
		}
		if dt := DirentType(Dirent{Qid: tt.qid, Type: DT_SOCK}); dt != DT_SOCK {
			t.Errorf("DirentType keeps the server's: %d", dt)
		}
	}
	for mode, dt := range map[uint32]uint8{S_IFSOCK: DT_SOCK, S_IFCHR | 0o666: DT_CHR, S_IFBLK: DT_BLK, S_IFIFO: DT_FIFO, 0o644: DT_UNKNOWN} {
		if got := ModeType(mode); got != dt {
			t.Errorf("ModeType(%o) = %d, want %d", mode, got, dt)
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
