package memfs

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/unitrace/unitrace/kernel/abi"

	"github.com/unitrace/unitrace/kernel/fs"
	"github.com/unitrace/unitrace/kernel/fs/fstest"
)

var now = fs.Timespec{Sec: 1_700_000_000}

func newFS(t testing.TB, c Capacity) (*FS, *fstest.Pages) {
	t.Helper()
	p := fstest.NewPages(t, 1<<15)
	f := new(FS)
	if errno := f.Init(p, c, 0o1777, now); errno != 0 {
		t.Fatalf("Init = %d", errno)
	}
	t.Cleanup(func() {
		if p.Err != nil {
			t.Error(p.Err)
		}
	})
	return f, p
}

func must(t testing.TB, errno int) {
	t.Helper()
	if errno != 0 {
		t.Fatalf("errno %d", errno)
	}
}

func create(t testing.TB, f *FS, p Pages, dir uint32, name string) uint32 {
	t.Helper()
	ino, errno := f.Create(p, dir, []byte(name), 0o644, 0, now)
	must(t, errno)
	return ino
}

func TestHolesAndTruncate(t *testing.T) {
	f, p := newFS(t, Capacity{Bytes: 1 << 20, Inodes: 10})
	ino := create(t, f, p, RootIno, "f")
	for _, off := range []int64{0, 5000, 3 << 20, 1 << 40, fs.MaxFileSize - 3} {
		if n, errno := f.Write(p, ino, off, []byte("abc"), now); n != 3 || errno != 0 {
			t.Fatalf("Write at %d = %d, %d", off, n, errno)
		}
		buf := make([]byte, 10)
		n, errno := f.Read(ino, off-3, buf, now)
		if off < 3 {
			n, errno = f.Read(ino, 0, buf, now)
		}
		if errno != 0 || (off >= 3 && !bytes.Equal(buf[:min(n, 6)], []byte("\x00\x00\x00abc")[:min(n, 6)])) {
			t.Fatalf("Read around %d = %q, %d", off, buf[:n], errno)
		}
		checkInvariants(t, f)
	}
	if st, _ := f.Stat(ino); st.Size != fs.MaxFileSize || st.Blocks != 5*8 {
		t.Fatalf("stat %+v", st)
	}
	if n, errno := f.Write(p, ino, fs.MaxFileSize-1, []byte("xy"), now); n != 1 || errno != 0 {
		t.Fatalf("Write across MaxFileSize = %d, %d", n, errno)
	}
	if _, errno := f.Write(p, ino, fs.MaxFileSize, []byte("x"), now); errno != abi.EFBIG {
		t.Fatalf("Write at MaxFileSize = %d", errno)
	}
	must(t, f.Truncate(p, ino, 5001, false, now))
	checkInvariants(t, f)
	must(t, f.Truncate(p, ino, 9000, false, now))
	buf := make([]byte, 9000)
	n, _ := f.Read(ino, 0, buf, now)
	want := make([]byte, 9000)
	copy(want, "abc")
	want[5000] = 'a'
	if n != 9000 || !bytes.Equal(buf, want) {
		t.Fatalf("after shrink and grow: %d bytes, tail zeroed: %v", n, bytes.Equal(buf[5001:], want[5001:]))
	}
	if st, _ := f.Stat(ino); st.Blocks != 2*8 {
		t.Fatalf("blocks after truncate: %d", st.Blocks)
	}
	must(t, f.Truncate(p, ino, 0, false, now))
	if in := f.inode(ino); in.root != 0 || f.usedPages != 1 { // the root directory's entries remain
		t.Fatalf("after truncating to 0: tree %#x, %d pages in use", in.root, f.usedPages)
	}
}

func TestCapacity(t *testing.T) {
	f, p := newFS(t, Capacity{Bytes: 8 * PageSize, Inodes: 4})
	a := create(t, f, p, RootIno, "a")
	create(t, f, p, RootIno, "b")
	create(t, f, p, RootIno, "c")
	if _, errno := f.Create(p, RootIno, []byte("d"), 0o644, 0, now); errno != abi.ENOSPC {
		t.Fatalf("fifth inode: %d", errno)
	}
	// One page holds the root's entries; seven are left for data.
	n, errno := f.Write(p, a, 0, make([]byte, 10*PageSize), now)
	if errno != 0 || n != 6*PageSize { // six data pages and the table indexing them
		t.Fatalf("Write past the capacity = %d, %d", n, errno)
	}
	if _, errno := f.Write(p, a, int64(n), []byte("x"), now); errno != abi.ENOSPC {
		t.Fatalf("Write when full = %d", errno)
	}
	if _, errno := f.Symlink(p, RootIno, []byte("l"), []byte("t"), now); errno != abi.ENOSPC {
		t.Fatalf("Symlink when full = %d", errno)
	}
	checkInvariants(t, f)
	must(t, f.Unlink(p, RootIno, []byte("a"), now))
	if _, errno := f.Symlink(p, RootIno, []byte("l"), []byte("t"), now); errno != 0 {
		t.Fatalf("Symlink after freeing = %d", errno)
	}
	checkInvariants(t, f)
	// The kernel running out of pages before the capacity does is fs.ENOSPC too.
	p.Limit = p.InUse()
	b, _ := f.Lookup(RootIno, []byte("b"))
	if _, errno := f.Write(p, b, 0, []byte("x"), now); errno != abi.ENOSPC {
		t.Fatalf("Write with no pages = %d", errno)
	}
	checkInvariants(t, f)
}

func TestUnlinkedOpenFile(t *testing.T) {
	f, p := newFS(t, Capacity{Bytes: 1 << 20, Inodes: 10})
	ino := create(t, f, p, RootIno, "f")
	must(t, f.Acquire(ino))
	f.Write(p, ino, 0, []byte("data"), now)
	must(t, f.Unlink(p, RootIno, []byte("f"), now))
	buf := make([]byte, 4)
	if n, errno := f.Read(ino, 0, buf, now); n != 4 || errno != 0 || string(buf) != "data" {
		t.Fatalf("Read after unlink = %q, %d", buf[:n], errno)
	}
	if _, errno := f.Lookup(RootIno, []byte("f")); errno != abi.ENOENT {
		t.Fatalf("Lookup after unlink = %d", errno)
	}
	if errno := f.Link(p, RootIno, []byte("g"), ino, now); errno != abi.ENOENT {
		t.Fatalf("Link of an unlinked file = %d", errno)
	}
	checkInvariants(t, f)
	f.Release(p, ino)
	if f.Mode(ino) != 0 || f.usedPages != 0 || f.usedInodes != 1 {
		t.Fatalf("after the last Release: mode %#o, %d pages, %d inodes", f.Mode(ino), f.usedPages, f.usedInodes)
	}
	checkInvariants(t, f)
}

// TestReadDirCookies removes and adds entries between getdents calls: every entry present
// throughout is returned exactly once, none that was removed before the reader reached it is.
func TestReadDirCookies(t *testing.T) {
	f, p := newFS(t, Capacity{Bytes: 1 << 20, Inodes: 1000})
	r := rand.New(rand.NewPCG(1, 2))
	const n = 200
	names := make([]string, n)
	for i := range names {
		names[i] = string(rune('a'+i%26)) + string(rune('a'+i/26))
		create(t, f, p, RootIno, names[i])
	}
	seen := map[string]int{}
	removed := map[string]bool{}
	buf := make([]byte, 100)
	added := 0
	for cookie := uint64(0); ; {
		k, next, errno := f.ReadDir(RootIno, cookie, buf, now)
		must(t, errno)
		if k == 0 {
			break
		}
		for b := buf[:k]; len(b) > 0; {
			reclen := int(b[16]) | int(b[17])<<8
			name := string(bytes.TrimRight(b[19:reclen], "\x00"))
			seen[name]++
			if removed[name] {
				t.Fatalf("%s returned after its removal", name)
			}
			b = b[reclen:]
		}
		cookie = next
		victim := names[r.IntN(n)]
		if !removed[victim] {
			must(t, f.Unlink(p, RootIno, []byte(victim), now))
			removed[victim] = true
		}
		added++
		create(t, f, p, RootIno, fmt.Sprint("new", added))
		f.Unlink(p, RootIno, []byte(fmt.Sprint("new", r.IntN(added+1))), now)
	}
	for _, name := range names {
		if !removed[name] && seen[name] != 1 {
			t.Fatalf("%s returned %d times", name, seen[name])
		}
		if seen[name] > 1 {
			t.Fatalf("%s returned %d times", name, seen[name])
		}
	}
	if seen["."] != 1 || seen[".."] != 1 {
		t.Fatalf(". and .. returned %d, %d times", seen["."], seen[".."])
	}
	checkInvariants(t, f)
}

func TestDestroyGivesBackEveryPage(t *testing.T) {
	f, p := newFS(t, Capacity{Bytes: 1 << 24, Inodes: 100})
	d, _ := f.Mkdir(p, RootIno, []byte("d"), 0o755, now)
	for i := 0; i < 50; i++ {
		ino := create(t, f, p, d, "f"+string(rune('a'+i)))
		f.Write(p, ino, int64(i)<<20, []byte("x"), now)
	}
	f.Symlink(p, RootIno, []byte("l"), []byte("target"), now)
	checkInvariants(t, f)
	f.Destroy(p)
	if p.InUse() != 0 {
		t.Fatalf("%d pages not given back", p.InUse())
	}
}

// TestRandomOperations runs random name operations in a small tree, checking the invariants
// after each, with a capacity small enough that fs.ENOSPC comes up, then removes everything and
// checks that every page came back.
func TestRandomOperations(t *testing.T) {
	for seed := uint64(0); seed < 20; seed++ {
		f, p := newFS(t, Capacity{Bytes: 40 * PageSize, Inodes: 30})
		r := rand.New(rand.NewPCG(seed, 3))
		randomOps(t, f, p, func(n int) int { return r.IntN(n) }, 2000)
		emptyAll(t, f, p)
	}
}

func FuzzOperations(f *testing.F) {
	f.Add([]byte{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 0, 0, 1, 1, 2, 2})
	f.Fuzz(func(t *testing.T, ops []byte) {
		fsys, p := newFS(t, Capacity{Bytes: 20 * PageSize, Inodes: 16})
		next := func(n int) int {
			if len(ops) == 0 {
				return 0
			}
			v := int(ops[0]) % n
			ops = ops[1:]
			return v
		}
		randomOps(t, fsys, p, next, len(ops)/3)
		emptyAll(t, fsys, p)
	})
}

var opNames = [][]byte{[]byte("a"), []byte("b"), []byte("c"), []byte("."), []byte(".."), []byte(""), []byte("x/y"), bytes.Repeat([]byte("z"), 256)}

func randomOps(t testing.TB, f *FS, p *fstest.Pages, next func(int) int, steps int) {
	t.Helper()
	inode := func() uint32 { return uint32(next(int(f.nextIno) + 1)) }
	name := func() []byte { return opNames[next(len(opNames))] }
	offs := []int64{0, 100, 4096, 1 << 20, 1 << 30}
	var opens []uint32
	for i := 0; i < steps; i++ {
		switch next(13) {
		case 0:
			f.Create(p, inode(), name(), uint32([]int{0, fs.S_IFCHR, fs.S_IFIFO, fs.S_IFDIR}[next(4)]|0o644), fs.DevNull, now)
		case 1:
			f.Mkdir(p, inode(), name(), 0o755, now)
		case 2:
			f.Symlink(p, inode(), name(), [][]byte{[]byte("t"), bytes.Repeat([]byte("t"), 4000), nil}[next(3)], now)
		case 3:
			f.Link(p, inode(), name(), inode(), now)
		case 4:
			f.Unlink(p, inode(), name(), now)
		case 5:
			f.Rmdir(p, inode(), name(), now)
		case 6:
			f.Rename(p, inode(), name(), inode(), name(), uint32(next(4)), now)
		case 7:
			f.Write(p, inode(), offs[next(len(offs))], make([]byte, []int{1, 5000}[next(2)]), now)
		case 8:
			f.Truncate(p, inode(), offs[next(len(offs))]+int64(next(3)), next(2) == 0, now)
		case 9:
			ino := inode()
			if f.Acquire(ino) == 0 {
				opens = append(opens, ino)
			}
		case 10:
			if len(opens) > 0 {
				j := next(len(opens))
				f.Release(p, opens[j])
				opens = append(opens[:j], opens[j+1:]...)
			}
		case 11:
			buf := make([]byte, 300)
			f.ReadDir(inode(), uint64(next(5)), buf, now)
			f.Read(inode(), offs[next(len(offs))], buf, now)
		case 12:
			f.SetMounted(inode(), next(2) == 0)
		}
		checkInvariants(t, f)
		if p.Err != nil {
			t.Fatal(p.Err)
		}
	}
	for _, ino := range opens {
		f.Release(p, ino)
	}
	checkInvariants(t, f)
}

// emptyAll removes everything below the root, and checks that only the root and the inode
// table's pages remain.
func emptyAll(t testing.TB, f *FS, p *fstest.Pages) {
	t.Helper()
	var rm func(dir uint32)
	rm = func(dir uint32) {
		d := f.inode(dir)
		for i := uint32(0); i < d.slotEnd; i++ {
			s := slotAt(d, i)
			if s == nil || s.ino == 0 {
				continue
			}
			name := append([]byte(nil), s.name[:s.len]...)
			if isDir(f.inode(s.ino)) {
				f.inode(s.ino).mounted = false
				rm(s.ino)
				must(t, f.Rmdir(p, dir, name, now))
			} else {
				must(t, f.Unlink(p, dir, name, now))
			}
		}
	}
	rm(RootIno)
	checkInvariants(t, f)
	if f.usedInodes != 1 || f.usedPages != 0 || uint64(p.InUse()) != f.inodeTabN {
		t.Fatalf("after removing everything: %d inodes, %d pages counted, %d in use", f.usedInodes, f.usedPages, p.InUse())
	}
}

func BenchmarkWrite(b *testing.B) {
	for _, size := range []int{512, 64 << 10} {
		b.Run(itoa(size), func(b *testing.B) {
			f, p := newFS(b, Capacity{Bytes: 64 << 20, Inodes: 10})
			ino := create(b, f, p, RootIno, "f")
			buf := make([]byte, size)
			b.SetBytes(int64(size))
			for i := 0; b.Loop(); i++ {
				off := int64(i*size) % (32 << 20)
				if _, errno := f.Write(p, ino, off, buf, now); errno != 0 {
					b.Fatal(errno)
				}
			}
		})
	}
}

func BenchmarkRead(b *testing.B) {
	for _, size := range []int{512, 64 << 10} {
		b.Run(itoa(size), func(b *testing.B) {
			f, p := newFS(b, Capacity{Bytes: 64 << 20, Inodes: 10})
			ino := create(b, f, p, RootIno, "f")
			f.Write(p, ino, 0, make([]byte, 32<<20), now)
			buf := make([]byte, size)
			b.SetBytes(int64(size))
			for i := 0; b.Loop(); i++ {
				off := int64(i*size) % (32 << 20)
				if _, errno := f.Read(ino, off, buf, now); errno != 0 {
					b.Fatal(errno)
				}
			}
		})
	}
}

func itoa(n int) string {
	if n >= 1024 {
		return fmt.Sprintf("%dKiB", n/1024)
	}
	return fmt.Sprintf("%dB", n)
}

// TestNoAtime checks that SetNoAtime stops reads and directory listings from moving the access
// time, which they otherwise move once it is a day old (relatime).
func TestNoAtime(t *testing.T) {
	f, p := newFS(t, Capacity{Bytes: 1 << 20, Inodes: 10})
	ino := create(t, f, p, RootIno, "f")
	if _, errno := f.Write(p, ino, 0, []byte("data"), now); errno != 0 {
		t.Fatal(errno)
	}
	atime := func(ino uint32) fs.Timespec {
		st, _ := f.Stat(ino)
		return st.Atime
	}
	later := fs.Timespec{Sec: now.Sec + 2*24*60*60}
	buf := make([]byte, 8)
	dents := make([]byte, 256)
	f.SetNoAtime(true)
	f.Read(ino, 0, buf, later)
	f.ReadDir(RootIno, 0, dents, later)
	if atime(ino) != now || atime(RootIno) != now {
		t.Errorf("with SetNoAtime: atimes %v %v, want %v", atime(ino), atime(RootIno), now)
	}
	f.SetNoAtime(false)
	f.Read(ino, 0, buf, later)
	f.ReadDir(RootIno, 0, dents, later)
	if atime(ino) != later || atime(RootIno) != later {
		t.Errorf("without: atimes %v %v, want %v", atime(ino), atime(RootIno), later)
	}
}
