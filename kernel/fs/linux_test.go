package fs

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"syscall"
	"testing"
)

// TestLinuxConstants checks the numbers in linux.go against the host's syscall package, which
// takes them from the Linux headers. The ones it lacks (AT_*, R_OK..., O_PATH, O_TMPFILE,
// RENAME_*, UTIME_*) are checked by package vfs's tests, which pass them to the host's system
// calls and compare what Linux does with them.
func TestLinuxConstants(t *testing.T) {
	for _, c := range []struct {
		name      string
		got, want int
	}{
		{"PathMax", PathMax, syscall.PathMax},
		{"S_IFMT", S_IFMT, syscall.S_IFMT}, {"S_IFSOCK", S_IFSOCK, syscall.S_IFSOCK}, {"S_IFLNK", S_IFLNK, syscall.S_IFLNK},
		{"S_IFREG", S_IFREG, syscall.S_IFREG}, {"S_IFBLK", S_IFBLK, syscall.S_IFBLK}, {"S_IFDIR", S_IFDIR, syscall.S_IFDIR},
		{"S_IFCHR", S_IFCHR, syscall.S_IFCHR}, {"S_IFIFO", S_IFIFO, syscall.S_IFIFO}, {"S_ISUID", S_ISUID, syscall.S_ISUID},
		{"S_ISGID", S_ISGID, syscall.S_ISGID}, {"S_ISVTX", S_ISVTX, syscall.S_ISVTX},
		{"DT_FIFO", DT_FIFO, syscall.DT_FIFO}, {"DT_CHR", DT_CHR, syscall.DT_CHR}, {"DT_DIR", DT_DIR, syscall.DT_DIR},
		{"DT_BLK", DT_BLK, syscall.DT_BLK}, {"DT_REG", DT_REG, syscall.DT_REG}, {"DT_LNK", DT_LNK, syscall.DT_LNK},
		{"DT_SOCK", DT_SOCK, syscall.DT_SOCK},
		{"O_ACCMODE", O_ACCMODE, syscall.O_ACCMODE}, {"O_WRONLY", O_WRONLY, syscall.O_WRONLY}, {"O_RDWR", O_RDWR, syscall.O_RDWR},
		{"O_CREAT", O_CREAT, syscall.O_CREAT}, {"O_EXCL", O_EXCL, syscall.O_EXCL}, {"O_NOCTTY", O_NOCTTY, syscall.O_NOCTTY},
		{"O_TRUNC", O_TRUNC, syscall.O_TRUNC}, {"O_APPEND", O_APPEND, syscall.O_APPEND}, {"O_NONBLOCK", O_NONBLOCK, syscall.O_NONBLOCK},
		{"O_DIRECTORY", O_DIRECTORY, syscall.O_DIRECTORY}, {"O_NOFOLLOW", O_NOFOLLOW, syscall.O_NOFOLLOW},
		{"O_CLOEXEC", O_CLOEXEC, syscall.O_CLOEXEC},
		{"F_OK", F_OK, syscall.F_OK},
	} {
		if c.got != c.want {
			t.Errorf("%s = %#x, Linux has %#x", c.name, c.got, c.want)
		}
	}
}

// TestMkdev checks the device encoding against values stat reports on Linux, and the device
// constants against it.
func TestMkdev(t *testing.T) {
	for _, c := range []struct {
		major, minor uint32
		want         uint64
	}{
		{1, 3, 0x103}, {8, 1, 0x801}, {0, 0x40, 0x40}, {0x123, 0x45678, 0x45612378},
	} {
		if got := Mkdev(c.major, c.minor); got != c.want {
			t.Errorf("Mkdev(%#x, %#x) = %#x, want %#x", c.major, c.minor, got, c.want)
		}
	}
	if got := Mkdev(0x1234, 0); got != 0x1000<<32|0x234<<8 { // glibc's makedev: major's high bits at 44
		t.Errorf("Mkdev(0x1234, 0) = %#x", got)
	}
	for _, c := range []struct {
		dev   uint64
		minor uint32
	}{{DevNull, 3}, {DevZero, 5}, {DevFull, 7}, {DevRandom, 8}, {DevURandom, 9}} {
		if c.dev != Mkdev(1, c.minor) {
			t.Errorf("device %#x is not Mkdev(1, %d)", c.dev, c.minor)
		}
	}
}

func TestPutDirent(t *testing.T) {
	dst := make([]byte, 40)
	for i := range dst {
		dst[i] = 0xaa
	}
	n := PutDirent(dst, 0x0102030405060708, 9, DT_REG, []byte("abcde"))
	want := []byte{8, 7, 6, 5, 4, 3, 2, 1, 9, 0, 0, 0, 0, 0, 0, 0, 32, 0, DT_REG, 'a', 'b', 'c', 'd', 'e', 0, 0, 0, 0, 0, 0, 0, 0}
	if n != 32 || string(dst[:n]) != string(want) || dst[n] != 0xaa {
		t.Fatalf("PutDirent = %d, % x", n, dst)
	}
	if PutDirent(dst[:31], 1, 1, DT_REG, []byte("abcde")) != 0 {
		t.Fatal("PutDirent wrote into a short buffer")
	}
	for name := 0; name <= NameMax; name++ {
		if l := DirentLen(name); l%8 != 0 || l < 19+name+1 || l >= 19+name+1+8 {
			t.Fatalf("DirentLen(%d) = %d", name, l)
		}
	}
}

// TestArchOpenFlags checks both architectures' O_DIRECTORY and O_NOFOLLOW against the
// toolchain's syscall tables for linux/amd64 and linux/arm64 (read from GOROOT, so the
// arch that is not the host's is checked too).
func TestArchOpenFlags(t *testing.T) {
	for _, c := range []struct {
		arch                string
		directory, nofollow int
	}{
		{"amd64", genericODirectory, genericONofollow},
		{"arm64", arm64ODirectory, arm64ONofollow},
	} {
		consts := syscallConstants(t, c.arch)
		for _, f := range []struct {
			name string
			got  int
		}{{"O_DIRECTORY", c.directory}, {"O_NOFOLLOW", c.nofollow}} {
			if want, ok := consts[f.name]; !ok || int64(f.got) != want {
				t.Errorf("%s on %s = %#o, the toolchain has %#o", f.name, c.arch, f.got, want)
			}
		}
	}
}

// syscallConstants reads the integer constants of GOROOT/src/syscall/zerrors_linux_ARCH.go.
func syscallConstants(t *testing.T, arch string) map[string]int64 {
	t.Helper()
	path := filepath.Join(runtime.GOROOT(), "src", "syscall", "zerrors_linux_"+arch+".go")
	src, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	f, err := parser.ParseFile(token.NewFileSet(), path, src, 0)
	if err != nil {
		t.Fatal(err)
	}
	consts := map[string]int64{}
	for _, d := range f.Decls {
		g, ok := d.(*ast.GenDecl)
		if !ok || g.Tok != token.CONST {
			continue
		}
		for _, spec := range g.Specs {
			vs := spec.(*ast.ValueSpec)
			for i, name := range vs.Names {
				if i >= len(vs.Values) {
					continue
				}
				if lit, ok := vs.Values[i].(*ast.BasicLit); ok && lit.Kind == token.INT {
					if v, err := strconv.ParseInt(lit.Value, 0, 64); err == nil {
						consts[name.Name] = v
					}
				}
			}
		}
	}
	return consts
}
