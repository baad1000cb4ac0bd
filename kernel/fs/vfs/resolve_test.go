package vfs

import (
	"bytes"
	"testing"

	"github.com/unitrace/unitrace/kernel/abi"

	"github.com/unitrace/unitrace/kernel/fs"
	"github.com/unitrace/unitrace/kernel/fs/memfs"
)

// TestRootLimitsDotDot resolves with a root below the namespace's (chroot): "/" and ".." stop
// there, absolute link targets start there.
func TestRootLimitsDotDot(t *testing.T) {
	m := newMem(t, memfs.Capacity{Bytes: 1 << 20, Inodes: 100})
	for _, s := range base {
		if r := m.do(s.op); r.Errno != 0 {
			t.Fatalf("%+v: %d", s.op, r.Errno)
		}
	}
	m.do(symlink("/s", "d/abs"))
	m.do(symlink("../../..", "d/s/up"))
	ns := m.ns
	top := ns.Root()
	d, errno := ns.Resolve(top, top, []byte("d"), true, false)
	must(t, errno)
	s, errno := ns.Resolve(top, top, []byte("d/s"), true, false)
	must(t, errno)
	at := At{Root: d, Dir: s}
	for _, c := range []struct {
		path  string
		want  Node
		errno int
	}{
		{"/", d, 0}, {"..", d, 0}, {"../..", d, 0}, {"/../..", d, 0}, {"/s", s, 0}, {"up", d, 0},
		{"up/s", s, 0}, {"/abs", s, 0}, {"/f", Node{}, abi.ENOENT}, {"../../f", Node{}, abi.ENOENT},
	} {
		n, errno := ns.Resolve(at.Root, at.Dir, []byte(c.path), true, false)
		if n != c.want || errno != c.errno {
			t.Errorf("Resolve(%q) from d/s, root d = %v, %d; want %v, %d", c.path, n, errno, c.want, c.errno)
		}
	}
}

func must(t testing.TB, errno int) {
	t.Helper()
	if errno != 0 {
		t.Fatalf("errno %d", errno)
	}
}

// resolveTree is the tree FuzzResolve resolves in: the base tree and links of every kind.
var resolveTree = append(append([]step(nil), base...),
	ok(symlink("l2", "l1")), ok(symlink("l1", "l2")), ok(symlink("/d/s", "abs")), ok(symlink("..", "d/s/up")),
	ok(symlink("d/s/", "slash")), ok(symlink("f/", "fslash")), ok(symlink("../../../d", "d/s/updir")),
	ok(mkdir("d/s/t")), ok(touch("d/s/t/g")), ok(symlink("lf", "lf2")), ok(mkdir(long255)),
)

// FuzzResolve resolves paths the fuzzer makes up (untrusted input: any bytes but NUL, any
// length) with stat, lstat, readlink, access and open, and compares with Linux when the oracle
// is there.
func FuzzResolve(f *testing.F) {
	for _, p := range []string{"d/s/up/s/up/f", "/../abs/t/g/", "slash/t", "l1/x", "fslash", "./lf2/", "d//s/./updir/s/t"} {
		f.Add([]byte(p), byte(0))
	}
	f.Add(bytes.Repeat([]byte("d/s/up/"), 600), byte(1))
	o := newOracle(f)
	m := newMem(f, memfs.Capacity{Bytes: 1 << 20, Inodes: 100})
	for _, s := range resolveTree {
		if r := m.do(s.op); r.Errno != 0 {
			f.Fatalf("%+v: %d", s.op, r.Errno)
		}
		if o != nil {
			o.do(s.op)
		}
	}
	flagSets := []int{fs.O_RDONLY, fs.O_DIRECTORY, fs.O_NOFOLLOW, fs.O_PATH | fs.O_NOFOLLOW, fs.O_WRONLY, fs.O_CREAT | fs.O_EXCL | fs.O_RDWR}
	f.Fuzz(func(t *testing.T, path []byte, sel byte) {
		path = bytes.ReplaceAll(path, []byte{0}, nil)
		var x op
		switch sel % 5 {
		case 0:
			x = stat(string(path))
		case 1:
			x = lstat(string(path))
		case 2:
			x = readlink(string(path), 100)
		case 3:
			x = op{Kind: "access", Path: string(path), Mode: fs.X_OK, Dir: -1}
		default:
			x = openf(string(path), flagSets[int(sel/5)%len(flagSets)])
		}
		got := m.do(x)
		if o != nil {
			if want := o.do(x); !sameResult(x, got, want) {
				t.Fatalf("%+v: memfs %v, Linux %v", brief(x), got, want)
			}
		}
		if x.Kind == "open" && got.Errno == 0 {
			m.do(op{Kind: "close", H: got.H})
			if o != nil {
				o.do(op{Kind: "close", H: got.H})
			}
			if x.Flags&fs.O_CREAT != 0 { // keep the tree as it was
				// Compared too: an unlink that differed would leave the two trees apart and
				// fail a later, unrelated input that replays clean on its own.
				u := unlink(string(path), 0)
				got := m.do(u)
				if o != nil {
					if want := o.do(u); !sameResult(u, got, want) {
						t.Fatalf("%+v after %+v: memfs %v, Linux %v", brief(u), brief(x), got, want)
					}
				}
			}
		}
	})
}

func TestMakeDevAndStatfs(t *testing.T) {
	m := newMem(t, memfs.Capacity{Bytes: 1 << 20, Inodes: 100})
	must(t, m.ns.MakeDev(m.pages, m.now()))
	must(t, m.ns.MakeDev(m.pages, m.now())) // again: nothing changes
	for _, c := range []struct {
		name string
		rdev uint64
	}{{"null", fs.DevNull}, {"zero", fs.DevZero}, {"full", fs.DevFull}, {"random", fs.DevRandom}, {"urandom", fs.DevURandom}, {"tty", fs.DevTTY}} {
		r := m.do(stat("/dev/" + c.name))
		if r.Errno != 0 || r.St.Mode != fs.S_IFCHR|0o666 || r.St.Rdev != c.rdev {
			t.Errorf("/dev/%s: %v", c.name, r)
		}
	}
	root := At{Root: m.ns.Root(), Dir: m.ns.Root()}
	st, errno := m.ns.StatfsAt(root, []byte("/dev/null")) // two pages hold the entries of / and /dev
	if errno != 0 || st.Type != fs.TmpfsMagic || st.Blocks != 256 || st.Bfree != 254 || st.Files != 100 || st.Ffree != 92 || st.Namelen != 255 {
		t.Errorf("StatfsAt = %+v, %d", st, errno)
	}
}

// TestScope resolves with openat2's resolve flags from d/s, which is also the root for
// RESOLVE_BENEATH and RESOLVE_IN_ROOT (as the kernel passes it).
func TestScope(t *testing.T) {
	m := newMem(t, memfs.Capacity{Bytes: 1 << 20, Inodes: 100})
	for _, s := range base {
		if r := m.do(s.op); r.Errno != 0 {
			t.Fatalf("%+v: %d", s.op, r.Errno)
		}
	}
	m.do(symlink("/s", "d/abs"))
	m.do(symlink("..", "d/s/up"))
	m.do(mkdir("d/s/t"))
	m.do(symlink("t", "d/s/rel"))
	ns := m.ns
	top := ns.Root()
	s, errno := ns.Resolve(top, top, []byte("d/s"), true, false)
	must(t, errno)
	tdir, errno := ns.Resolve(top, top, []byte("d/s/t"), true, false)
	must(t, errno)
	d, errno := ns.Resolve(top, top, []byte("d"), true, false)
	must(t, errno)
	for _, c := range []struct {
		scope uint64
		root  Node
		path  string
		want  Node
		errno int
	}{
		{0, top, "up", d, 0},
		{ResolveBeneath, s, "up", Node{}, abi.EXDEV},
		{ResolveBeneath, s, "..", Node{}, abi.EXDEV},
		{ResolveBeneath, s, "/d", Node{}, abi.EXDEV},
		{ResolveBeneath, s, "t/..", s, 0},
		{ResolveBeneath, s, "rel", tdir, 0},
		{ResolveInRoot, s, "up", s, 0},
		{ResolveInRoot, s, "/t", tdir, 0},
		{ResolveNoSymlinks, top, "rel", Node{}, abi.ELOOP},
		{ResolveNoSymlinks, top, "t", tdir, 0},
		{ResolveNoMagiclinks, top, "rel", tdir, 0},
		{ResolveNoMagiclinks, top, "/proc/self/cwd", Node{}, abi.ELOOP},
		{ResolveBeneath, s, "/proc/self/cwd", Node{}, abi.EXDEV},
		{ResolveNoXdev, top, "/proc/self", Node{}, abi.EXDEV},
	} {
		ns.SetScope(c.scope)
		n, errno := ns.Resolve(c.root, s, []byte(c.path), true, false)
		ns.SetScope(0)
		if len(c.path) > 5 && c.path[:5] == "/proc" && errno == abi.ENOENT {
			continue // no /proc in this namespace
		}
		if n != c.want || errno != c.errno {
			t.Errorf("scope %#x: Resolve(%q) = %v, %d; want %v, %d", c.scope, c.path, n, errno, c.want, c.errno)
		}
	}
	// Open's own last step: a link to ".." from the start, beneath it.
	m.do(symlink("../", "d/s/dotdot"))
	ns.SetScope(ResolveBeneath)
	_, _, errno = ns.Open(m.pages, At{Root: s, Dir: s}, []byte("dotdot"), fs.O_RDONLY, 0, m.now())
	ns.SetScope(0)
	if errno != abi.EXDEV {
		t.Errorf("Open beneath of a link to ..: %d, want EXDEV", errno)
	}
}
