package packed

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/unitrace/unitrace/kernel/abi"

	ucpio "github.com/u-root/u-root/pkg/cpio"

	"github.com/unitrace/unitrace/kernel/fs"
	"github.com/unitrace/unitrace/kernel/fs/cpio"
	"github.com/unitrace/unitrace/kernel/fs/fstest"
	"github.com/unitrace/unitrace/kernel/fs/memfs"
	"github.com/unitrace/unitrace/kernel/fs/vfs"
)

var now = fs.Timespec{Sec: 1_800_000_000, Nsec: 5}

// archive writes records with u-root's newc writer, the oracle of what a valid archive is.
func archiveOf(t testing.TB, recs ...ucpio.Record) []byte {
	t.Helper()
	var buf bytes.Buffer
	w := ucpio.Newc.Writer(&buf)
	if err := ucpio.WriteRecords(w, recs); err != nil {
		t.Fatal(err)
	}
	if err := ucpio.WriteTrailer(w); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// spliced archives each group of records on its own (u-root's writer drops a second record of a
// name) and joins them, keeping the last trailer only.
func spliced(t testing.TB, groups ...[]ucpio.Record) []byte {
	t.Helper()
	var a []byte
	for i, g := range groups {
		b := archiveOf(t, g...)
		if i < len(groups)-1 {
			b = b[:len(b)-trailerSize]
		}
		a = append(a, b...)
	}
	return a
}

// trailerSize is the bytes of a TRAILER!!! record: its header and name, padded.
const trailerSize = (cpio.HeaderSize + len(cpio.Trailer) + 1 + 3) &^ 3

func dir(name string, perm uint64, mtime uint64) ucpio.Record {
	return ucpio.Record{Info: ucpio.Info{Name: name, Mode: fs.S_IFDIR | perm, MTime: mtime, NLink: 2}}
}

func file(name string, perm uint64, mtime uint64, data string) ucpio.Record {
	return ucpio.StaticRecord([]byte(data), ucpio.Info{Name: name, Mode: fs.S_IFREG | perm, MTime: mtime, NLink: 1})
}

func link(name, target string, mtime uint64) ucpio.Record {
	return ucpio.StaticRecord([]byte(target), ucpio.Info{Name: name, Mode: fs.S_IFLNK | 0o777, MTime: mtime, NLink: 1})
}

type world struct {
	ns    *vfs.Namespace
	pages *fstest.Pages
}

func newWorld(t testing.TB) *world {
	t.Helper()
	w := &world{ns: new(vfs.Namespace), pages: fstest.NewPages(t, 1<<14)}
	if errno := w.ns.Init(w.pages, memfs.Capacity{Bytes: 1 << 20, Inodes: 100}, now); errno != 0 {
		t.Fatal(errno)
	}
	t.Cleanup(func() {
		if w.pages.Err != nil {
			t.Error(w.pages.Err)
		}
	})
	return w
}

func (w *world) root() vfs.At { return vfs.At{Root: w.ns.Root(), Dir: w.ns.Root()} }

// node is what a test sees of one file.
type node struct {
	Mode  uint32
	Mtime int64
	Data  string // contents or link target
	FS    uint16
}

// tree lists every file below the root by name, as the system calls would see them.
func (w *world) tree(t testing.TB) map[string]node {
	t.Helper()
	out := map[string]node{}
	var walk func(d vfs.Node, prefix string)
	walk = func(d vfs.Node, prefix string) {
		buf := make([]byte, 4096)
		var names []string
		for cookie := uint64(0); ; {
			n, next, errno := w.ns.ReadDir(d, cookie, buf, now)
			if errno != 0 {
				t.Fatalf("ReadDir %s: %d", prefix, errno)
			}
			if n == 0 {
				break
			}
			for b := buf[:n]; len(b) > 0; {
				reclen := int(binary.LittleEndian.Uint16(b[16:18]))
				name := string(b[19:reclen])
				name = name[:strings.IndexByte(name, 0)]
				if name != "." && name != ".." {
					names = append(names, name)
				}
				b = b[reclen:]
			}
			cookie = next
		}
		for _, name := range names {
			path := prefix + name
			at := vfs.At{Root: w.ns.Root(), Dir: d}
			st, errno := w.ns.StatAt(at, []byte(name), fs.AT_SYMLINK_NOFOLLOW)
			if errno != 0 {
				t.Fatalf("stat %s: %d", path, errno)
			}
			n, errno := w.ns.Resolve(w.ns.Root(), d, []byte(name), false, false)
			if errno != 0 {
				t.Fatalf("resolve %s: %d", path, errno)
			}
			e := node{Mode: st.Mode, Mtime: st.Mtime.Sec, FS: n.FS}
			switch st.Mode & fs.S_IFMT {
			case fs.S_IFLNK:
				b := make([]byte, fs.PathMax)
				k, errno := w.ns.Readlink(at, []byte(name), b)
				if errno != 0 {
					t.Fatalf("readlink %s: %d", path, errno)
				}
				e.Data = string(b[:k])
			case fs.S_IFREG:
				b := make([]byte, st.Size+1)
				k, errno := w.ns.Read(n, 0, b, now)
				if errno != 0 {
					t.Fatalf("read %s: %d", path, errno)
				}
				e.Data = string(b[:k])
			case fs.S_IFDIR:
				walk(n, path+"/")
			}
			out[path] = e
		}
	}
	walk(w.ns.Root(), "")
	return out
}

func TestMount(t *testing.T) {
	big := strings.Repeat("0123456789abcdef", 10000) // 160 000 bytes: a two-level page tree
	a := archiveOf(t,
		dir("data", 0o750, 1000),
		file("data/a.txt", 0o644, 1001, "alpha\n"),
		file("data/empty", 0o600, 1002, ""),
		file("data/big", 0o4755, 1003, big),
		dir("data/sub", 0o2775, 1004),
		file("data/sub/b", 0o444, 1005, "b"),
		link("data/sub/up", "../a.txt", 1006),
		link("data/abs", "/opt/pkg/x", 1007),
		link("data/dangling", "nowhere", 1008),
		dir("data/sub/deeper", 0o1777, 1009),
		dir("opt/pkg", 0o755, 2000), // opt itself is not in the archive
		file("opt/pkg/x", 0o640, 2001, "x"),
	)
	w := newWorld(t)
	if errno := w.ns.MakeDev(w.pages, now); errno != 0 {
		t.Fatal(errno)
	}
	r := Mount(w.ns, w.pages, a, now)
	if !r.OK() || r.Dirs != 2 || r.Record != -1 {
		t.Fatalf("Mount = %+v", r)
	}
	got := w.tree(t)
	dataFS, optFS := got["data"].FS, got["opt/pkg"].FS
	if dataFS == 0 || optFS == 0 || dataFS == optFS || got["opt"].FS != 0 {
		t.Fatalf("file systems: data %d, opt %d, opt/pkg %d", dataFS, got["opt"].FS, optFS)
	}
	want := map[string]node{
		"data":            {fs.S_IFDIR | 0o750, 1000, "", dataFS},
		"data/a.txt":      {fs.S_IFREG | 0o644, 1001, "alpha\n", dataFS},
		"data/empty":      {fs.S_IFREG | 0o600, 1002, "", dataFS},
		"data/big":        {fs.S_IFREG | 0o4755, 1003, big, dataFS},
		"data/sub":        {fs.S_IFDIR | 0o2775, 1004, "", dataFS},
		"data/sub/b":      {fs.S_IFREG | 0o444, 1005, "b", dataFS},
		"data/sub/up":     {fs.S_IFLNK | 0o777, 1006, "../a.txt", dataFS},
		"data/abs":        {fs.S_IFLNK | 0o777, 1007, "/opt/pkg/x", dataFS},
		"data/dangling":   {fs.S_IFLNK | 0o777, 1008, "nowhere", dataFS},
		"data/sub/deeper": {fs.S_IFDIR | 0o1777, 1009, "", dataFS},
		"opt":             {fs.S_IFDIR | 0o755, now.Sec, "", 0},
		"opt/pkg":         {fs.S_IFDIR | 0o755, 2000, "", optFS},
		"opt/pkg/x":       {fs.S_IFREG | 0o640, 2001, "x", optFS},
		"dev":             got["dev"],
		"dev/null":        got["dev/null"],
		"dev/zero":        got["dev/zero"],
		"dev/full":        got["dev/full"],
		"dev/random":      got["dev/random"],
		"dev/urandom":     got["dev/urandom"],
		"dev/tty":         got["dev/tty"],
	}
	for _, k := range slices.Sorted(maps.Keys(want)) {
		if got[k] != want[k] {
			g := got[k]
			if len(g.Data) > 20 {
				g.Data = g.Data[:20] + "..."
			}
			t.Errorf("%s: %+v, want mode %o mtime %d fs %d", k, g, want[k].Mode, want[k].Mtime, want[k].FS)
		}
	}
	for k := range got {
		if _, ok := want[k]; !ok {
			t.Errorf("unexpected %s", k)
		}
	}

	// Read-only where packed, writable elsewhere.
	root := w.root()
	for _, path := range []string{"data/new", "data/sub/new", "opt/pkg/new"} {
		if errno := w.ns.Mkdir(w.pages, root, []byte(path), 0o755, now); errno != abi.EROFS {
			t.Errorf("mkdir %s = %d, want EROFS", path, errno)
		}
	}
	if _, _, errno := w.ns.Open(w.pages, root, []byte("data/a.txt"), fs.O_WRONLY, 0, now); errno != abi.EROFS {
		t.Errorf("open data/a.txt for writing = %d, want EROFS", errno)
	}
	if errno := w.ns.Mkdir(w.pages, root, []byte("opt/other"), 0o755, now); errno != 0 {
		t.Errorf("mkdir opt/other = %d, want success", errno)
	}
	if st, errno := w.ns.StatAt(root, []byte("data/abs"), 0); errno != 0 || st.Size != 1 {
		t.Errorf("an absolute link from one packed directory into another: %+v, %d", st, errno)
	}
	if st, _ := w.ns.Statfs(mustResolve(t, w, "data")); st.Bfree != 0 || st.Files == 0 {
		t.Errorf("statfs of data: %+v", st)
	}
}

func mustResolve(t testing.TB, w *world, path string) vfs.Node {
	t.Helper()
	n, errno := w.ns.Resolve(w.ns.Root(), w.ns.Root(), []byte(path), true, false)
	if errno != 0 {
		t.Fatalf("resolve %s: %d", path, errno)
	}
	return n
}

func TestMountRefuses(t *testing.T) {
	d := dir("data", 0o755, 0)
	withNUL := ucpio.StaticRecord([]byte("a\x00b"), ucpio.Info{Name: "data/l", Mode: fs.S_IFLNK | 0o777})
	dirWithData := ucpio.StaticRecord([]byte("x"), ucpio.Info{Name: "data/d", Mode: fs.S_IFDIR | 0o755})
	cases := []struct {
		name  string
		recs  []ucpio.Record
		raw   []byte // the archive, if not recs
		errno int
		at    int // index of the record at fault
	}{
		{"file outside", []ucpio.Record{file("x", 0o644, 0, "")}, nil, abi.EINVAL, 0},
		{"link outside", []ucpio.Record{link("x", "data", 0)}, nil, abi.EINVAL, 0},
		{"missing parent", []ucpio.Record{d, file("data/missing/f", 0o644, 0, "")}, nil, abi.ENOENT, 1},
		{"through a link", []ucpio.Record{d, link("data/l", "/", 0), file("data/l/f", 0o644, 0, "")}, nil, abi.ELOOP, 2},
		{"through a link to a packed directory", []ucpio.Record{d, link("data/l", ".", 0), dir("data/l/d", 0o755, 0)}, nil, abi.ELOOP, 2},
		{"through a file", []ucpio.Record{d, file("data/f", 0o644, 0, ""), file("data/f/g", 0o644, 0, "")}, nil, abi.ENOTDIR, 2},
		{"twice", nil, spliced(t, []ucpio.Record{d, file("data/f", 0o644, 0, "")}, []ucpio.Record{file("data/f", 0o644, 0, "")}), abi.EEXIST, 2},
		{"directory twice", nil, spliced(t, []ucpio.Record{d}, []ucpio.Record{d}), abi.EEXIST, 1},
		{"device", []ucpio.Record{d, ucpio.CharDev("data/null", 0o666, 1, 3)}, nil, abi.EINVAL, 1},
		{"fifo", []ucpio.Record{d, {Info: ucpio.Info{Name: "data/p", Mode: fs.S_IFIFO | 0o644}}}, nil, abi.EINVAL, 1},
		{"directory with data", []ucpio.Record{d, dirWithData}, nil, abi.EINVAL, 1},
		{"link target with NUL", []ucpio.Record{d, withNUL}, nil, abi.EINVAL, 1},
		{"empty link target", []ucpio.Record{d, link("data/l", "", 0)}, nil, abi.ENOENT, 1},
		{"too many directories", []ucpio.Record{dir("a", 0o755, 0), dir("b", 0o755, 0), dir("c", 0o755, 0), dir("d", 0o755, 0)}, nil, abi.ENOSPC, 3},
		{"under /dev/null", []ucpio.Record{dir("dev/null/x", 0o755, 0)}, nil, abi.ENOTDIR, 0},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			a := c.raw
			if a == nil {
				a = archiveOf(t, c.recs...)
			}
			w := newWorld(t)
			if errno := w.ns.MakeDev(w.pages, now); errno != 0 {
				t.Fatal(errno)
			}
			r := Mount(w.ns, w.pages, a, now)
			offs := offsets(t, a)
			if r.Errno != c.errno || r.Format != cpio.OK || r.Record != offs[c.at] {
				t.Errorf("Mount = %+v, want errno %d at record %d (offset %d)", r, c.errno, c.at, offs[c.at])
			}
		})
	}
}

// offsets lists where each record of a starts.
func offsets(t testing.TB, a []byte) []int {
	var out []int
	for off := 0; ; {
		r, err := cpio.At(a, off)
		if err != cpio.OK {
			t.Fatal(err)
		}
		out = append(out, off)
		if r.IsTrailer() {
			return out
		}
		off = r.Next()
	}
}

func TestMountMalformedAndEmpty(t *testing.T) {
	w := newWorld(t)
	if r := Mount(w.ns, w.pages, nil, now); !r.OK() || r.Dirs != 0 {
		t.Errorf("Mount(nothing) = %+v", r)
	}
	a := archiveOf(t, dir("data", 0o755, 0), file("data/f", 0o644, 0, "contents"))
	r := Mount(w.ns, w.pages, a[:len(a)-8], now)
	if r.OK() || r.Format != cpio.ErrTruncated {
		t.Errorf("Mount(truncated) = %+v", r)
	}
	if got := w.tree(t); len(got) != 0 {
		t.Errorf("a malformed archive unpacked %v", got)
	}
}

// TestMountManyFiles unpacks a few thousand files in a few hundred directories.
func TestMountManyFiles(t *testing.T) {
	recs := []ucpio.Record{dir("many", 0o755, 1)}
	want := 0
	for d := 0; d < 200; d++ {
		recs = append(recs, dir(fmt.Sprintf("many/d%03d", d), 0o755, 2))
		for f := 0; f < 20; f++ {
			recs = append(recs, file(fmt.Sprintf("many/d%03d/f%02d", d, f), 0o644, 3, fmt.Sprint(d*f)))
			want++
		}
	}
	w := newWorld(t)
	if r := Mount(w.ns, w.pages, archiveOf(t, recs...), now); !r.OK() {
		t.Fatalf("Mount = %+v", r)
	}
	got := w.tree(t)
	if len(got) != len(recs) {
		t.Fatalf("%d files, want %d", len(got), len(recs))
	}
	if e := got["many/d123/f17"]; e.Data != fmt.Sprint(123*17) || e.Mtime != 3 {
		t.Errorf("many/d123/f17: %+v", e)
	}
}

func TestArchiveAndRelease(t *testing.T) {
	if len(Archive()) != 0 {
		t.Fatal("the tree's image.go packs something")
	}
	if s, e := Release(); s != 0 || e != 0 {
		t.Fatalf("Release of nothing = %#x, %#x", s, e)
	}
	archive = strings.Repeat("x", 10000)
	a := Archive()
	start, end := Release()
	if len(a) != 10000 || start == 0 || end-start != 10000 || start != uintptr(unsafePointer(a)) {
		t.Errorf("Archive has %d bytes; Release = [%#x, %#x)", len(a), start, end)
	}
	if archive != "" || len(Archive()) != 0 {
		t.Error("Release did not forget the archive")
	}
}

// FuzzMount unpacks arbitrary archives: Mount must never panic or misuse its pages, and what it
// reports must be consistent with the archive.
func FuzzMount(f *testing.F) {
	f.Add(archiveOf(f, dir("data", 0o755, 1), file("data/f", 0o644, 2, "x"), link("data/l", "f", 3), dir("data/d", 0o700, 4)))
	f.Add(archiveOf(f, dir("a/b", 0o755, 1), dir("c", 0o755, 1), file("c/f", 0o644, 2, "y"), link("a/b/l", "/c", 0)))
	f.Add(spliced(f, []ucpio.Record{dir("data", 0o755, 0)}, []ucpio.Record{dir("data", 0o755, 0)}))
	f.Fuzz(func(t *testing.T, a []byte) {
		w := newWorld(t)
		r := Mount(w.ns, w.pages, a, now)
		_, at, err := cpio.Check(a)
		switch {
		case len(a) == 0:
			if !r.OK() || r.Dirs != 0 {
				t.Fatalf("Mount(nothing) = %+v", r)
			}
			return
		case err != r.Format:
			t.Fatalf("Mount's format error %v, Check's %v", r.Format, err)
		case err != cpio.OK && r.Record != at:
			t.Fatalf("Mount blames offset %d, Check %d", r.Record, at)
		case r.Dirs < 0 || r.Dirs > MaxDirs:
			t.Fatalf("Dirs = %d", r.Dirs)
		}
		if r.OK() {
			w.tree(t) // every file reads
		}
	})
}
