package p9

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/unitrace/unitrace/kernel/abi"
	"github.com/unitrace/unitrace/kernel/fs"
)

// rig is a Client talking to a fakeServer over a pipe, with a session open and the root
// attached.
type rig struct {
	t    *testing.T
	c    *Client
	srv  *fakeServer
	conn net.Conn
	dir  string // what the server serves
	root uint32
	req  []byte
	resp []byte
}

func newRig(t *testing.T, msize uint32) *rig {
	t.Helper()
	r := &rig{t: t, c: new(Client), dir: t.TempDir(), req: make([]byte, msize), resp: make([]byte, msize)}
	r.srv, r.conn = startServer(t, r.dir)
	res := r.do(r.c.Version(r.req, msize))
	if res.Errno != 0 || res.Msize != min(msize, serverMsize) {
		t.Fatalf("Version: %+v", res)
	}
	res = r.do(r.c.Attach(r.req, []byte("user"), nil, uint32(os.Getuid())))
	if res.Errno != 0 || res.Qid.Type != QTDIR {
		t.Fatalf("Attach: %+v", res)
	}
	r.root = res.Fid
	return r
}

// send writes the request b to the server.
func (r *rig) send(b []byte) {
	r.t.Helper()
	if _, err := r.conn.Write(b); err != nil {
		r.t.Fatalf("send: %v", err)
	}
}

// recv reads one reply and returns its tag (NoTag's slot is the caller's business) and its
// bytes (none for a cancelFrame), in a fresh buffer.
func (r *rig) recv() (uint16, []byte) {
	r.t.Helper()
	r.conn.SetReadDeadline(time.Now().Add(10 * time.Second))
	var hdr [HeaderSize]byte
	if _, err := io.ReadFull(r.conn, hdr[:]); err != nil {
		r.t.Fatalf("recv: %v", err)
	}
	tag := binary.LittleEndian.Uint16(hdr[5:])
	size := binary.LittleEndian.Uint32(hdr[:])
	if size == 0 {
		return tag, nil
	}
	b := make([]byte, size)
	copy(b, hdr[:])
	if _, err := io.ReadFull(r.conn, b[HeaderSize:]); err != nil {
		r.t.Fatalf("recv: %v", err)
	}
	return tag, b
}

// do runs an operation the caller just started to its end, synchronously: the request in
// r.req, then every follow-up Reply asks for. A start that failed is returned as a Done result
// with its errno.
func (r *rig) do(tag uint16, n int, errno int) Result {
	r.t.Helper()
	if errno != 0 {
		return Result{Done: true, Errno: errno}
	}
	for hops := 0; ; hops++ {
		r.send(r.req[:n])
		got, reply := r.recv()
		if want := tag; r.c.ops[tag].kind == opVersion {
			want = NoTag
			if got != want {
				r.t.Fatalf("reply tag %d, want %d", got, want)
			}
		} else if got != want {
			r.t.Fatalf("reply tag %d, want %d", got, want)
		}
		res := r.c.Reply(tag, reply, r.req)
		if res.Done {
			return res
		}
		if hops > 100 {
			r.t.Fatalf("operation does not end")
		}
		n = res.Next
	}
}

// walk walks path from the root and returns the new fid, failing the test on an error.
func (r *rig) walk(path string) uint32 {
	r.t.Helper()
	res := r.do(r.c.Walk(r.req, r.root, []byte(path)))
	if res.Errno != 0 {
		r.t.Fatalf("walk %q: errno %d (%v)", path, res.Errno, res.Err)
	}
	return res.Fid
}

// open opens path from the root.
func (r *rig) open(path string, flags uint32) Result {
	r.t.Helper()
	return r.do(r.c.Open(r.req, r.root, []byte(path), flags))
}

func (r *rig) clunk(fid uint32) {
	r.t.Helper()
	if res := r.do(r.c.Clunk(r.req, fid)); res.Errno != 0 {
		r.t.Fatalf("clunk %d: %d", fid, res.Errno)
	}
}

// readAll reads an open fid from offset 0 to the end.
func (r *rig) readAll(fid uint32) []byte {
	r.t.Helper()
	var out []byte
	for {
		res := r.do(r.c.Read(r.req, fid, uint64(len(out)), 1<<20))
		if res.Errno != 0 {
			r.t.Fatalf("read: %d", res.Errno)
		}
		if res.Count == 0 {
			return out
		}
		out = append(out, res.Data...)
	}
}

// readdir lists an open directory, following the entries' offsets.
func (r *rig) readdir(fid uint32, count uint32) []Dirent {
	r.t.Helper()
	var out []Dirent
	var off uint64
	for {
		res := r.do(r.c.Readdir(r.req, fid, off, count))
		if res.Errno != 0 {
			r.t.Fatalf("readdir: %d", res.Errno)
		}
		if len(res.Data) == 0 {
			return out
		}
		for rest := res.Data; len(rest) > 0; {
			var e Dirent
			var err Err
			if e, rest, err = NextDirent(rest); err != OK {
				r.t.Fatalf("dirent: %v", err)
			}
			e.Name = bytes.Clone(e.Name)
			out = append(out, e)
			off = e.Offset
		}
	}
}

// idle checks nothing is left in flight and no fid is half-made.
func (r *rig) idle() {
	r.t.Helper()
	for i := range r.c.ops {
		if r.c.ops[i].kind != opFree {
			r.t.Errorf("tag %d still in flight", i)
		}
	}
	for i := range r.c.fids.e {
		if s := r.c.fids.e[i].state; s == fidPending || s == fidClosing {
			r.t.Errorf("fid %d in state %d", i, s)
		}
	}
	if len(r.srv.fids) != r.c.fids.used {
		r.t.Errorf("server holds %d fids, client %d", len(r.srv.fids), r.c.fids.used)
	}
}

func TestReadWrite(t *testing.T) {
	r := newRig(t, 8192)
	res := r.do(r.c.Create(r.req, r.root, []byte("f"), syscall.O_RDWR, 0o644, 0))
	if res.Errno != 0 || res.Qid.Type != QTFILE {
		t.Fatalf("create: %+v", res)
	}
	fid := res.Fid
	// More than one message's worth: Write sends msize-IOHeaderSize at most, and says so.
	data := bytes.Repeat([]byte("0123456789abcdef"), 1500)
	for off := 0; off < len(data); {
		res := r.do(r.c.Write(r.req, fid, uint64(off), data[off:]))
		if res.Errno != 0 || res.Count == 0 || res.Count > 8192-IOHeaderSize {
			t.Fatalf("write at %d: %+v", off, res)
		}
		off += int(res.Count)
	}
	if got := r.readAll(fid); !bytes.Equal(got, data) {
		t.Errorf("read back %d bytes, want %d", len(got), len(data))
	}
	if got, _ := os.ReadFile(filepath.Join(r.dir, "f")); !bytes.Equal(got, data) {
		t.Errorf("file holds %d bytes, want %d", len(got), len(data))
	}
	if res := r.do(r.c.Fsync(r.req, fid, false)); res.Errno != 0 {
		t.Errorf("fsync: %d", res.Errno)
	}
	r.clunk(fid)

	// Read-only and write-only fids refuse the other direction before anything is sent.
	ro := r.open("f", syscall.O_RDONLY)
	if ro.Errno != 0 || ro.Iounit != r.srv.iounit(r.dir) {
		t.Fatalf("open: %+v", ro)
	}
	// The iounit caps a read below msize-IOHeaderSize.
	if res := r.do(r.c.Read(r.req, ro.Fid, 0, 1<<20)); res.Errno != 0 || res.Count != min(ro.Iounit, 8192-IOHeaderSize) {
		t.Errorf("read of the iounit %d: %d bytes, %d", ro.Iounit, res.Count, res.Errno)
	}
	if _, _, errno := r.c.Write(r.req, ro.Fid, 0, []byte("x")); errno != abi.EBADF {
		t.Errorf("write to a read-only fid: %d", errno)
	}
	wo := r.open("f", syscall.O_WRONLY|syscall.O_TRUNC)
	if _, _, errno := r.c.Read(r.req, wo.Fid, 0, 1); errno != abi.EBADF {
		t.Errorf("read of a write-only fid: %d", errno)
	}
	if fi, _ := os.Stat(filepath.Join(r.dir, "f")); fi.Size() != 0 {
		t.Errorf("fs.O_TRUNC left %d bytes", fi.Size())
	}
	r.clunk(ro.Fid)
	r.clunk(wo.Fid)
	r.idle()
}

func TestGetattrSetattr(t *testing.T) {
	r := newRig(t, 8192)
	path := filepath.Join(r.dir, "f")
	if err := os.WriteFile(path, []byte("hello"), 0o640); err != nil {
		t.Fatal(err)
	}
	fid := r.walk("f")
	res := r.do(r.c.Getattr(r.req, fid, GetattrBasic))
	if res.Errno != 0 {
		t.Fatalf("getattr: %d", res.Errno)
	}
	var want syscall.Stat_t
	if err := syscall.Lstat(path, &want); err != nil {
		t.Fatal(err)
	}
	st := res.Attr.Stat()
	if st.Ino != want.Ino || st.Mode != want.Mode || st.Size != 5 || st.Nlink != uint32(want.Nlink) ||
		st.Uid != want.Uid || st.Gid != want.Gid || st.Blocks != want.Blocks ||
		st.Mtime != (fs.Timespec{Sec: want.Mtim.Sec, Nsec: want.Mtim.Nsec}) {
		t.Errorf("stat %+v\nlstat %+v", st, want)
	}

	res = r.do(r.c.Setattr(r.req, fid, SetAttr{Valid: SetattrSize | SetattrMode | SetattrMtime | SetattrMtimeSet,
		Mode: 0o600, Size: 2, MtimeSec: 1_000_000_000, MtimeNsec: 5}))
	if res.Errno != 0 {
		t.Fatalf("setattr: %d", res.Errno)
	}
	fi, err := os.Stat(path)
	if err != nil || fi.Size() != 2 || fi.Mode().Perm() != 0o600 || fi.ModTime() != time.Unix(1_000_000_000, 5) {
		t.Errorf("after setattr: %v %v %v %v", fi.Size(), fi.Mode(), fi.ModTime(), err)
	}
	res = r.do(r.c.Statfs(r.req, fid))
	var sfs syscall.Statfs_t
	syscall.Statfs(r.dir, &sfs)
	if got := res.Statfs.FS(); res.Errno != 0 || got.Type != sfs.Type || got.Bsize != sfs.Bsize ||
		got.Blocks != sfs.Blocks || got.Files != sfs.Files || got.Namelen != sfs.Namelen {
		t.Errorf("statfs: %+v, %d\nhost %+v", got, res.Errno, sfs)
	}
	r.clunk(fid)
	r.idle()
}

func TestDirectories(t *testing.T) {
	r := newRig(t, 8192)
	res := r.do(r.c.Mkdir(r.req, r.root, []byte("d"), 0o755, 0))
	if res.Errno != 0 || res.Qid.Type != QTDIR {
		t.Fatalf("mkdir: %+v", res)
	}
	if res := r.do(r.c.Mkdir(r.req, r.root, []byte("d"), 0o755, 0)); res.Errno != abi.EEXIST {
		t.Errorf("mkdir of an existing name: %d", res.Errno)
	}
	d := r.walk("d")
	var names []string
	for i := 0; i < 40; i++ {
		name := strings.Repeat("n", i+1)
		names = append(names, name)
		res := r.do(r.c.Create(r.req, d, []byte(name), syscall.O_WRONLY, 0o644, 0))
		if res.Errno != 0 {
			t.Fatalf("create %s: %d", name, res.Errno)
		}
		r.clunk(res.Fid)
	}
	if res := r.do(r.c.Create(r.req, d, []byte("n"), syscall.O_WRONLY|syscall.O_EXCL, 0o644, 0)); res.Errno != abi.EEXIST {
		t.Errorf("exclusive create of an existing file: %+v", res)
	}
	if res := r.do(r.c.Unlinkat(r.req, r.root, []byte("d"), AtRemovedir)); res.Errno != abi.ENOTEMPTY {
		t.Errorf("rmdir of a full directory: %d", res.Errno)
	}
	if res := r.do(r.c.Unlinkat(r.req, r.root, []byte("d"), 0)); res.Errno != abi.EISDIR {
		t.Errorf("unlink of a directory: %d", res.Errno)
	}

	// A small count makes Treaddir resume from the entries' offsets.
	open := r.open("d", syscall.O_RDONLY|syscall.O_DIRECTORY)
	if open.Errno != 0 {
		t.Fatalf("open dir: %+v", open)
	}
	if _, _, errno := r.c.Walk(r.req, open.Fid, nil); errno != abi.EBADF {
		t.Errorf("walk from an open fid: %d", errno)
	}
	for _, count := range []uint32{100, 8192} {
		ents := r.readdir(open.Fid, count)
		var got []string
		for _, e := range ents {
			got = append(got, string(e.Name))
			want := uint8(fs.DT_REG)
			if string(e.Name) == "." || string(e.Name) == ".." {
				want = fs.DT_DIR
			}
			if DirentType(e) != want {
				t.Errorf("%s: type %d", e.Name, e.Type)
			}
		}
		if want := append([]string{".", ".."}, sortedCopy(names)...); !slices.Equal(got, want) {
			t.Errorf("count %d: entries %q\nwant %q", count, got, want)
		}
	}
	r.clunk(open.Fid)

	for _, name := range names {
		if res := r.do(r.c.Unlinkat(r.req, d, []byte(name), 0)); res.Errno != 0 {
			t.Fatalf("unlink %s: %d", name, res.Errno)
		}
	}
	if res := r.do(r.c.Unlinkat(r.req, d, []byte("n"), 0)); res.Errno != abi.ENOENT {
		t.Errorf("unlink of a missing file: %d", res.Errno)
	}
	r.clunk(d)
	if res := r.do(r.c.Unlinkat(r.req, r.root, []byte("d"), AtRemovedir)); res.Errno != 0 {
		t.Errorf("rmdir: %d", res.Errno)
	}
	if _, err := os.Stat(filepath.Join(r.dir, "d")); !os.IsNotExist(err) {
		t.Errorf("d still there: %v", err)
	}
	r.idle()
}

func sortedCopy(s []string) []string {
	s = slices.Clone(s)
	slices.Sort(s)
	return s
}

func TestRenameLinkSymlinkRemove(t *testing.T) {
	r := newRig(t, 8192)
	os.Mkdir(filepath.Join(r.dir, "a"), 0o755)
	os.Mkdir(filepath.Join(r.dir, "b"), 0o755)
	os.WriteFile(filepath.Join(r.dir, "a", "x"), []byte("data"), 0o644)
	a, b := r.walk("a"), r.walk("b")
	if res := r.do(r.c.Renameat(r.req, a, []byte("x"), b, []byte("y"))); res.Errno != 0 {
		t.Fatalf("rename: %d", res.Errno)
	}
	if got, err := os.ReadFile(filepath.Join(r.dir, "b", "y")); err != nil || string(got) != "data" {
		t.Errorf("renamed file: %q, %v", got, err)
	}
	if res := r.do(r.c.Renameat(r.req, a, []byte("x"), b, []byte("y"))); res.Errno != abi.ENOENT {
		t.Errorf("rename of a missing file: %d", res.Errno)
	}
	y := r.walk("b/y")
	if res := r.do(r.c.Link(r.req, a, y, []byte("hard"))); res.Errno != 0 {
		t.Fatalf("link: %d", res.Errno)
	}
	if res := r.do(r.c.Link(r.req, a, y, []byte("hard"))); res.Errno != abi.EEXIST {
		t.Errorf("link to an existing name: %d", res.Errno)
	}
	if res := r.do(r.c.Getattr(r.req, y, GetattrBasic)); res.Attr.Nlink != 2 {
		t.Errorf("nlink after link: %d", res.Attr.Nlink)
	}
	res := r.do(r.c.Symlink(r.req, a, []byte("sym"), []byte("../b/y"), 0))
	if res.Errno != 0 || res.Qid.Type != QTSYMLINK {
		t.Fatalf("symlink: %+v", res)
	}
	sym := r.walk("a/sym")
	if res := r.do(r.c.Readlink(r.req, sym)); res.Errno != 0 || string(res.Data) != "../b/y" {
		t.Errorf("readlink: %q, %d", res.Data, res.Errno)
	}
	if st := r.do(r.c.Getattr(r.req, sym, GetattrBasic)).Attr.Stat(); st.Mode&fs.S_IFMT != fs.S_IFLNK {
		t.Errorf("symlink mode %o", st.Mode)
	}
	// A walk through the link stops at it: 9P walks do not follow symbolic links.
	res = r.do(r.c.Walk(r.req, r.root, []byte("a/sym/z")))
	if res.Errno != abi.ENOENT || res.Walked != 2 || res.Qid.Type != QTSYMLINK {
		t.Errorf("walk through a symlink: %+v", res)
	}
	if res := r.do(r.c.Readlink(r.req, y)); res.Errno != abi.EINVAL {
		t.Errorf("readlink of a file: %d", res.Errno)
	}
	// Remove frees the fid whether or not it removes the file.
	if res := r.do(r.c.Remove(r.req, sym)); res.Errno != 0 {
		t.Errorf("remove: %d", res.Errno)
	}
	if _, err := os.Lstat(filepath.Join(r.dir, "a", "sym")); !os.IsNotExist(err) {
		t.Errorf("sym still there: %v", err)
	}
	os.WriteFile(filepath.Join(r.dir, "b", "z"), nil, 0o644)
	full := r.walk("b")
	if res := r.do(r.c.Remove(r.req, full)); res.Errno != abi.ENOTEMPTY {
		t.Errorf("remove of a full directory: %d", res.Errno)
	}
	if _, ok := r.c.FidQid(full); ok {
		t.Errorf("fid %d kept after a failed remove", full)
	}
	for _, f := range []uint32{a, b, y} {
		r.clunk(f)
	}
	r.idle()
}

func TestWalks(t *testing.T) {
	r := newRig(t, 8192)
	// A path of 40 levels takes three Twalks; ".." and "." are walked and skipped.
	var parts []string
	for i := 0; i < 40; i++ {
		parts = append(parts, string(rune('a'+i%26)))
	}
	deep := filepath.Join(append([]string{r.dir}, parts...)...)
	if err := os.MkdirAll(deep, 0o755); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(deep, "leaf"), []byte("deep"), 0o644)
	path := "/" + strings.Join(parts, "/") + "/./leaf"
	r.srv.types()
	open := r.open(path, syscall.O_RDONLY)
	if open.Errno != 0 || open.Walked != 41 {
		t.Fatalf("open %s: %+v", path, open)
	}
	if got := r.srv.types(); !slices.Equal(got, []Type{Twalk, Twalk, Twalk, Tlopen}) {
		t.Errorf("messages %v", got)
	}
	if got := r.readAll(open.Fid); string(got) != "deep" {
		t.Errorf("read %q", got)
	}
	r.clunk(open.Fid)

	up := r.walk("a/b/../../a/./b")
	if q, _ := r.c.FidQid(up); q.Path != inode(t, filepath.Join(r.dir, "a", "b")) {
		t.Errorf("a/b/../../a/./b is inode %d", q.Path)
	}
	top := r.walk("../..")
	if q, _ := r.c.FidQid(top); q.Path != inode(t, r.dir) {
		t.Errorf(".. of the root is inode %d", q.Path)
	}
	clone := r.walk("")
	if q, _ := r.c.FidQid(clone); q.Path != inode(t, r.dir) {
		t.Errorf("clone is inode %d", q.Path)
	}

	r.srv.types()
	// Failures: the first name (Rlerror: nothing made), a later name of the first Twalk (a
	// short Rwalk: nothing made), a name of a later Twalk (the new fid exists: clunked).
	for _, tt := range []struct {
		path   string
		walked int
		msgs   []Type
	}{
		{"nothere", 0, []Type{Twalk}},
		{"a/nothere", 1, []Type{Twalk}},
		{strings.Join(parts[:20], "/") + "/nothere", 20, []Type{Twalk, Twalk, Tclunk}},
		{strings.Join(parts, "/") + "/leaf/under", 41, []Type{Twalk, Twalk, Twalk, Tclunk}},
	} {
		res := r.do(r.c.Walk(r.req, r.root, []byte(tt.path)))
		if res.Errno != abi.ENOENT && res.Errno != abi.ENOTDIR || res.Walked != tt.walked {
			t.Errorf("walk %s: %+v", tt.path, res)
		}
		if got := r.srv.types(); !slices.Equal(got, tt.msgs) {
			t.Errorf("walk %s: messages %v, want %v", tt.path, got, tt.msgs)
		}
		r.idle()
	}
	if res := r.open("nothere", syscall.O_RDONLY); res.Errno != abi.ENOENT {
		t.Errorf("open of a missing file: %+v", res)
	}
	// A Tlopen that fails leaves no fid: the walked one is clunked.
	os.Mkdir(filepath.Join(r.dir, "dir"), 0o755)
	r.srv.types()
	if res := r.open("dir", syscall.O_WRONLY); res.Errno != abi.EISDIR {
		t.Errorf("open of a directory for writing: %+v", res)
	}
	if got := r.srv.types(); !slices.Equal(got, []Type{Twalk, Tlopen, Tclunk}) {
		t.Errorf("failed open: messages %v", got)
	}
	os.WriteFile(filepath.Join(r.dir, "dir", "f"), nil, 0o644)
	if res := r.do(r.c.Create(r.req, r.walk("dir"), []byte("f"), syscall.O_RDWR|syscall.O_EXCL, 0o644, 0)); res.Errno != abi.EEXIST {
		t.Errorf("create of an existing file: %+v", res)
	}
	if got := r.srv.types(); !slices.Equal(got, []Type{Twalk, Twalk, Tlcreate, Tclunk}) {
		t.Errorf("failed create: messages %v", got)
	}
	for _, f := range []uint32{up, top, clone} {
		r.clunk(f)
	}
	// The walk of "dir" above is still held; close it by number.
	for fid := range r.srv.fids {
		if fid != r.root {
			r.clunk(fid)
		}
	}
	r.idle()
}

func inode(t *testing.T, path string) uint64 {
	var st syscall.Stat_t
	if err := syscall.Lstat(path, &st); err != nil {
		t.Fatal(err)
	}
	return st.Ino
}

// TestConcurrentOps keeps several operations in flight at once, each on its own tag, the
// replies coming back while others wait.
func TestConcurrentOps(t *testing.T) {
	r := newRig(t, 8192)
	for i := 0; i < MaxOps; i++ {
		os.WriteFile(filepath.Join(r.dir, string(rune('a'+i))), []byte{byte(i)}, 0o644)
	}
	reqs := make([][]byte, MaxOps)
	tags := map[uint16]int{}
	for i := 0; i < MaxOps; i++ {
		reqs[i] = make([]byte, 8192)
		tag, n, errno := r.c.Open(reqs[i], r.root, []byte{byte('a' + i)}, syscall.O_RDONLY)
		if errno != 0 {
			t.Fatalf("open %d: %d", i, errno)
		}
		tags[tag] = i
		r.send(reqs[i][:n])
	}
	if _, _, errno := r.c.Getattr(r.req, r.root, GetattrBasic); errno != abi.EAGAIN {
		t.Errorf("a seventeenth operation: %d", errno)
	}
	fids := map[int]uint32{}
	for len(fids) < MaxOps {
		tag, reply := r.recv()
		i := tags[tag]
		res := r.c.Reply(tag, reply, reqs[i])
		if res.Done {
			if res.Errno != 0 {
				t.Fatalf("open %d: %d", i, res.Errno)
			}
			fids[i] = res.Fid
			continue
		}
		r.send(reqs[i][:res.Next])
	}
	for i, fid := range fids {
		res := r.do(r.c.Read(r.req, fid, 0, 10))
		if res.Errno != 0 || !bytes.Equal(res.Data, []byte{byte(i)}) {
			t.Errorf("file %d reads %v, %d", i, res.Data, res.Errno)
		}
		r.clunk(fid)
	}
	r.idle()
}

// TestFlush abandons operations the three ways a server may answer: with the reply after all,
// with a cancelled (empty) reply, or with nothing but the Rflush.
func TestFlush(t *testing.T) {
	for _, tt := range []struct {
		name   string
		answer flushAnswer
		errno  int
	}{
		{"answered", answerReply, 0},
		{"cancelled", answerCancel, abi.EINTR},
		{"dropped", answerNothing, abi.EINTR},
	} {
		t.Run(tt.name, func(t *testing.T) {
			r := newRig(t, 8192)
			os.MkdirAll(filepath.Join(r.dir, "a", "b"), 0o755)
			r.srv.setWithhold(tt.answer)
			oldReq := make([]byte, 8192)
			old, n, errno := r.c.Walk(oldReq, r.root, []byte("a/b"))
			if errno != 0 {
				t.Fatal(errno)
			}
			r.send(oldReq[:n])
			ftag, n, errno := r.c.Flush(r.req, old)
			if errno != 0 {
				t.Fatal(errno)
			}
			if _, _, errno := r.c.Flush(r.req, old); errno != abi.EINVAL {
				t.Errorf("second flush: %d", errno)
			}
			r.send(r.req[:n])
			var oldRes, flushRes *Result
			for flushRes == nil || !flushRes.Done {
				tag, reply := r.recv()
				switch tag {
				case old:
					if flushRes != nil {
						t.Fatalf("old reply after Rflush")
					}
					res := r.c.Reply(old, reply, oldReq)
					oldRes = &res
				case ftag:
					res := r.c.Reply(ftag, reply, r.req)
					flushRes = &res
					if !res.Done {
						r.send(r.req[:res.Next])
					}
				}
			}
			if r.c.InFlight(old) {
				t.Errorf("flushed operation still in flight")
			}
			if tt.answer == answerNothing {
				if oldRes != nil {
					t.Errorf("old operation answered")
				}
			} else if oldRes == nil || !oldRes.Done || oldRes.Errno != tt.errno {
				t.Errorf("old operation: %+v", oldRes)
			} else if tt.errno == 0 {
				r.clunk(oldRes.Fid)
			}
			r.idle()
		})
	}
}

// TestFlushMidWalk flushes a walk between its Twalks: the new fid the server holds by then is
// clunked by the flush, after its Rflush.
func TestFlushMidWalk(t *testing.T) {
	r := newRig(t, 8192)
	deep := strings.Repeat("d/", 20)
	os.MkdirAll(filepath.Join(r.dir, deep), 0o755)
	oldReq := make([]byte, 8192)
	old, n, _ := r.c.Walk(oldReq, r.root, []byte(deep))
	r.send(oldReq[:n])
	_, reply := r.recv()
	ftag, fn, errno := r.c.Flush(r.req, old)
	if errno != 0 {
		t.Fatal(errno)
	}
	res := r.c.Reply(old, reply, oldReq) // the first Twalk's reply: no second Twalk now
	if !res.Done || res.Errno != abi.EINTR || res.Walked != MaxWalk {
		t.Errorf("flushed walk: %+v", res)
	}
	if r.c.InFlight(old) {
		t.Errorf("flushed walk still in flight")
	}
	// Its tag stays reserved until the Rflush: every other one goes first.
	freeTags := map[uint16]bool{}
	var reqs [][]byte
	for {
		b := make([]byte, 100)
		tag, n, errno := r.c.Getattr(b, r.root, 0)
		if errno != 0 {
			break
		}
		freeTags[tag] = true
		reqs = append(reqs, b[:n])
	}
	if freeTags[old] || freeTags[ftag] || len(freeTags) != MaxOps-2 {
		t.Errorf("tags handed out before Rflush: %v", freeTags)
	}
	for _, b := range reqs {
		tag := binary.LittleEndian.Uint16(b[5:])
		r.send(b)
		got, reply := r.recv()
		if res := r.c.Reply(got, reply, b); got != tag || !res.Done || res.Errno != 0 {
			t.Fatalf("getattr: %+v", res)
		}
	}
	r.srv.types()
	if res := r.do(ftag, fn, 0); !res.Done || res.Errno != 0 {
		t.Errorf("flush: %+v", res)
	}
	if got := r.srv.types(); !slices.Equal(got, []Type{Tflush, Tclunk}) {
		t.Errorf("messages %v", got)
	}
	r.idle()
}

// TestVersion checks the handshake's rules and that a new session forgets the old fids.
func TestVersion(t *testing.T) {
	r := newRig(t, 1<<17) // the server offers less
	if r.c.Msize() != serverMsize {
		t.Errorf("msize %d", r.c.Msize())
	}
	fid := r.walk("")
	if _, _, errno := r.c.Version(r.req, 100); errno != abi.EINVAL {
		t.Errorf("Version(100): %d", errno)
	}
	tag, _, _ := r.c.Getattr(r.req, fid, 0)
	if _, _, errno := r.c.Version(r.req, 8192); errno != abi.EBUSY {
		t.Errorf("Version with an operation in flight: %d", errno)
	}
	r.c.endOp(tag)
	if res := r.do(r.c.Version(r.req, 8192)); res.Errno != 0 || res.Msize != 8192 {
		t.Fatalf("second Version: %+v", res)
	}
	if _, ok := r.c.FidQid(fid); ok {
		t.Errorf("fid %d survived a new session", fid)
	}
	var c Client
	if _, _, errno := c.Attach(r.req, nil, nil, NoUname); errno != abi.EIO {
		t.Errorf("Attach before Version: %d", errno)
	}
}

// TestStartErrors checks what operations refuse before sending anything.
func TestStartErrors(t *testing.T) {
	r := newRig(t, 8192)
	small := newRig(t, MinMsize) // where a symlink to a PATH_MAX target does not fit
	long := bytes.Repeat([]byte("x"), MaxName+1)
	for _, tt := range []struct {
		name  string
		errno int
		start func() (uint16, int, int)
	}{
		{"walk of an unknown fid", abi.EBADF, func() (uint16, int, int) { return r.c.Walk(r.req, 77, nil) }},
		{"walk of NoFid", abi.EBADF, func() (uint16, int, int) { return r.c.Walk(r.req, NoFid, nil) }},
		{"read of a walked fid", abi.EBADF, func() (uint16, int, int) { return r.c.Read(r.req, r.root, 0, 1) }},
		{"readdir of a walked fid", abi.EBADF, func() (uint16, int, int) { return r.c.Readdir(r.req, r.root, 0, 100) }},
		{"fsync of a walked fid", abi.EBADF, func() (uint16, int, int) { return r.c.Fsync(r.req, r.root, false) }},
		{"path too long", abi.ENAMETOOLONG, func() (uint16, int, int) { return r.c.Walk(r.req, r.root, make([]byte, MaxPath+1)) }},
		{"name too long in a path", abi.ENAMETOOLONG, func() (uint16, int, int) { return r.c.Walk(r.req, r.root, append([]byte("a/"), long...)) }},
		{"NUL in a path", abi.EINVAL, func() (uint16, int, int) { return r.c.Walk(r.req, r.root, []byte("a\x00b")) }},
		{"name too long", abi.ENAMETOOLONG, func() (uint16, int, int) { return r.c.Mkdir(r.req, r.root, long, 0, 0) }},
		{"empty name", abi.EINVAL, func() (uint16, int, int) { return r.c.Mkdir(r.req, r.root, nil, 0, 0) }},
		{"name with a slash", abi.EINVAL, func() (uint16, int, int) { return r.c.Create(r.req, r.root, []byte("a/b"), 0, 0, 0) }},
		{"rename to a bad name", abi.EINVAL, func() (uint16, int, int) { return r.c.Renameat(r.req, r.root, []byte("a"), r.root, nil) }},
		{"unlinkat flags", abi.EINVAL, func() (uint16, int, int) { return r.c.Unlinkat(r.req, r.root, []byte("a"), 1) }},
		{"empty symlink target", abi.ENOENT, func() (uint16, int, int) { return r.c.Symlink(r.req, r.root, []byte("l"), nil, 0) }},
		{"symlink target too long", abi.ENAMETOOLONG, func() (uint16, int, int) {
			return r.c.Symlink(r.req, r.root, []byte("l"), make([]byte, MaxPath+1), 0)
		}},
		{"symlink target too long for msize", abi.ENAMETOOLONG, func() (uint16, int, int) {
			return small.c.Symlink(small.req, small.root, []byte("l"), make([]byte, MaxPath), 0)
		}},
		{"flush of nothing", abi.EINVAL, func() (uint16, int, int) { return r.c.Flush(r.req, 3) }},
		{"buffer too small", abi.EIO, func() (uint16, int, int) { return r.c.Mkdir(r.req[:10], r.root, []byte("d"), 0, 0) }},
	} {
		if _, _, errno := tt.start(); errno != tt.errno {
			t.Errorf("%s: %d, want %d", tt.name, errno, tt.errno)
		}
		r.idle()
	}
	// A clunk in flight makes the fid unusable.
	fid := r.walk("")
	tag, n, _ := r.c.Clunk(r.req, fid)
	if _, _, errno := r.c.Getattr(make([]byte, 100), fid, 0); errno != abi.EBADF {
		t.Errorf("getattr of a fid being clunked: %d", errno)
	}
	r.do(tag, n, 0)
	r.idle()
}

// TestFidTable checks allocation goes round the table and runs out cleanly.
func TestFidTable(t *testing.T) {
	var ft fidTable
	var got []uint32
	for i := 0; i < MaxFids; i++ {
		f, ok := ft.alloc()
		if !ok {
			t.Fatalf("alloc %d failed", i)
		}
		got = append(got, f)
	}
	if _, ok := ft.alloc(); ok {
		t.Errorf("alloc past MaxFids")
	}
	ft.free(3)
	ft.free(3)
	if ft.used != MaxFids-1 {
		t.Errorf("used %d", ft.used)
	}
	if f, ok := ft.alloc(); !ok || f != 3 {
		t.Errorf("realloc: %d %v", f, ok)
	}
	ft.free(10)
	ft.free(11)
	if f, _ := ft.alloc(); f != 10 {
		t.Errorf("next after 3 is %d", f)
	}
	ft.free(5)
	if f, _ := ft.alloc(); f != 11 {
		t.Errorf("round robin gave %d, want 11 before 5", f)
	}
	for i, f := range got {
		if f != uint32(i) {
			t.Fatalf("fid %d is %d", i, f)
		}
	}
}

// TestLopen opens a fid the caller walked itself; a failed Tlopen leaves it walked.
func TestLopen(t *testing.T) {
	r := newRig(t, 8192)
	os.WriteFile(filepath.Join(r.dir, "f"), []byte("x"), 0o644)
	os.Mkdir(filepath.Join(r.dir, "d"), 0o755)
	d := r.walk("d")
	if res := r.do(r.c.Lopen(r.req, d, syscall.O_WRONLY)); res.Errno != abi.EISDIR {
		t.Errorf("lopen of a directory for writing: %+v", res)
	}
	if res := r.do(r.c.Lopen(r.req, d, syscall.O_RDONLY|syscall.O_DIRECTORY)); res.Errno != 0 || res.Fid != d {
		t.Fatalf("lopen: %+v", res)
	}
	if _, _, errno := r.c.Lopen(r.req, d, 0); errno != abi.EBADF {
		t.Errorf("second lopen: %d", errno)
	}
	if ents := r.readdir(d, 8192); len(ents) != 2 {
		t.Errorf("empty directory lists %d entries", len(ents))
	}
	r.clunk(d)
	f := r.walk("f")
	if res := r.do(r.c.Lopen(r.req, f, syscall.O_RDONLY|syscall.O_DIRECTORY)); res.Errno != abi.ENOTDIR {
		t.Errorf("lopen of a file as a directory: %+v", res)
	}
	if res := r.do(r.c.Lopen(r.req, f, syscall.O_RDONLY)); res.Errno != 0 {
		t.Errorf("lopen after a failed one: %+v", res)
	}
	if got := r.readAll(f); string(got) != "x" {
		t.Errorf("read %q", got)
	}
	r.clunk(f)
	r.idle()
}

// TestRejectedReplies hands the client corrupted replies mid-operation: each ends with fs.EIO and
// the decoder's reason, after clunking the fid the server may hold.
func TestRejectedReplies(t *testing.T) {
	r := newRig(t, 8192)
	os.MkdirAll(filepath.Join(r.dir, "a", "b"), 0o755)
	for _, tt := range []struct {
		name    string
		mangle  func(b []byte) []byte
		want    Err
		cleanup bool // the reply's operation made a fid the server holds
	}{
		{"tag", func(b []byte) []byte { b[5]++; return b }, ErrTag, true},
		{"size", func(b []byte) []byte { return b[:len(b)-1] }, ErrSize, true},
		{"type", func(b []byte) []byte { b[4] = byte(Rread); return b }, ErrType, true},
		{"trailing", func(b []byte) []byte { b[0]++; return append(b, 0) }, ErrTrailing, true},
		{"empty", func(b []byte) []byte { return nil }, ErrNoReply, true},
	} {
		r.srv.types()
		tag, n, _ := r.c.Walk(r.req, r.root, []byte("a/b"))
		r.send(r.req[:n])
		_, reply := r.recv()
		res := r.c.Reply(tag, tt.mangle(reply), r.req)
		if res.Done || binary.LittleEndian.Uint32(r.req) != uint32(res.Next) || Type(r.req[4]) != Tclunk {
			t.Fatalf("%s: no clean-up clunk: %+v", tt.name, res)
		}
		if res := r.do(tag, res.Next, 0); res.Errno != abi.EIO || res.Err != tt.want {
			t.Errorf("%s: %+v", tt.name, res)
		}
		if got := r.srv.types(); !slices.Equal(got, []Type{Twalk, Tclunk}) {
			t.Errorf("%s: messages %v", tt.name, got)
		}
		r.idle()
	}
	// A reply for a tag with nothing in flight.
	if res := r.c.Reply(5, rclunk, r.req); !res.Done || res.Err != ErrNoOp {
		t.Errorf("stray reply: %+v", res)
	}
	// A bad Rlerror to a getattr ends it with fs.EIO, nothing to clean up.
	tag, n, _ := r.c.Getattr(r.req, r.root, GetattrBasic)
	r.send(r.req[:n])
	r.recv()
	if res := r.c.Reply(tag, msg(Rlerror, tag, 2, 0), r.req); !res.Done || res.Errno != abi.EIO || res.Err != ErrTruncated {
		t.Errorf("short Rlerror: %+v", res)
	}
	r.idle()
}

// TestNoAllocations runs encoders, decoders and a whole operation under testing.AllocsPerRun:
// kernel-mode code must not allocate (cmd/kernelcheck proves it once the kernel links the
// package; this catches it on the host first).
func TestNoAllocations(t *testing.T) {
	c := new(Client)
	req := make([]byte, 8192)
	negotiate(t, c, req, 8192)
	root := attachRoot(t, c, req)
	path := []byte(strings.Repeat("dir/", 20) + "leaf")
	walkReply := func(tag uint16, n int) []byte {
		body := []byte{byte(n), 0}
		for i := 0; i < n; i++ {
			body = append(body, QTDIR, 0, 0, 0, 0, byte(i), 0, 0, 0, 0, 0, 0, 0)
		}
		return msg(Rwalk, tag, body...)
	}
	reply16, reply5 := walkReply(0, 16), walkReply(0, 5)
	lopen := msg(Rlopen, 0, append(make([]byte, QidSize), 0, 0, 0, 0)...)
	getattr := msg(Rgetattr, 0, rgetattr[7:]...)
	var sink int
	allocs := testing.AllocsPerRun(100, func() {
		tag, _, errno := c.Open(req, root, path, syscall.O_RDONLY)
		if errno != 0 || tag != 0 {
			panic(fmt.Sprint("open: tag ", tag, " errno ", errno))
		}
		res := c.Reply(tag, reply16, req)
		res = c.Reply(tag, reply5, req)
		res = c.Reply(tag, lopen, req)
		if !res.Done || res.Errno != 0 {
			panic("open reply")
		}
		fid := res.Fid
		tag, _, _ = c.Getattr(req, fid, GetattrBasic)
		res = c.Reply(tag, getattr, req)
		sink += int(res.Attr.Stat().Size)
		tag, _, _ = c.Clunk(req, fid)
		c.Reply(tag, msg(Rclunk, tag), req)
		r, _ := ParseReply(rreaddir, 8192, Treaddir, 12)
		data, _ := r.Rreaddir(100)
		for len(data) > 0 {
			var e Dirent
			e, data, _ = NextDirent(data)
			sink += int(DirentType(e))
		}
	})
	if allocs != 0 {
		t.Errorf("%v allocations per run", allocs)
	}
}
