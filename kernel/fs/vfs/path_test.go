package vfs

import (
	"testing"

	"github.com/unitrace/unitrace/kernel/abi"

	"github.com/unitrace/unitrace/kernel/fs"
	"github.com/unitrace/unitrace/kernel/fs/memfs"
)

// TestPath checks getcwd's walk up: plain directories, through a mount, from a root below the
// namespace's, and its failures.
func TestPath(t *testing.T) {
	m := newMem(t, memfs.Capacity{Bytes: 1 << 20, Inodes: 100})
	for _, o := range []op{mkdir("a"), mkdir("a/b"), mkdir("a/b/c"), mkdir("a/m"), mkdir("gone")} {
		if r := m.do(o); r.Errno != 0 {
			t.Fatalf("%+v: %d", o, r.Errno)
		}
	}
	if r := m.do(op{Kind: "mount", Path: "/a/m"}); r.Errno != 0 {
		t.Fatalf("mount: %d", r.Errno)
	}
	if r := m.do(mkdir("a/m/x")); r.Errno != 0 {
		t.Fatalf("mkdir in the mount: %d", r.Errno)
	}
	ns := m.ns
	top := ns.Root()
	node := func(p string) Node {
		n, errno := ns.Resolve(top, top, []byte(p), true, false)
		must(t, errno)
		return n
	}
	buf := make([]byte, fs.PathMax)
	for _, c := range []struct {
		root Node
		dir  string
		want string
	}{
		{top, "/", "/"}, {top, "a", "/a"}, {top, "a/b/c", "/a/b/c"}, {top, "a/m", "/a/m"},
		{top, "a/m/x", "/a/m/x"}, {node("a"), "a/b", "/b"}, {node("a"), "a", "/"}, {node("a/m"), "a/m/x", "/x"},
	} {
		k, errno := ns.Path(c.root, node(c.dir), buf)
		if errno != 0 || string(buf[:k]) != c.want {
			t.Errorf("Path(%s) = %q, %d; want %q", c.dir, buf[:k], errno, c.want)
		}
	}
	if _, errno := ns.Path(top, node("a/b/c"), buf[:5]); errno != abi.ERANGE {
		t.Errorf("Path into 5 bytes = %d, want ERANGE", errno)
	}
	if k, errno := ns.Path(top, node("a/b/c"), buf[:6]); errno != 0 || string(buf[:k]) != "/a/b/c" {
		t.Errorf("Path into 6 bytes = %q, %d", buf[:k], errno)
	}
	gone := node("gone")
	must(t, ns.Acquire(gone))
	if r := m.do(unlink("gone", fs.AT_REMOVEDIR)); r.Errno != 0 {
		t.Fatal(r.Errno)
	}
	if _, errno := ns.Path(top, gone, buf); errno != abi.ENOENT {
		t.Errorf("Path of a removed directory = %d, want ENOENT", errno)
	}
	ns.Release(m.pages, gone)
}
