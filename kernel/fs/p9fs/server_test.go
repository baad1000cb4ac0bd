package p9fs

import (
	"encoding/binary"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
	"unsafe"

	"github.com/hugelgupf/p9/fsimpl/localfs"
	hp9 "github.com/hugelgupf/p9/p9"
	"golang.org/x/sys/unix"
)

// The tests serve a real directory with an independent 9P2000.L server (the gVisor-derived
// one in github.com/hugelgupf/p9, with its local-directory backend), so the file system is
// checked against another implementation of the protocol, not against itself. It handles each
// request in its own goroutine, so replies come back out of order, as QEMU's can.
//
// Its backend lacks Tunlinkat and Tstatfs and resolves renames and links through its own type;
// hostFile adds those over the real directory, as QEMU's local backend does them.
type hostFile struct {
	*localfs.Local
	path  string
	fd    int // the open descriptor plus one; 0: not open
	files *fileSet
}

// fileSet is every file the server's fids name, so a rename can move those below it.
type fileSet struct {
	sync.Mutex
	m map[*hostFile]bool
}

func (h *hostFile) wrap(f hp9.File, path string) hp9.File {
	l, ok := f.(*localfs.Local)
	if !ok {
		return f
	}
	n := &hostFile{Local: l, path: path, files: h.files}
	h.files.Lock()
	h.files.m[n] = true
	h.files.Unlock()
	return n
}

// cur is the backend's file at the file's path as it is now: the backend keeps the path it was
// made with, so after a rename only a fresh one reaches the file by path.
func (h *hostFile) cur() *localfs.Local {
	f, err := localfs.Attacher(h.path).Attach()
	if err != nil {
		return h.Local
	}
	return f.(*localfs.Local)
}

func (h *hostFile) GetAttr(req hp9.AttrMask) (hp9.QID, hp9.AttrMask, hp9.Attr, error) {
	return h.cur().GetAttr(req)
}

func (h *hostFile) Readlink() (string, error) { return os.Readlink(h.path) }

func (h *hostFile) Mkdir(name string, perm hp9.FileMode, uid hp9.UID, gid hp9.GID) (hp9.QID, error) {
	return h.cur().Mkdir(name, perm, uid, gid)
}

func (h *hostFile) Symlink(oldName, newName string, uid hp9.UID, gid hp9.GID) (hp9.QID, error) {
	return h.cur().Symlink(oldName, newName, uid, gid)
}

func (h *hostFile) Walk(names []string) ([]hp9.QID, hp9.File, error) {
	qids, f, err := h.cur().Walk(names)
	if err != nil {
		return nil, nil, err
	}
	return qids, h.wrap(f, filepath.Join(append([]string{h.path}, names...)...)), nil
}

func (h *hostFile) Create(name string, mode hp9.OpenFlags, perm hp9.FileMode, uid hp9.UID, gid hp9.GID) (hp9.File, hp9.QID, uint32, error) {
	f, qid, iounit, err := h.cur().Create(name, mode, perm, uid, gid)
	if err != nil {
		return nil, qid, 0, err
	}
	return h.wrap(f, filepath.Join(h.path, name)), qid, iounit, nil
}

func (h *hostFile) UnlinkAt(name string, flags uint32) error {
	if flags&0x200 != 0 {
		return syscall.Rmdir(filepath.Join(h.path, name))
	}
	return syscall.Unlink(filepath.Join(h.path, name))
}

func (h *hostFile) RenameAt(oldName string, newDir hp9.File, newName string) error {
	d, ok := newDir.(*hostFile)
	if !ok {
		return fmt.Errorf("rename into a %T", newDir)
	}
	return syscall.Rename(filepath.Join(h.path, oldName), filepath.Join(d.path, newName))
}

func (h *hostFile) Link(target hp9.File, newName string) error {
	f, ok := target.(*hostFile)
	if !ok {
		return fmt.Errorf("link to a %T", target)
	}
	return syscall.Link(f.path, filepath.Join(h.path, newName))
}

// Open, ReadAt, WriteAt and Close use the descriptor as QEMU does: pread and pwrite, so a
// file opened O_APPEND appends whatever the offset (the backend's os.File refuses WriteAt
// there).
func (h *hostFile) Open(mode hp9.OpenFlags) (hp9.QID, uint32, error) {
	qid, _, _, err := h.cur().GetAttr(hp9.AttrMask{})
	if err != nil {
		return qid, 0, err
	}
	fd, err := syscall.Open(h.path, int(mode)|syscall.O_CLOEXEC, 0)
	if err != nil {
		return qid, 0, err
	}
	h.fd = fd + 1
	return qid, 0, nil
}

func (h *hostFile) ReadAt(p []byte, off int64) (int, error) {
	if h.fd == 0 {
		return h.Local.ReadAt(p, off)
	}
	return syscall.Pread(h.fd-1, p, off)
}

func (h *hostFile) WriteAt(p []byte, off int64) (int, error) {
	if h.fd == 0 {
		return h.Local.WriteAt(p, off)
	}
	return syscall.Pwrite(h.fd-1, p, off)
}

// Readdir lists the directory afresh on each call, in name order, the offset of each entry
// being its index plus one (the backend's listing is stateful and counts entries, not bytes).
func (h *hostFile) Readdir(off uint64, count uint32) (hp9.Dirents, error) {
	entries, err := os.ReadDir(h.path)
	if err != nil {
		return nil, err
	}
	var out hp9.Dirents
	for i := int(off); i < len(entries); i++ {
		fi, err := os.Lstat(filepath.Join(h.path, entries[i].Name()))
		if err != nil {
			continue
		}
		st := fi.Sys().(*syscall.Stat_t)
		typ := hp9.TypeRegular
		switch {
		case fi.IsDir():
			typ = hp9.TypeDir
		case fi.Mode()&os.ModeSymlink != 0:
			typ = hp9.TypeSymlink
		}
		out = append(out, hp9.Dirent{QID: hp9.QID{Type: typ, Path: st.Ino}, Offset: uint64(i + 1), Type: typ, Name: entries[i].Name()})
	}
	return out, nil
}

// Renamed follows a rename of the file, as QEMU's fids follow renames: the file's path and
// the paths of every file below it that a fid names change; what goes by path uses cur.
func (h *hostFile) Renamed(parent hp9.File, newName string) {
	d, ok := parent.(*hostFile)
	if !ok {
		return
	}
	old, now := h.path, filepath.Join(d.path, newName)
	h.files.Lock()
	defer h.files.Unlock()
	for f := range h.files.m {
		switch {
		case f.path == old:
			f.moveTo(now)
		case strings.HasPrefix(f.path, old+"/"):
			f.moveTo(now + f.path[len(old):])
		}
	}
}

func (h *hostFile) moveTo(path string) { h.path = path }

func (h *hostFile) Close() error {
	h.files.Lock()
	delete(h.files.m, h)
	h.files.Unlock()
	if h.fd != 0 {
		syscall.Close(h.fd - 1)
		h.fd = 0
	}
	return h.Local.Close()
}

// SetAttr changes what QEMU's local backend changes: mode, size and times.
func (h *hostFile) SetAttr(valid hp9.SetAttrMask, a hp9.SetAttr) error {
	if valid.Permissions {
		if err := syscall.Chmod(h.path, uint32(a.Permissions)); err != nil {
			return err
		}
	}
	if valid.Size {
		if err := syscall.Truncate(h.path, int64(a.Size)); err != nil {
			return err
		}
	}
	if valid.ATime || valid.MTime {
		ts := []unix.Timespec{{Nsec: unix.UTIME_OMIT}, {Nsec: unix.UTIME_OMIT}}
		if valid.ATime {
			ts[0] = unix.Timespec{Nsec: unix.UTIME_NOW}
			if valid.ATimeNotSystemTime {
				ts[0] = unix.Timespec{Sec: int64(a.ATimeSeconds), Nsec: int64(a.ATimeNanoSeconds)}
			}
		}
		if valid.MTime {
			ts[1] = unix.Timespec{Nsec: unix.UTIME_NOW}
			if valid.MTimeNotSystemTime {
				ts[1] = unix.Timespec{Sec: int64(a.MTimeSeconds), Nsec: int64(a.MTimeNanoSeconds)}
			}
		}
		return unix.UtimesNanoAt(unix.AT_FDCWD, h.path, ts, unix.AT_SYMLINK_NOFOLLOW)
	}
	return nil
}

func (h *hostFile) StatFS() (hp9.FSStat, error) {
	var s syscall.Statfs_t
	if err := syscall.Statfs(h.path, &s); err != nil {
		return hp9.FSStat{}, err
	}
	return hp9.FSStat{Type: uint32(s.Type), BlockSize: uint32(s.Bsize), Blocks: s.Blocks, BlocksFree: s.Bfree,
		BlocksAvailable: s.Bavail, Files: s.Files, FilesFree: s.Ffree, NameLength: uint32(s.Namelen)}, nil
}

type hostAttacher struct{ root string }

func (a hostAttacher) Attach() (hp9.File, error) {
	f, err := localfs.Attacher(a.root).Attach()
	if err != nil {
		return nil, err
	}
	return (&hostFile{files: &fileSet{m: map[*hostFile]bool{}}}).wrap(f, a.root), nil
}

// serve starts the server on root and returns the client's end of the connection.
func serve(t *testing.T, root string) net.Conn {
	client, server := net.Pipe()
	srv := hp9.NewServer(hostAttacher{root})
	go srv.Handle(server, server)
	t.Cleanup(func() { client.Close() })
	return client
}

// readMsg reads one 9P message from c.
func readMsg(t *testing.T, c net.Conn) []byte {
	t.Helper()
	c.SetReadDeadline(time.Now().Add(10 * time.Second))
	var hdr [4]byte
	if _, err := io.ReadFull(c, hdr[:]); err != nil {
		t.Fatalf("reading a reply: %v", err)
	}
	size := binary.LittleEndian.Uint32(hdr[:])
	if size < 7 || size > 1<<20 {
		t.Fatalf("reply of %d bytes", size)
	}
	b := make([]byte, size)
	copy(b, hdr[:])
	if _, err := io.ReadFull(c, b[4:]); err != nil {
		t.Fatalf("reading a reply: %v", err)
	}
	return b
}

// mmapBuffers gives the file system its request and reply buffers outside the Go heap, as the
// kernel's are.
func mmapBuffers(t *testing.T, size uint32) (Buffers, []byte, []byte) {
	t.Helper()
	n := int(size) * 16
	mem, err := syscall.Mmap(-1, 0, 2*n, syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_ANON|syscall.MAP_PRIVATE)
	if err != nil {
		t.Fatalf("mmap: %v", err)
	}
	t.Cleanup(func() { syscall.Munmap(mem) })
	base := uintptr(unsafe.Pointer(&mem[0]))
	return Buffers{Req: base, Resp: base + uintptr(n), Size: size}, mem[:n], mem[n:]
}

func mustMkdirTemp(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	if err := os.Chmod(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	return dir
}
