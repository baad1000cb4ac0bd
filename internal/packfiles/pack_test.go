package packfiles

import (
	"bytes"
	"io"
	"net"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/unitrace/unitrace/kernel/abi"

	ucpio "github.com/u-root/u-root/pkg/cpio"

	kfs "github.com/unitrace/unitrace/kernel/fs"
	"github.com/unitrace/unitrace/kernel/fs/cpio"
	"github.com/unitrace/unitrace/kernel/fs/fstest"
	"github.com/unitrace/unitrace/kernel/fs/memfs"
	"github.com/unitrace/unitrace/kernel/fs/packed"
	"github.com/unitrace/unitrace/kernel/fs/vfs"
)

func TestParseDir(t *testing.T) {
	for _, c := range []struct {
		in, host, guest, err string
	}{
		{in: "testdata:/data", host: "testdata", guest: "/data"},
		{in: "a:b:/x/y/", host: "a:b", guest: "/x/y"},
		{in: "/abs/dir:/opt//pkg/./sub", host: "/abs/dir", guest: "/opt/pkg/sub"},
		{in: "../up:/data", host: "../up", guest: "/data"},
		{in: "nocolon", err: "not HOSTDIR:GUESTDIR"},
		{in: ":/data", err: "HOSTDIR is empty"},
		{in: "d:data", err: "not an absolute path"},
		{in: "d:", err: "not an absolute path"},
		{in: "d:/data/../etc", err: "has a .. component"},
		{in: "d:/..", err: "has a .. component"},
		{in: "d:/", err: "would hide the root"},
		{in: "d:/./", err: "would hide the root"},
		{in: "d:/dev", err: "would hide the kernel's devices"},
		{in: "d:/TRAILER!!!", err: "ends a cpio archive"},
	} {
		d, err := ParseDir(c.in)
		switch {
		case c.err != "" && (err == nil || !strings.Contains(err.Error(), c.err)):
			t.Errorf("ParseDir(%q) = %v, %v; want an error with %q", c.in, d, err, c.err)
		case c.err == "" && (err != nil || d.Host != c.host || d.Guest != c.guest):
			t.Errorf("ParseDir(%q) = %+v, %v; want %s:%s", c.in, d, err, c.host, c.guest)
		}
	}
	var f Flag
	if err := f.Set("a:/x"); err != nil {
		t.Fatal(err)
	}
	if err := f.Set("b:/y"); err != nil {
		t.Fatal(err)
	}
	if err := f.Set("b"); err == nil {
		t.Error("Flag.Set accepted a word without a colon")
	}
	if f.String() != "a:/x b:/y" || len(f) != 2 {
		t.Errorf("Flag = %q", f.String())
	}
	if v, err := ParseMTime("1700000000"); err != nil || v != 1700000000 {
		t.Errorf("ParseMTime = %d, %v", v, err)
	}
	for _, bad := range []string{"-1", "4294967296", "x", ""} {
		if _, err := ParseMTime(bad); err == nil {
			t.Errorf("ParseMTime(%q) succeeded", bad)
		}
	}
}

func must(t testing.TB, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// hostTree makes a directory with every kind of file packing takes.
func hostTree(t testing.TB) string {
	t.Helper()
	d := t.TempDir()
	write := func(name, data string, perm os.FileMode) {
		p := filepath.Join(d, name)
		must(t, os.MkdirAll(filepath.Dir(p), 0o755))
		must(t, os.WriteFile(p, []byte(data), 0o600))
		must(t, os.Chmod(p, perm))
	}
	write("a.txt", "alpha\n", 0o644)
	write("empty", "", 0o600)
	write("bin/tool", "#!/bin/sh\n", 0o755|os.ModeSetuid)
	write("sub/deep/er/f", strings.Repeat("0123456789", 25000), 0o444)
	must(t, os.Mkdir(filepath.Join(d, "shared"), 0o775))
	must(t, os.Chmod(filepath.Join(d, "shared"), 0o775|os.ModeSetgid|os.ModeSticky))
	must(t, os.Symlink("a.txt", filepath.Join(d, "rel")))
	must(t, os.Symlink("/etc/passwd", filepath.Join(d, "abs")))
	must(t, os.Symlink("sub", filepath.Join(d, "dirlink")))
	must(t, os.Symlink("nowhere", filepath.Join(d, "dangling")))
	old := time.Unix(1_000_000_000, 0)
	touchAll(t, d, func(p string) time.Time { return old.Add(time.Duration(len(p)) * time.Second) })
	return d
}

// touchAll sets the times of everything below d but symbolic links (os.Chtimes follows them).
func touchAll(t testing.TB, d string, when func(path string) time.Time) {
	t.Helper()
	must(t, filepath.Walk(d, func(p string, fi os.FileInfo, err error) error {
		must(t, err)
		if fi.Mode()&os.ModeSymlink != 0 {
			return nil
		}
		return os.Chtimes(p, when(p), when(p))
	}))
}

// unpack mounts archive a in a fresh namespace.
func unpack(t testing.TB, a []byte) (*vfs.Namespace, *fstest.Pages) {
	t.Helper()
	ns, p := new(vfs.Namespace), fstest.NewPages(t, 1<<14)
	now := kfs.Timespec{Sec: 2_000_000_000}
	if errno := ns.Init(p, memfs.Capacity{Bytes: 1 << 20, Inodes: 100}, now); errno != 0 {
		t.Fatal(errno)
	}
	if r := packed.Mount(ns, p, a, now); !r.OK() {
		t.Fatalf("Mount = %+v", r)
	}
	return ns, p
}

// sameAsHost checks that every file below host appears at guest in ns as it is on the host.
func sameAsHost(t *testing.T, ns *vfs.Namespace, host, guest string) int {
	t.Helper()
	at := vfs.At{Root: ns.Root(), Dir: ns.Root()}
	n := 0
	must(t, filepath.Walk(host, func(p string, fi os.FileInfo, err error) error {
		must(t, err)
		rel, _ := filepath.Rel(host, p)
		gp := filepath.ToSlash(filepath.Join(guest, rel))
		st, errno := ns.StatAt(at, []byte(gp), kfs.AT_SYMLINK_NOFOLLOW)
		if errno != 0 {
			t.Errorf("%s: stat = %d", gp, errno)
			return nil
		}
		hs := fi.Sys().(*syscall.Stat_t)
		wantMode := hs.Mode
		if fi.Mode()&os.ModeSymlink != 0 {
			wantMode = kfs.S_IFLNK | 0o777
		}
		if st.Mode != wantMode || st.Mtime.Sec != fi.ModTime().Unix() {
			t.Errorf("%s: mode %o mtime %d, want %o %d", gp, st.Mode, st.Mtime.Sec, wantMode, fi.ModTime().Unix())
		}
		switch {
		case fi.Mode().IsRegular():
			want, _ := os.ReadFile(p)
			node, _ := ns.Resolve(ns.Root(), ns.Root(), []byte(gp), false, false)
			got := make([]byte, len(want)+1)
			k, _ := ns.Read(node, 0, got, st.Atime)
			if !bytes.Equal(got[:k], want) {
				t.Errorf("%s: %d bytes differ from the host's %d", gp, k, len(want))
			}
		case fi.Mode()&os.ModeSymlink != 0:
			want, _ := os.Readlink(p)
			got := make([]byte, kfs.PathMax)
			k, _ := ns.Readlink(at, []byte(gp), got)
			if string(got[:k]) != want {
				t.Errorf("%s: target %q, want %q", gp, got[:k], want)
			}
		}
		n++
		return nil
	}))
	return n
}

func TestPackAndUnpack(t *testing.T) {
	main, extra, other := hostTree(t), hostTree(t), hostTree(t)
	dirs := []Dir{{main, "/data"}, {extra, "/data/more/extra"}, {other, "/opt/pkg"}}
	a, sum, err := Archive(dirs, Options{})
	must(t, err)
	if n, at, err := cpio.Check(a); err != cpio.OK {
		t.Fatalf("Check = %d, %v at %d", n, err, at)
	}
	if int64(len(a)) != sum.Size || strings.Join(sum.Dirs, " ") != "/data /opt/pkg" ||
		sum.Files != 3*4 || sum.Links != 3*4 || sum.Directories != 3*6+1 || sum.Bytes != 3*(6+10+250000) {
		t.Errorf("summary %+v", sum)
	}
	// u-root's reader agrees, and parents come first.
	recs, err := ucpio.ReadAllRecords(ucpio.Newc.Reader(bytes.NewReader(a)))
	must(t, err)
	seen := map[string]bool{}
	for _, r := range recs {
		if parent := filepath.Dir(r.Name); parent != "." && parent != "opt" && !seen[parent] {
			t.Errorf("%s comes before its directory", r.Name)
		}
		if r.UID != 0 || r.GID != 0 {
			t.Errorf("%s: owner %d:%d", r.Name, r.UID, r.GID)
		}
		seen[r.Name] = true
	}
	if !seen["data/more"] {
		t.Error("the directory between /data and /data/more/extra is missing")
	}
	ns, _ := unpack(t, a)
	n := sameAsHost(t, ns, main, "/data") + sameAsHost(t, ns, extra, "/data/more/extra") + sameAsHost(t, ns, other, "/opt/pkg")
	if n != 3*14 {
		t.Errorf("compared %d files", n)
	}
	at := vfs.At{Root: ns.Root(), Dir: ns.Root()}
	if errno := ns.Mkdir(nil, at, []byte("/data/more/new"), 0o755, kfs.Timespec{}); errno != abi.EROFS {
		t.Errorf("mkdir in a packed directory = %d, want EROFS", errno)
	}
}

func TestReproducible(t *testing.T) {
	d := hostTree(t)
	mtime := uint32(1_234_567_890)
	opts := Options{MTime: &mtime}
	a1, _, err := Archive([]Dir{{d, "/data"}}, opts)
	must(t, err)
	plain1, _, err := Archive([]Dir{{d, "/data"}}, Options{})
	must(t, err)
	newer := time.Unix(1_500_000_000, 0)
	touchAll(t, d, func(string) time.Time { return newer })
	a2, _, err := Archive([]Dir{{d, "/data"}}, opts)
	must(t, err)
	plain2, _, err := Archive([]Dir{{d, "/data"}}, Options{})
	must(t, err)
	if !bytes.Equal(a1, a2) {
		t.Error("with a fixed mtime the archive changed with the host's times")
	}
	if bytes.Equal(plain1, plain2) {
		t.Error("without one it did not")
	}
	for off := 0; ; {
		r, err := cpio.At(a1, off)
		if err != cpio.OK {
			t.Fatal(err)
		}
		if r.IsTrailer() {
			break
		}
		if r.MTime != mtime {
			t.Fatalf("%s: mtime %d", r.Name(a1), r.MTime)
		}
		off = r.Next()
	}
}

func TestRefusals(t *testing.T) {
	base := t.TempDir()
	mk := func(name string) string {
		d := filepath.Join(base, name)
		must(t, os.MkdirAll(d, 0o755))
		return d
	}
	fifo := mk("fifo")
	must(t, syscall.Mkfifo(filepath.Join(fifo, "p"), 0o644))
	sock := mk("sock")
	l, err := net.Listen("unix", filepath.Join(sock, "s"))
	must(t, err)
	defer l.Close()
	plain := mk("plain")
	must(t, os.WriteFile(filepath.Join(plain, "x"), []byte("x"), 0o644))
	clash := mk("clash")
	must(t, os.WriteFile(filepath.Join(clash, "x"), []byte("y"), 0o644))
	notDir := filepath.Join(plain, "x")
	long := "/" + strings.Repeat("n", 256)
	deep := "/" + strings.Repeat(strings.Repeat("d", 200)+"/", 21) + "end"
	for _, c := range []struct {
		name string
		dirs []Dir
		err  string
	}{
		{"fifo", []Dir{{fifo, "/data"}}, "is a named pipe: only regular files"},
		{"socket", []Dir{{sock, "/data"}}, "is a socket"},
		{"missing", []Dir{{filepath.Join(base, "missing"), "/data"}}, "no such file"},
		{"not a directory", []Dir{{notDir, "/data"}}, "is not a directory"},
		{"two files", []Dir{{plain, "/data"}, {clash, "/data"}}, "would come from both"},
		{"below a file", []Dir{{plain, "/data"}, {clash, "/data/x/in"}}, "which is not a directory"},
		{"too many", []Dir{{plain, "/a"}, {plain, "/b"}, {plain, "/c"}, {plain, "/d"}}, "4 packed directories (/a /b /c /d)"},
		{"long component", []Dir{{plain, long}}, "is too long"},
		{"long path", []Dir{{plain, deep}}, "is too long"},
		{"unclean", []Dir{{plain, "/data/../etc"}}, "has a .. component"},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := Write(io.Discard, c.dirs, Options{})
			if err == nil || !strings.Contains(err.Error(), c.err) {
				t.Errorf("Write = %v, want an error with %q", err, c.err)
			}
		})
	}
	// Merging is fine where both sides are directories, and a symbolic link to a HOSTDIR is
	// followed.
	must(t, os.Symlink(plain, filepath.Join(base, "link")))
	a, sum, err := Archive([]Dir{{filepath.Join(base, "link"), "/data/"}, {clash, "/data/sub"}, {clash, "/data/sub/again"}}, Options{})
	if err != nil || sum.Files != 3 || len(sum.Dirs) != 1 {
		t.Fatalf("merge: %+v, %v", sum, err)
	}
	ns, _ := unpack(t, a)
	st, errno := ns.StatAt(vfs.At{Root: ns.Root(), Dir: ns.Root()}, []byte("/data/sub/x"), 0)
	if errno != 0 || st.Size != 1 {
		t.Errorf("/data/sub/x: %+v, %d", st, errno)
	}
	if a, sum, err := Archive(nil, Options{}); a != nil || err != nil || sum.Size != 0 {
		t.Errorf("Archive(nothing) = %d bytes, %+v, %v", len(a), sum, err)
	}
}
