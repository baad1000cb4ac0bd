package p9fs

import (
	"bytes"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/unitrace/unitrace/kernel/abi"

	"github.com/unitrace/unitrace/kernel/fs"
	"github.com/unitrace/unitrace/kernel/fs/p9"
)

const testMsize = 8192

func TestMountAndLookup(t *testing.T) {
	r := newRig(t, testMsize)
	os.MkdirAll(filepath.Join(r.dir, "a/b"), 0o755)
	os.WriteFile(filepath.Join(r.dir, "a/b/f"), []byte("hello"), 0o640)

	if m := r.f.Mode(RootIno); m&fs.S_IFMT != fs.S_IFDIR {
		t.Fatalf("root mode %#o", m)
	}
	ino := r.mustLookup("a", "b", "f")
	if m := r.f.Mode(ino); m != fs.S_IFREG|0o640 {
		t.Errorf("mode %#o, want %#o", m, fs.S_IFREG|0o640)
	}
	if s := r.f.Size(ino); s != 5 {
		t.Errorf("size %d", s)
	}
	// The same file again is the same node; a missing one is ENOENT, through a file ENOTDIR.
	if again := r.mustLookup("a", "b", "f"); again != ino {
		t.Errorf("second lookup ino %#x, first %#x", again, ino)
	}
	if _, errno := r.lookup(0, "a", "nope"); errno != abi.ENOENT {
		t.Errorf("missing: errno %d", errno)
	}
	if _, errno := r.lookup(0, "a", "b", "f", "x"); errno != abi.ENOTDIR {
		t.Errorf("through a file: errno %d", errno)
	}
	// getcwd's names: f was found as "f" in b.
	b := r.mustLookup("a", "b")
	var name [fs.NameMax]byte
	if n, errno := r.f.NameOf(b, ino, name[:]); errno != 0 || string(name[:n]) != "f" {
		t.Errorf("NameOf = %q, %d", name[:n], errno)
	}
	// ".." of the root stays the root (the server keeps walks inside the export).
	if up := r.mustLookup(".."); up != RootIno {
		t.Errorf(`".." of the root is %#x`, up)
	}
	// Each lookup of a name new to the kernel is one rerun: walk, then getattr, chained.
	if r.f.Stats.BadReplies != 0 || r.f.Stats.Unexpected != 0 || r.f.Stats.Diverged != 0 {
		t.Errorf("stats %+v", r.f.Stats)
	}
}

func TestReadWrite(t *testing.T) {
	r := newRig(t, testMsize)
	data := bytes.Repeat([]byte("0123456789abcdef"), 2000) // 32000 bytes: several messages
	os.WriteFile(filepath.Join(r.dir, "f"), data, 0o644)
	ino := r.mustLookup("f")
	r.f.Acquire(ino)

	var got []byte
	buf := make([]byte, 10000)
	for off := int64(0); ; {
		var n int
		errno := r.do(0, func() int {
			var errno int
			n, errno = r.f.Read(0, ino, off, buf)
			return errno
		})
		if errno != 0 {
			t.Fatalf("Read at %d: errno %d", off, errno)
		}
		if n == 0 {
			break
		}
		if n > testMsize-p9.IOHeaderSize {
			t.Fatalf("one read moved %d bytes, more than a message holds", n)
		}
		got = append(got, buf[:n]...)
		off += int64(n)
	}
	if !bytes.Equal(got, data) {
		t.Fatalf("read back %d bytes, want %d", len(got), len(data))
	}

	// Write in the middle, then append.
	for _, tc := range []struct {
		off       int64
		src       string
		appending bool
	}{{5, "XYZ", false}, {0, "-tail", true}} {
		var n int
		errno := r.do(0, func() int {
			var errno int
			n, errno = r.f.Write(0, ino, tc.off, []byte(tc.src), tc.appending)
			return errno
		})
		if errno != 0 || n != len(tc.src) {
			t.Fatalf("Write(%d, %q) = %d, %d", tc.off, tc.src, n, errno)
		}
	}
	want := append(append([]byte{}, data...), "-tail"...)
	copy(want[5:], "XYZ")
	if host, _ := os.ReadFile(filepath.Join(r.dir, "f")); !bytes.Equal(host, want) {
		t.Fatalf("the host holds %d bytes, want %d (head %q)", len(host), len(want), host[:16])
	}
	// The open fids go with the last reference.
	r.f.Release(ino)
	r.pump()
	n, _ := r.f.node(ino)
	for s, fid := range n.open {
		if fid != p9.NoFid {
			t.Errorf("open slot %d still holds fid %d", s, fid)
		}
	}
}

func TestCreateIsExclusiveAcrossReruns(t *testing.T) {
	r := newRig(t, testMsize)
	var ino uint32
	errno := r.do(0, func() int {
		// As vfs's open(O_CREAT|O_EXCL) does: look the name up, create it if missing.
		_, errno := r.f.Lookup(0, RootIno, []byte("new"))
		switch errno {
		case 0:
			return abi.EEXIST
		case abi.ENOENT:
		default:
			return errno
		}
		ino, errno = r.f.Create(0, RootIno, []byte("new"), fs.S_IFREG|0o600)
		return errno
	})
	if errno != 0 {
		t.Fatalf("create: errno %d (the rerun must not see its own file as there before)", errno)
	}
	fi, err := os.Stat(filepath.Join(r.dir, "new"))
	if err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("host: %v %v", fi, err)
	}
	if m := r.f.Mode(ino); m != fs.S_IFREG|0o600 {
		t.Errorf("mode %#o", m)
	}
	// It was opened read-write by the create: a write needs no open of its own.
	r.f.Acquire(ino)
	before := len(r.trips)
	r.do(0, func() int { _, errno := r.f.Write(0, ino, 0, []byte("x"), false); return errno })
	if got := len(r.trips) - before; got != 1 {
		t.Errorf("the first write took %d round trips, want 1", got)
	}
	// A second create of the same name fails as the host says.
	if errno := r.do(0, func() int { _, errno := r.f.Create(0, RootIno, []byte("new"), fs.S_IFREG|0o600); return errno }); errno != abi.EEXIST {
		t.Errorf("second create: errno %d", errno)
	}
	if _, errno := r.f.Create(0, RootIno, []byte("fifo"), fs.S_IFIFO|0o600); errno != abi.EPERM {
		t.Errorf("fifo: errno %d", errno)
	}
}

func TestDirectoryOperations(t *testing.T) {
	r := newRig(t, testMsize)
	do := func(what string, want int, call func() int) {
		t.Helper()
		if errno := r.do(0, call); errno != want {
			t.Errorf("%s: errno %d, want %d", what, errno, want)
		}
	}
	do("mkdir", 0, func() int { return r.f.Mkdir(0, RootIno, []byte("d"), 0o750) })
	do("mkdir again", abi.EEXIST, func() int { return r.f.Mkdir(0, RootIno, []byte("d"), 0o750) })
	d := r.mustLookup("d")
	for _, name := range []string{"x", "y", "z"} {
		do("create "+name, 0, func() int { _, errno := r.f.Create(0, d, []byte(name), 0o644); return errno })
	}
	do("symlink", 0, func() int { return r.f.Symlink(0, d, []byte("l"), []byte("../target")) })
	l := r.mustLookup("d", "l")
	var target [64]byte
	var tn int
	do("readlink", 0, func() int { var errno int; tn, errno = r.f.Readlink(0, l, target[:]); return errno })
	if string(target[:tn]) != "../target" {
		t.Errorf("readlink = %q", target[:tn])
	}
	x := r.mustLookup("d", "x")
	do("link", 0, func() int { return r.f.Link(0, RootIno, []byte("x2"), x) })
	do("rename", 0, func() int { return r.f.Rename(0, d, []byte("y"), RootIno, []byte("y2")) })
	do("unlink", 0, func() int { return r.f.Unlink(0, d, []byte("z"), false) })
	do("unlink a directory", abi.EISDIR, func() int { return r.f.Unlink(0, RootIno, []byte("d"), false) })
	// POSIX allows either errno for a directory that is not empty; the host's passes through.
	if errno := r.do(0, func() int { return r.f.Unlink(0, RootIno, []byte("d"), true) }); errno != abi.ENOTEMPTY && errno != abi.EEXIST {
		t.Errorf("rmdir non-empty: errno %d", errno)
	}

	if names := r.readDir(d, 64); strings.Join(names, " ") != "l x" {
		t.Errorf("d holds %v", names)
	}
	// A buffer that takes one entry at a time still lists everything, by cookies.
	if names := r.readDir(RootIno, fs.DirentLen(8)); strings.Join(names, " ") != "d x2 y2" {
		t.Errorf("root holds %v", names)
	}
	var small [8]byte
	if errno := r.do(0, func() int { _, _, errno := r.f.ReadDir(0, d, 0, small[:]); return errno }); errno != abi.EINVAL {
		t.Errorf("ReadDir into 8 bytes: errno %d", errno)
	}
	host, _ := os.ReadDir(filepath.Join(r.dir, "d"))
	if len(host) != 2 {
		t.Errorf("host d: %v", host)
	}
}

// readDir lists directory ino with getdents64-sized batches of size bytes.
func (r *rig) readDir(ino uint32, size int) []string {
	r.t.Helper()
	names, errno := r.names(ino, size)
	if errno != 0 {
		r.t.Fatalf("ReadDir: errno %d", errno)
	}
	return names
}

// names reads directory ino in batches of size bytes, each call of waiter 0 a system call of
// its own as getdents64's are, and returns the names in it but "." and ".." (whether those are
// listed is the server's business; QEMU's are), sorted.
func (r *rig) names(ino uint32, size int) ([]string, int) {
	buf := make([]byte, size)
	var names []string
	for cookie := uint64(0); ; {
		var n int
		var next uint64
		if errno := r.do(0, func() int {
			var errno int
			n, next, errno = r.f.ReadDir(0, ino, cookie, buf)
			return errno
		}); errno != 0 {
			return nil, errno
		}
		if n == 0 {
			break
		}
		for b := buf[:n]; len(b) > 0; {
			reclen := int(b[16]) | int(b[17])<<8
			name := b[19:reclen]
			if s := string(name[:bytes.IndexByte(name, 0)]); s != "." && s != ".." {
				names = append(names, s)
			}
			b = b[reclen:]
		}
		cookie = next
	}
	sort.Strings(names)
	return names, 0
}

func TestStatAndSetattr(t *testing.T) {
	r := newRig(t, testMsize)
	os.WriteFile(filepath.Join(r.dir, "f"), []byte("abcdef"), 0o644)
	ino := r.mustLookup("f")
	a := p9.SetAttr{Valid: p9.SetattrSize | p9.SetattrMode | p9.SetattrMtime | p9.SetattrMtimeSet, Size: 2, Mode: 0o600, MtimeSec: 1_000_000_000, MtimeNsec: 5}
	if errno := r.do(0, func() int { return r.f.Setattr(0, ino, a) }); errno != 0 {
		t.Fatalf("Setattr: errno %d", errno)
	}
	var st fs.Stat
	if errno := r.do(0, func() int { var errno int; st, errno = r.f.Stat(0, ino); return errno }); errno != 0 {
		t.Fatalf("Stat: errno %d", errno)
	}
	fi, _ := os.Lstat(filepath.Join(r.dir, "f"))
	if st.Size != 2 || st.Mode != fs.S_IFREG|0o600 || st.Mtime != (fs.Timespec{Sec: 1_000_000_000, Nsec: 5}) || fi.Size() != 2 {
		t.Errorf("stat %+v; host size %d", st, fi.Size())
	}
	var sfs fs.Statfs
	if errno := r.do(0, func() int { var errno int; sfs, errno = r.f.Statfs(0); return errno }); errno != 0 || sfs.Bsize == 0 {
		t.Errorf("Statfs = %+v, %d", sfs, errno)
	}
}

// Two threads' calls interleave: each runs its own log, replies come back in any order, and
// neither sees the other's answers.
func TestWaitersInterleave(t *testing.T) {
	r := newRig(t, testMsize)
	for i := 0; i < 8; i++ {
		os.WriteFile(filepath.Join(r.dir, string(rune('a'+i))), bytes.Repeat([]byte{byte('a' + i)}, 100+i), 0o644)
	}
	type call struct {
		w     int32
		name  string
		ino   uint32
		stage int
		n     int
		errno int
	}
	calls := make([]*call, 8)
	for i := range calls {
		calls[i] = &call{w: int32(i * 3), name: string(rune('a' + i))}
	}
	buf := make([]byte, 512)
	step := func(c *call) int {
		r.f.Begin(c.w)
		ino, errno := r.f.Lookup(c.w, RootIno, []byte(c.name))
		if errno != 0 {
			return errno
		}
		c.ino = ino
		n, errno := r.f.Read(c.w, ino, 0, buf)
		c.n = n
		return errno
	}
	pending := len(calls)
	for rounds := 0; pending > 0; rounds++ {
		if rounds > 20 {
			t.Fatal("calls do not end")
		}
		for _, c := range calls {
			if c.stage == 0 {
				if c.errno = step(c); c.errno != fs.EQUEUED {
					c.stage = 1
					pending--
					if c.errno != 0 || c.n != 100+int(c.w)/3 || buf[0] != c.name[0] {
						t.Errorf("%s: read %d bytes (%q...), errno %d", c.name, c.n, buf[:1], c.errno)
					}
					r.f.End(c.w)
				}
			}
		}
		r.pump()
		for _, ok := r.f.NextWake(); ok; _, ok = r.f.NextWake() {
		}
	}
	if r.f.Stats.Diverged != 0 {
		t.Errorf("diverged %d times", r.f.Stats.Diverged)
	}
}

// A rerun that asks something else than its log holds starts afresh from there.
func TestDivergedRerun(t *testing.T) {
	r := newRig(t, testMsize)
	os.WriteFile(filepath.Join(r.dir, "a"), nil, 0o644)
	os.WriteFile(filepath.Join(r.dir, "b"), nil, 0o644)
	name := "a"
	var ino uint32
	errno := r.do(0, func() int {
		var errno int
		ino, errno = r.f.Lookup(0, RootIno, []byte(name))
		name = "b" // the next run asks for another name
		return errno
	})
	if errno != 0 || ino != r.mustLookup("b") {
		t.Fatalf("ino %#x errno %d", ino, errno)
	}
	if r.f.Stats.Diverged == 0 {
		t.Error("no divergence counted")
	}
}

// Nodes nobody holds are reused; an inode of a reused node is stale.
func TestNodeReuse(t *testing.T) {
	r := newRig(t, testMsize)
	for i := 0; i < MaxNodes+10; i++ {
		os.WriteFile(filepath.Join(r.dir, "f"+string(rune('0'+i%10))+string(rune('a'+i/10%26))+string(rune('a'+i/260))), nil, 0o644)
	}
	entries, _ := os.ReadDir(r.dir)
	first := r.mustLookup(entries[0].Name())
	r.f.Acquire(first)
	second := r.mustLookup(entries[1].Name())
	for _, e := range entries[2:] {
		r.mustLookup(e.Name())
	}
	if r.f.Stats.NodesReused == 0 {
		t.Fatal("no node was reused")
	}
	if r.f.Mode(first) == 0 {
		t.Error("a referenced node was reused")
	}
	if _, errno := r.f.node(second); errno != abi.ESTALE {
		t.Errorf("the reused node's old inode: errno %d, want ESTALE", errno)
	}
	r.pump()
	if r.f.Stats.LeakedFids != 0 {
		t.Errorf("%d fids leaked", r.f.Stats.LeakedFids)
	}
}

// With every tag taken, a call waits for one and then goes on.
func TestWaitsForATag(t *testing.T) {
	r := newRig(t, testMsize)
	os.WriteFile(filepath.Join(r.dir, "f"), []byte("x"), 0o644)
	// Sixteen waiters start lookups; nothing is carried until all have tried.
	var errnos [p9.MaxOps + 1]int
	for w := range errnos {
		r.f.Begin(int32(w))
		_, errnos[w] = r.f.Lookup(int32(w), RootIno, []byte("f"))
		if errnos[w] != fs.EQUEUED {
			t.Fatalf("waiter %d: errno %d", w, errnos[w])
		}
	}
	r.pump()
	woken := map[int32]bool{}
	for w, ok := r.f.NextWake(); ok; w, ok = r.f.NextWake() {
		woken[w] = true
	}
	if !woken[p9.MaxOps] {
		t.Fatalf("the waiter without a tag was not woken when tags came free: %v", woken)
	}
	for w := range errnos {
		if _, errno := r.lookup(int32(w), "f"); errno != 0 {
			t.Errorf("waiter %d: errno %d", w, errno)
		}
	}
}

// A system call that stats a file and then writes at its end (write(2) with O_APPEND does)
// must see the same size on every rerun, though its own write changes the node's: else each
// rerun writes again, further on.
func TestRerunSeesTheSameStat(t *testing.T) {
	r := newRig(t, testMsize)
	os.WriteFile(filepath.Join(r.dir, "log"), []byte("one\n"), 0o644)
	ino := r.mustLookup("log")
	r.f.Acquire(ino)
	for _, line := range []string{"two\n", "three\n"} {
		errno := r.do(0, func() int {
			st, errno := r.f.Stat(0, ino)
			if errno != 0 {
				return errno
			}
			_, errno = r.f.Write(0, ino, st.Size, []byte(line), false)
			return errno
		})
		if errno != 0 {
			t.Fatalf("append %q: errno %d", line, errno)
		}
	}
	if got, _ := os.ReadFile(filepath.Join(r.dir, "log")); string(got) != "one\ntwo\nthree\n" {
		t.Errorf("the host holds %q", got)
	}
	if r.f.Stats.Diverged != 0 {
		t.Errorf("%d reruns diverged", r.f.Stats.Diverged)
	}
}

// A host reuses a removed file's inode number for the next file, so a qid alone does not say
// a walk found a file the kernel knows: after our unlink, a new file under the same name is a
// new node, and a directory made where a file was is a directory.
func TestRemovedNodeIsNotFoundAgain(t *testing.T) {
	r := newRig(t, testMsize)
	for round := 0; round < 3; round++ {
		os.WriteFile(filepath.Join(r.dir, "f"), []byte("old"), 0o644)
		old := r.mustLookup("f")
		r.f.Acquire(old)
		if errno := r.do(0, func() int { return r.f.Unlink(0, RootIno, []byte("f"), false) }); errno != 0 {
			t.Fatalf("unlink: errno %d", errno)
		}
		if errno := r.do(0, func() int { return r.f.Mkdir(0, RootIno, []byte("f"), 0o755) }); errno != 0 {
			t.Fatalf("mkdir: errno %d", errno)
		}
		d := r.mustLookup("f")
		if d == old || r.f.Mode(d)&fs.S_IFMT != fs.S_IFDIR {
			t.Fatalf("round %d: the new directory is inode %#x mode %#o (the removed file was %#x)", round, d, r.f.Mode(d), old)
		}
		r.f.Release(old)
		if errno := r.do(0, func() int { return r.f.Unlink(0, RootIno, []byte("f"), true) }); errno != 0 {
			t.Fatalf("rmdir: errno %d", errno)
		}
	}
}

// The host directory removed under a running share: calls fail with the host's errno, and
// nothing else breaks (the file already open still reads, as an unlinked file does on Linux).
func TestHostDirectoryRemoved(t *testing.T) {
	r := newRig(t, testMsize)
	os.MkdirAll(filepath.Join(r.dir, "sub"), 0o755)
	os.WriteFile(filepath.Join(r.dir, "sub", "f"), []byte("still here"), 0o644)
	f := r.mustLookup("sub", "f")
	r.f.Acquire(f)
	buf := make([]byte, 64)
	r.do(0, func() int { _, errno := r.f.Read(0, f, 0, buf[:1]); return errno }) // opens it
	if err := os.RemoveAll(filepath.Join(r.dir, "sub")); err != nil {
		t.Fatal(err)
	}
	if _, errno := r.lookup(0, "sub", "f"); errno != abi.ENOENT {
		t.Errorf("lookup after the removal: errno %d, want ENOENT", errno)
	}
	var n int
	if errno := r.do(0, func() int { var errno int; n, errno = r.f.Read(0, f, 0, buf); return errno }); errno != 0 || string(buf[:n]) != "still here" {
		t.Errorf("read of the open file: %q, errno %d", buf[:n], errno)
	}
	if errno := r.do(0, func() int { _, errno := r.f.Create(0, RootIno, []byte("new"), 0o644); return errno }); errno != 0 {
		t.Errorf("the share's root still takes files: errno %d", errno)
	}
}

// A system call whose own held replies take every tag cannot wait for one: its next call
// fails with EIO instead of waiting for ever.
func TestHeldTagsDoNotDeadlock(t *testing.T) {
	r := newRig(t, testMsize)
	for i := 0; i < p9.MaxOps+1; i++ {
		os.Symlink("target", filepath.Join(r.dir, "l"+string(rune('a'+i))))
	}
	links := make([]uint32, p9.MaxOps+1)
	for i := range links {
		links[i] = r.mustLookup("l" + string(rune('a'+i)))
	}
	var buf [16]byte
	errno := r.do(0, func() int {
		for _, l := range links {
			if _, errno := r.f.Readlink(0, l, buf[:]); errno != 0 {
				return errno
			}
		}
		return 0
	})
	if errno != abi.EIO || r.f.Stats.TagsHeld != 1 {
		t.Errorf("errno %d, TagsHeld %d; want EIO once", errno, r.f.Stats.TagsHeld)
	}
	// The system call ended: its tags are free for the next.
	if _, errno := r.lookup(0, "la"); errno != 0 {
		t.Errorf("after it: errno %d", errno)
	}
}
