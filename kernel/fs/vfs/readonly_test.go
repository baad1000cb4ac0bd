package vfs

import (
	"testing"

	"github.com/unitrace/unitrace/kernel/abi"

	"github.com/unitrace/unitrace/kernel/fs"
	"github.com/unitrace/unitrace/kernel/fs/memfs"
)

// TestReadOnlyWithoutOpen covers what the scenarios cannot reach through open descriptors: Write
// and Ftruncate on a node of a read-only file system, statfs's view of it, and ReadOnly itself.
func TestReadOnlyWithoutOpen(t *testing.T) {
	m := newMem(t, memfs.Capacity{Bytes: 1 << 20, Inodes: 100})
	root := At{Root: m.ns.Root(), Dir: m.ns.Root()}
	must(t, m.ns.Mkdir(m.pages, root, []byte("ro"), 0o755, m.now()))
	at, errno := m.ns.Resolve(root.Root, root.Dir, []byte("ro"), true, false)
	must(t, errno)
	mnt, errno := m.ns.MountMem(m.pages, at, memfs.Capacity{Bytes: 1 << 20, Inodes: 50}, m.now())
	must(t, errno)
	f, _, errno := m.ns.Open(m.pages, root, []byte("ro/f"), fs.O_CREAT|fs.O_RDWR, 0o644, m.now())
	must(t, errno)
	if _, errno := m.ns.Write(m.pages, f, 0, []byte("hello"), false, m.now()); errno != 0 {
		t.Fatal(errno)
	}
	if m.ns.ReadOnly(f) || m.ns.ReadOnly(m.ns.Root()) {
		t.Fatal("ReadOnly before SetReadOnly")
	}
	must(t, m.ns.SetReadOnly(mnt))
	if !m.ns.ReadOnly(f) || !m.ns.ReadOnly(mnt) || m.ns.ReadOnly(m.ns.Root()) || m.ns.ReadOnly(at) {
		t.Fatal("ReadOnly: wrong file systems")
	}
	if _, errno := m.ns.Write(m.pages, f, 0, []byte("x"), false, m.now()); errno != abi.EROFS {
		t.Errorf("Write = %d, want EROFS", errno)
	}
	if _, errno := m.ns.Write(m.pages, f, 0, []byte("x"), true, m.now()); errno != abi.EROFS {
		t.Errorf("appending Write = %d, want EROFS", errno)
	}
	if errno := m.ns.Ftruncate(m.pages, f, 0, m.now()); errno != abi.EROFS {
		t.Errorf("Ftruncate = %d, want EROFS", errno)
	}
	buf := make([]byte, 8)
	if n, errno := m.ns.Read(f, 0, buf, m.now()); errno != 0 || string(buf[:n]) != "hello" {
		t.Errorf("Read = %q, %d", buf[:n], errno)
	}
	st, errno := m.ns.Statfs(f)
	if errno != 0 || st.Bfree != 0 || st.Bavail != 0 || st.Ffree != 0 || st.Blocks == 0 || st.Files != 2 {
		t.Errorf("Statfs of the read-only file system = %+v, %d; want no free blocks or inodes", st, errno)
	}
	if st, _ := m.ns.Statfs(m.ns.Root()); st.Bfree == 0 || st.Ffree == 0 {
		t.Errorf("Statfs of / = %+v, want free blocks and inodes", st)
	}
	if errno := m.ns.SetReadOnly(Node{FS: 7, Ino: 1}); errno != abi.ENOENT {
		t.Errorf("SetReadOnly of an unmounted file system = %d, want ENOENT", errno)
	}
	m.ns.Release(m.pages, f)
}
