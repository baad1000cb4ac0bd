package fs

import (
	"encoding/binary"
	"os"
	"path/filepath"
	"runtime"
	"syscall"
	"testing"
	"unsafe"
)

// TestStatLayout checks the struct stat offsets of this architecture against syscall.Stat_t.
func TestStatLayout(t *testing.T) {
	var s syscall.Stat_t
	for _, c := range []struct {
		name      string
		got, want uintptr
	}{
		{"size", StatSize, unsafe.Sizeof(s)},
		{"dev", statDev, unsafe.Offsetof(s.Dev)}, {"ino", statIno, unsafe.Offsetof(s.Ino)},
		{"nlink", statNlink, unsafe.Offsetof(s.Nlink)}, {"nlink size", statNlinkSize, unsafe.Sizeof(s.Nlink)},
		{"mode", statMode, unsafe.Offsetof(s.Mode)}, {"uid", statUid, unsafe.Offsetof(s.Uid)},
		{"gid", statGid, unsafe.Offsetof(s.Gid)}, {"rdev", statRdev, unsafe.Offsetof(s.Rdev)},
		{"size", statSize, unsafe.Offsetof(s.Size)}, {"blksize", statBlksize, unsafe.Offsetof(s.Blksize)},
		{"blksize size", statBlksizeLen, unsafe.Sizeof(s.Blksize)}, {"blocks", statBlocks, unsafe.Offsetof(s.Blocks)},
		{"atime", statAtime, unsafe.Offsetof(s.Atim)}, {"mtime", statMtime, unsafe.Offsetof(s.Mtim)},
		{"ctime", statCtime, unsafe.Offsetof(s.Ctim)},
	} {
		if c.got != c.want {
			t.Errorf("struct stat %s: %d, syscall.Stat_t has %d", c.name, c.got, c.want)
		}
	}
	st := Stat{Dev: 1, Ino: 2, Mode: 3, Nlink: 4, Uid: 5, Gid: 6, Rdev: 7, Size: 8, Blksize: 9, Blocks: 10,
		Atime: Timespec{11, 12}, Mtime: Timespec{13, 14}, Ctime: Timespec{15, 16}}
	buf := make([]byte, StatSize)
	if !PutStat(buf, &st) || PutStat(buf[:StatSize-1], &st) {
		t.Fatal("PutStat's length check")
	}
	got := *(*syscall.Stat_t)(unsafe.Pointer(&buf[0]))
	if got.Dev != 1 || got.Ino != 2 || got.Mode != 3 || got.Nlink != 4 || got.Uid != 5 || got.Gid != 6 || got.Rdev != 7 ||
		got.Size != 8 || got.Blksize != 9 || got.Blocks != 10 || got.Atim.Sec != 11 || got.Atim.Nsec != 12 ||
		got.Mtim.Sec != 13 || got.Mtim.Nsec != 14 || got.Ctim.Sec != 15 || got.Ctim.Nsec != 16 {
		t.Fatalf("PutStat read back as %+v", got)
	}
}

// sysStatx is statx's number (syscall_64.tbl on amd64, asm-generic/unistd.h on arm64).
func sysStatx() uintptr {
	if runtime.GOARCH == "arm64" {
		return 291
	}
	return 332
}

// TestStatxLayout reads a file's struct statx from the host's Linux at the offsets here and
// compares with its stat, then checks that PutStatx writes what the same offsets read.
func TestStatxLayout(t *testing.T) {
	p := filepath.Join(t.TempDir(), "f")
	if err := os.WriteFile(p, make([]byte, 5000), 0o640); err != nil {
		t.Fatal(err)
	}
	var st syscall.Stat_t
	if err := syscall.Stat(p, &st); err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, StatxSize)
	name := append([]byte(p), 0)
	fdcwd := int64(AT_FDCWD)
	if _, _, e := syscall.Syscall6(sysStatx(), uintptr(fdcwd), uintptr(unsafe.Pointer(&name[0])), 0,
		STATX_BASIC_STATS|STATX_BTIME, uintptr(unsafe.Pointer(&buf[0])), 0); e != 0 {
		t.Skipf("statx: %v", e)
	}
	le := binary.LittleEndian
	dev := uint64(st.Dev)
	for _, c := range []struct {
		name      string
		got, want uint64
	}{
		{"ino", le.Uint64(buf[statxIno:]), st.Ino}, {"size", le.Uint64(buf[statxSize:]), uint64(st.Size)},
		{"blocks", le.Uint64(buf[statxBlocks:]), uint64(st.Blocks)}, {"nlink", uint64(le.Uint32(buf[statxNlink:])), uint64(st.Nlink)},
		{"mode", uint64(le.Uint16(buf[statxMode:])), uint64(st.Mode)}, {"blksize", uint64(le.Uint32(buf[statxBlksize:])), uint64(st.Blksize)},
		{"mtime", le.Uint64(buf[statxMtime:]), uint64(st.Mtim.Sec)}, {"mtime nsec", uint64(le.Uint32(buf[statxMtime+8:])), uint64(st.Mtim.Nsec)},
		{"ctime", le.Uint64(buf[statxCtime:]), uint64(st.Ctim.Sec)}, {"atime", le.Uint64(buf[statxAtime:]), uint64(st.Atim.Sec)},
		{"dev major", uint64(le.Uint32(buf[statxDevMajor:])), uint64(Major(dev))}, {"dev minor", uint64(le.Uint32(buf[statxDevMinor:])), uint64(Minor(dev))},
	} {
		if c.got != c.want {
			t.Errorf("statx %s at our offset: %d, stat says %d", c.name, c.got, c.want)
		}
	}
	mine := Stat{Dev: dev, Ino: st.Ino, Mode: st.Mode, Nlink: uint32(st.Nlink), Uid: st.Uid, Gid: st.Gid, Rdev: Mkdev(0x123, 0x45678), Size: st.Size,
		Blksize: int32(st.Blksize), Blocks: st.Blocks, Atime: Timespec{st.Atim.Sec, st.Atim.Nsec},
		Mtime: Timespec{st.Mtim.Sec, st.Mtim.Nsec}, Ctime: Timespec{st.Ctim.Sec, st.Ctim.Nsec}}
	out := make([]byte, StatxSize)
	if !PutStatx(out, &mine) || PutStatx(out[:StatxSize-1], &mine) {
		t.Fatal("PutStatx's length check")
	}
	for _, off := range []int{statxBlksize, statxNlink, statxUid, statxGid, statxIno, statxIno + 4, statxSize, statxSize + 4,
		statxBlocks, statxAtime, statxAtime + 8, statxCtime, statxCtime + 8, statxMtime, statxMtime + 8, statxDevMajor, statxDevMinor} {
		if le.Uint32(out[off:]) != le.Uint32(buf[off:]) {
			t.Errorf("PutStatx at %d: %#x, Linux %#x", off, le.Uint32(out[off:]), le.Uint32(buf[off:]))
		}
	}
	if le.Uint16(out[statxMode:]) != le.Uint16(buf[statxMode:]) {
		t.Errorf("PutStatx mode %#o, Linux %#o", le.Uint16(out[statxMode:]), le.Uint16(buf[statxMode:]))
	}
	if Major(mine.Rdev) != 0x123 || Minor(mine.Rdev) != 0x45678 {
		t.Errorf("Major, Minor of Mkdev(0x123, 0x45678) = %#x, %#x", Major(mine.Rdev), Minor(mine.Rdev))
	}
}

// TestStatfsLayout checks the struct statfs offsets against syscall.Statfs_t and reads back
// what PutStatfs writes.
func TestStatfsLayout(t *testing.T) {
	var s syscall.Statfs_t
	for _, c := range []struct {
		name      string
		got, want uintptr
	}{
		{"size", StatfsSize, unsafe.Sizeof(s)}, {"type", statfsType, unsafe.Offsetof(s.Type)},
		{"bsize", statfsBsize, unsafe.Offsetof(s.Bsize)}, {"blocks", statfsBlocks, unsafe.Offsetof(s.Blocks)},
		{"bfree", statfsBfree, unsafe.Offsetof(s.Bfree)}, {"bavail", statfsBavail, unsafe.Offsetof(s.Bavail)},
		{"files", statfsFiles, unsafe.Offsetof(s.Files)}, {"ffree", statfsFfree, unsafe.Offsetof(s.Ffree)},
		{"fsid", statfsFsid, unsafe.Offsetof(s.Fsid)}, {"namelen", statfsNamelen, unsafe.Offsetof(s.Namelen)},
		{"frsize", statfsFrsize, unsafe.Offsetof(s.Frsize)}, {"flags", statfsFlags, unsafe.Offsetof(s.Flags)},
	} {
		if c.got != c.want {
			t.Errorf("struct statfs %s: %d, syscall.Statfs_t has %d", c.name, c.got, c.want)
		}
	}
	st := Statfs{Type: TmpfsMagic, Bsize: 4096, Blocks: 3, Bfree: 4, Bavail: 5, Files: 6, Ffree: 7, Namelen: NameMax, Flags: ST_RDONLY}
	buf := make([]byte, StatfsSize)
	if !PutStatfs(buf, &st, 0x0000_0009_0000_0008) || PutStatfs(buf[:StatfsSize-1], &st, 0) {
		t.Fatal("PutStatfs's length check")
	}
	got := *(*syscall.Statfs_t)(unsafe.Pointer(&buf[0]))
	if got.Type != TmpfsMagic || got.Bsize != 4096 || got.Blocks != 3 || got.Bfree != 4 || got.Bavail != 5 ||
		got.Files != 6 || got.Ffree != 7 || got.Namelen != NameMax || got.Frsize != 4096 || got.Flags != ST_RDONLY ||
		got.Fsid.X__val != [2]int32{8, 9} {
		t.Fatalf("PutStatfs read back as %+v", got)
	}
}
