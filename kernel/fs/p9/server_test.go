package p9

import (
	"encoding/binary"
	"errors"
	"github.com/unitrace/unitrace/kernel/fs"
	"io"
	"net"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"syscall"
	"testing"
)

// fakeServer serves a directory over 9P2000.L as QEMU's local backend does with
// security_model=none: real files, real system calls, the host's errnos in Rlerror. It decodes
// T-messages and encodes R-messages with its own code, not the package's, so a round trip
// checks the wire format from both ends; and it checks the client keeps the protocol's rules
// (tags, fids, walks from unopened fids), failing the test if it does not.
//
// The transport is a byte pipe carrying the messages as they are. A request QEMU cancels comes
// back from its virtqueue with no bytes; on the pipe that is a cancelFrame: a header whose size
// field is 0, with the request's tag.
type fakeServer struct {
	t     *testing.T
	root  string
	conn  net.Conn
	out   chan []byte // replies, to the writer goroutine
	msize uint32
	fids  map[uint32]*serverFid

	mu sync.Mutex
	// withhold, if set, holds back the next request (of any type but Tflush) unserved until
	// a Tflush names it; onFlush says what happens then: it is served and answered, it is
	// cancelled (a cancelFrame), or it is dropped without a word.
	withhold bool
	onFlush  flushAnswer
	held     map[uint16][]byte
	seen     []Type // every request's type, in order
}

type flushAnswer uint8

const (
	answerReply flushAnswer = iota
	answerCancel
	answerNothing
)

type serverFid struct {
	path string
	file *os.File // once opened
	dir  []serverDirent
}

type serverDirent struct {
	name string
	qid  Qid
	typ  uint8
}

// serverMsize is the largest msize the server agrees to.
const serverMsize = 1 << 16

func startServer(t *testing.T, root string) (*fakeServer, net.Conn) {
	client, server := net.Pipe()
	s := &fakeServer{t: t, root: root, conn: server, fids: map[uint32]*serverFid{}, held: map[uint16][]byte{}}
	s.out = make(chan []byte, 4*MaxOps)
	done := make(chan struct{})
	go func() {
		defer close(done)
		s.serve()
	}()
	go func() { // replies go out on their own, so a client sending many requests never blocks the server
		for b := range s.out {
			if _, err := server.Write(b); err != nil {
				for range s.out {
				}
			}
		}
	}()
	t.Cleanup(func() {
		client.Close()
		<-done
		for _, f := range s.fids {
			if f.file != nil {
				f.file.Close()
			}
		}
	})
	return s, client
}

func (s *fakeServer) serve() {
	defer s.conn.Close()
	defer close(s.out)
	for {
		var size [4]byte
		if _, err := io.ReadFull(s.conn, size[:]); err != nil {
			return
		}
		n := binary.LittleEndian.Uint32(size[:])
		if n < HeaderSize || n > serverMsize {
			s.t.Errorf("server: request of %d bytes", n)
			return
		}
		m := make([]byte, n)
		copy(m, size[:])
		if _, err := io.ReadFull(s.conn, m[4:]); err != nil {
			return
		}
		if s.msize != 0 && n > s.msize {
			s.t.Errorf("server: request of %d bytes, msize %d", n, s.msize)
		}
		s.mu.Lock()
		s.seen = append(s.seen, Type(m[4]))
		withhold := s.withhold && Type(m[4]) != Tflush
		s.withhold = false
		s.mu.Unlock()
		tag := binary.LittleEndian.Uint16(m[5:])
		if _, busy := s.held[tag]; busy {
			s.t.Errorf("server: tag %d reused while in flight", tag)
		}
		if withhold { // not served yet: a flush decides whether it ever is
			s.held[tag] = m
			continue
		}
		if Type(m[4]) == Tflush {
			old := binary.LittleEndian.Uint16(m[HeaderSize:])
			if r, ok := s.held[old]; ok {
				delete(s.held, old)
				switch s.onFlush {
				case answerReply:
					s.write(s.handle(Type(r[4]), old, &tmsg{b: r, off: HeaderSize}))
				case answerCancel:
					s.write(cancelFrame(old))
				}
			}
		}
		s.write(s.handle(Type(m[4]), tag, &tmsg{b: m, off: HeaderSize}))
	}
}

func (s *fakeServer) write(b []byte) { s.out <- b }

func cancelFrame(tag uint16) []byte {
	return []byte{0, 0, 0, 0, 0, byte(tag), byte(tag >> 8)}
}

// types returns the request types the server has seen, and forgets them.
func (s *fakeServer) types() []Type {
	s.mu.Lock()
	defer s.mu.Unlock()
	t := s.seen
	s.seen = nil
	return t
}

func (s *fakeServer) setWithhold(answer flushAnswer) {
	s.mu.Lock()
	s.withhold, s.onFlush = true, answer
	s.mu.Unlock()
}

// tmsg reads a T-message's fields; a short one marks it bad.
type tmsg struct {
	b   []byte
	off int
	bad bool
}

func (m *tmsg) take(n int) []byte {
	if m.bad || len(m.b)-m.off < n {
		m.bad = true
		return make([]byte, n)
	}
	s := m.b[m.off : m.off+n]
	m.off += n
	return s
}
func (m *tmsg) u16() uint16 { return binary.LittleEndian.Uint16(m.take(2)) }
func (m *tmsg) u32() uint32 { return binary.LittleEndian.Uint32(m.take(4)) }
func (m *tmsg) u64() uint64 { return binary.LittleEndian.Uint64(m.take(8)) }
func (m *tmsg) str() string { return string(m.take(int(m.u16()))) }

// rmsg builds an R-message.
type rmsg struct{ b []byte }

func newR(t Type, tag uint16) *rmsg {
	return &rmsg{b: []byte{0, 0, 0, 0, byte(t), byte(tag), byte(tag >> 8)}}
}
func (r *rmsg) u8(v uint8) *rmsg   { r.b = append(r.b, v); return r }
func (r *rmsg) u16(v uint16) *rmsg { r.b = binary.LittleEndian.AppendUint16(r.b, v); return r }
func (r *rmsg) u32(v uint32) *rmsg { r.b = binary.LittleEndian.AppendUint32(r.b, v); return r }
func (r *rmsg) u64(v uint64) *rmsg { r.b = binary.LittleEndian.AppendUint64(r.b, v); return r }
func (r *rmsg) str(s string) *rmsg { r.u16(uint16(len(s))); r.b = append(r.b, s...); return r }
func (r *rmsg) qid(q Qid) *rmsg    { return r.u8(q.Type).u32(q.Version).u64(q.Path) }
func (r *rmsg) done() []byte {
	binary.LittleEndian.PutUint32(r.b, uint32(len(r.b)))
	return r.b
}

func rlerror(tag uint16, errno syscall.Errno) []byte {
	return newR(Rlerror, tag).u32(uint32(errno)).done()
}

// errnoOf is the errno behind a failed os or syscall call.
func errnoOf(err error) syscall.Errno {
	var e syscall.Errno
	if errors.As(err, &e) {
		return e
	}
	return syscall.EIO
}

func qidOf(fi os.FileInfo) Qid {
	q := Qid{Path: fi.Sys().(*syscall.Stat_t).Ino}
	switch {
	case fi.IsDir():
		q.Type = QTDIR
	case fi.Mode()&os.ModeSymlink != 0:
		q.Type = QTSYMLINK
	}
	return q
}

func dtOf(fi os.FileInfo) uint8 {
	switch {
	case fi.IsDir():
		return fs.DT_DIR
	case fi.Mode()&os.ModeSymlink != 0:
		return fs.DT_LNK
	}
	return fs.DT_REG
}

// fid returns a fid the client holds; one it does not is a client bug.
func (s *fakeServer) fid(fid uint32) (*serverFid, bool) {
	f, ok := s.fids[fid]
	if !ok {
		s.t.Errorf("server: unknown fid %d", fid)
	}
	return f, ok
}

// child is dir/name, except that ".." of the root is the root (QEMU's rule).
func (s *fakeServer) child(dir, name string) string {
	if name == ".." {
		if dir == s.root {
			return dir
		}
		return filepath.Dir(dir)
	}
	return filepath.Join(dir, name)
}

func validServerName(name string) bool {
	return name != "" && !strings.ContainsAny(name, "/\x00")
}

// handle serves one request and returns its reply.
func (s *fakeServer) handle(t Type, tag uint16, m *tmsg) []byte {
	reply := s.dispatch(t, tag, m)
	if m.bad || m.off != len(m.b) {
		s.t.Errorf("server: malformed request type %d: % x", t, m.b)
		return rlerror(tag, syscall.EINVAL)
	}
	return reply
}

func (s *fakeServer) dispatch(t Type, tag uint16, m *tmsg) []byte {
	switch t {
	case Tversion:
		msize, version := m.u32(), m.str()
		if tag != NoTag {
			s.t.Errorf("server: Tversion with tag %d", tag)
		}
		s.msize = min(msize, serverMsize)
		for _, f := range s.fids {
			if f.file != nil {
				f.file.Close()
			}
		}
		s.fids = map[uint32]*serverFid{}
		if version != Version {
			version = "unknown"
		}
		return newR(Rversion, tag).u32(s.msize).str(version).done()

	case Tattach:
		fid, afid, _, _, _ := m.u32(), m.u32(), m.str(), m.str(), m.u32()
		if afid != NoFid {
			s.t.Errorf("server: Tattach with afid %d", afid)
		}
		if _, used := s.fids[fid]; used {
			s.t.Errorf("server: Tattach of fid %d in use", fid)
			return rlerror(tag, syscall.EINVAL)
		}
		fi, err := os.Lstat(s.root)
		if err != nil {
			return rlerror(tag, errnoOf(err))
		}
		s.fids[fid] = &serverFid{path: s.root}
		return newR(Rattach, tag).qid(qidOf(fi)).done()

	case Twalk:
		fid, newfid, nwname := m.u32(), m.u32(), int(m.u16())
		names := make([]string, nwname)
		for i := range names {
			names[i] = m.str()
		}
		if nwname > MaxWalk {
			s.t.Errorf("server: Twalk of %d names", nwname)
		}
		f, ok := s.fid(fid)
		if !ok {
			return rlerror(tag, syscall.EBADF)
		}
		if f.file != nil {
			s.t.Errorf("server: Twalk from open fid %d", fid)
			return rlerror(tag, syscall.EBADF)
		}
		if _, used := s.fids[newfid]; used && newfid != fid {
			s.t.Errorf("server: Twalk to fid %d in use", newfid)
			return rlerror(tag, syscall.EINVAL)
		}
		path := f.path
		var qids []Qid
		for i, name := range names {
			if !validServerName(name) || name == "." {
				s.t.Errorf("server: walk of name %q", name)
			}
			if fi, err := os.Lstat(path); err != nil || !fi.IsDir() {
				if i == 0 {
					return rlerror(tag, syscall.ENOTDIR)
				}
				break
			}
			next := s.child(path, name)
			fi, err := os.Lstat(next)
			if err != nil {
				if i == 0 {
					return rlerror(tag, errnoOf(err))
				}
				break
			}
			qids = append(qids, qidOf(fi))
			path = next
		}
		if len(qids) == nwname {
			s.fids[newfid] = &serverFid{path: path}
		}
		r := newR(Rwalk, tag).u16(uint16(len(qids)))
		for _, q := range qids {
			r.qid(q)
		}
		return r.done()

	case Tlopen:
		fid, flags := m.u32(), m.u32()
		f, ok := s.fid(fid)
		if !ok {
			return rlerror(tag, syscall.EBADF)
		}
		if flags&(DotlCreate|DotlExcl) != 0 {
			s.t.Errorf("server: Tlopen with create flags %#o", flags)
		}
		file, err := openHost(f.path, flags, 0)
		if err != nil {
			return rlerror(tag, errnoOf(err))
		}
		fi, _ := file.Stat()
		f.file = file
		return newR(Rlopen, tag).qid(qidOf(fi)).u32(s.iounit(f.path)).done()

	case Tlcreate:
		fid, name, flags, mode, _ := m.u32(), m.str(), m.u32(), m.u32(), m.u32()
		f, ok := s.fid(fid)
		if !ok {
			return rlerror(tag, syscall.EBADF)
		}
		if f.file != nil {
			s.t.Errorf("server: Tlcreate on open fid %d", fid)
		}
		if !validServerName(name) {
			return rlerror(tag, syscall.EINVAL)
		}
		path := filepath.Join(f.path, name)
		file, err := openHost(path, flags|DotlCreate, mode)
		if err != nil {
			return rlerror(tag, errnoOf(err))
		}
		fi, _ := file.Stat()
		f.path, f.file = path, file
		return newR(Rlcreate, tag).qid(qidOf(fi)).u32(s.iounit(path)).done()

	case Tread:
		fid, off, count := m.u32(), m.u64(), m.u32()
		f, ok := s.fid(fid)
		if !ok || f.file == nil {
			return rlerror(tag, syscall.EBADF)
		}
		if HeaderSize+4+count > s.msize {
			s.t.Errorf("server: Tread of %d with msize %d", count, s.msize)
		}
		buf := make([]byte, count)
		n, err := f.file.ReadAt(buf, int64(off))
		if err != nil && err != io.EOF {
			return rlerror(tag, errnoOf(err))
		}
		r := newR(Rread, tag).u32(uint32(n))
		r.b = append(r.b, buf[:n]...)
		return r.done()

	case Twrite:
		fid, off, count := m.u32(), m.u64(), m.u32()
		data := m.take(int(count))
		f, ok := s.fid(fid)
		if !ok || f.file == nil {
			return rlerror(tag, syscall.EBADF)
		}
		n, err := f.file.WriteAt(data, int64(off))
		if err != nil {
			return rlerror(tag, errnoOf(err))
		}
		return newR(Rwrite, tag).u32(uint32(n)).done()

	case Treaddir:
		fid, off, count := m.u32(), m.u64(), m.u32()
		f, ok := s.fid(fid)
		if !ok || f.file == nil {
			return rlerror(tag, syscall.EBADF)
		}
		if off == 0 || f.dir == nil {
			var err error
			if f.dir, err = s.snapshot(f.path); err != nil {
				return rlerror(tag, errnoOf(err))
			}
		}
		r := newR(Rreaddir, tag).u32(0)
		for i := int(off); i < len(f.dir); i++ {
			e := f.dir[i]
			size := direntFixed + len(e.name)
			if len(r.b)-11+size > int(count) {
				break
			}
			r.qid(e.qid).u64(uint64(i + 1)).u8(e.typ).str(e.name)
		}
		binary.LittleEndian.PutUint32(r.b[7:], uint32(len(r.b)-11))
		return r.done()

	case Tgetattr:
		fid, _ := m.u32(), m.u64()
		f, ok := s.fid(fid)
		if !ok {
			return rlerror(tag, syscall.EBADF)
		}
		fi, err := os.Lstat(f.path)
		if err != nil {
			return rlerror(tag, errnoOf(err))
		}
		st := fi.Sys().(*syscall.Stat_t)
		return newR(Rgetattr, tag).u64(GetattrBasic).qid(qidOf(fi)).
			u32(st.Mode).u32(st.Uid).u32(st.Gid).u64(uint64(st.Nlink)).u64(st.Rdev).u64(uint64(st.Size)).
			u64(uint64(st.Blksize)).u64(uint64(st.Blocks)).
			u64(uint64(st.Atim.Sec)).u64(uint64(st.Atim.Nsec)).u64(uint64(st.Mtim.Sec)).u64(uint64(st.Mtim.Nsec)).
			u64(uint64(st.Ctim.Sec)).u64(uint64(st.Ctim.Nsec)).u64(0).u64(0).u64(0).u64(0).done()

	case Tsetattr:
		fid, valid, mode, uid, gid, size := m.u32(), m.u32(), m.u32(), m.u32(), m.u32(), m.u64()
		asec, ansec, msec, mnsec := m.u64(), m.u64(), m.u64(), m.u64()
		f, ok := s.fid(fid)
		if !ok {
			return rlerror(tag, syscall.EBADF)
		}
		if valid&SetattrMode != 0 {
			if err := os.Chmod(f.path, os.FileMode(mode&0o777)); err != nil {
				return rlerror(tag, errnoOf(err))
			}
		}
		if valid&(SetattrUid|SetattrGid) != 0 {
			u, g := -1, -1
			if valid&SetattrUid != 0 {
				u = int(uid)
			}
			if valid&SetattrGid != 0 {
				g = int(gid)
			}
			if err := os.Lchown(f.path, u, g); err != nil {
				return rlerror(tag, errnoOf(err))
			}
		}
		if valid&SetattrSize != 0 {
			if err := os.Truncate(f.path, int64(size)); err != nil {
				return rlerror(tag, errnoOf(err))
			}
		}
		if valid&(SetattrAtime|SetattrMtime) != 0 {
			ts := []syscall.Timespec{{Nsec: fs.UTIME_OMIT}, {Nsec: fs.UTIME_OMIT}}
			pick := func(i int, set, given uint32, sec, nsec uint64) {
				switch {
				case valid&set == 0:
				case valid&given != 0:
					ts[i] = syscall.Timespec{Sec: int64(sec), Nsec: int64(nsec)}
				default:
					ts[i] = syscall.Timespec{Nsec: fs.UTIME_NOW}
				}
			}
			pick(0, SetattrAtime, SetattrAtimeSet, asec, ansec)
			pick(1, SetattrMtime, SetattrMtimeSet, msec, mnsec)
			if err := syscall.UtimesNano(f.path, ts); err != nil {
				return rlerror(tag, errnoOf(err))
			}
		}
		return newR(Rsetattr, tag).done()

	case Tmkdir:
		dfid, name, mode, _ := m.u32(), m.str(), m.u32(), m.u32()
		f, ok := s.fid(dfid)
		if !ok {
			return rlerror(tag, syscall.EBADF)
		}
		if !validServerName(name) {
			return rlerror(tag, syscall.EINVAL)
		}
		path := filepath.Join(f.path, name)
		if err := syscall.Mkdir(path, mode); err != nil {
			return rlerror(tag, errnoOf(err))
		}
		fi, err := os.Lstat(path)
		if err != nil {
			return rlerror(tag, errnoOf(err))
		}
		return newR(Rmkdir, tag).qid(qidOf(fi)).done()

	case Tsymlink:
		dfid, name, target, _ := m.u32(), m.str(), m.str(), m.u32()
		f, ok := s.fid(dfid)
		if !ok {
			return rlerror(tag, syscall.EBADF)
		}
		path := filepath.Join(f.path, name)
		if err := os.Symlink(target, path); err != nil {
			return rlerror(tag, errnoOf(err))
		}
		fi, err := os.Lstat(path)
		if err != nil {
			return rlerror(tag, errnoOf(err))
		}
		return newR(Rsymlink, tag).qid(qidOf(fi)).done()

	case Treadlink:
		f, ok := s.fid(m.u32())
		if !ok {
			return rlerror(tag, syscall.EBADF)
		}
		target, err := os.Readlink(f.path)
		if err != nil {
			return rlerror(tag, errnoOf(err))
		}
		return newR(Rreadlink, tag).str(target).done()

	case Tlink:
		dfid, fid, name := m.u32(), m.u32(), m.str()
		d, ok1 := s.fid(dfid)
		f, ok2 := s.fid(fid)
		if !ok1 || !ok2 {
			return rlerror(tag, syscall.EBADF)
		}
		if err := os.Link(f.path, filepath.Join(d.path, name)); err != nil {
			return rlerror(tag, errnoOf(err))
		}
		return newR(Rlink, tag).done()

	case Trenameat:
		olddir, oldname, newdir, newname := m.u32(), m.str(), m.u32(), m.str()
		od, ok1 := s.fid(olddir)
		nd, ok2 := s.fid(newdir)
		if !ok1 || !ok2 {
			return rlerror(tag, syscall.EBADF)
		}
		from, to := filepath.Join(od.path, oldname), filepath.Join(nd.path, newname)
		if err := syscall.Rename(from, to); err != nil {
			return rlerror(tag, errnoOf(err))
		}
		for _, f := range s.fids { // fids follow their files, as QEMU's do
			if f.path == from || strings.HasPrefix(f.path, from+"/") {
				f.path = to + strings.TrimPrefix(f.path, from)
			}
		}
		return newR(Rrenameat, tag).done()

	case Tunlinkat:
		dfid, name, flags := m.u32(), m.str(), m.u32()
		f, ok := s.fid(dfid)
		if !ok {
			return rlerror(tag, syscall.EBADF)
		}
		path := filepath.Join(f.path, name)
		var err error
		if flags&AtRemovedir != 0 {
			err = syscall.Rmdir(path)
		} else {
			err = syscall.Unlink(path)
		}
		if err != nil {
			return rlerror(tag, errnoOf(err))
		}
		return newR(Runlinkat, tag).done()

	case Tstatfs:
		f, ok := s.fid(m.u32())
		if !ok {
			return rlerror(tag, syscall.EBADF)
		}
		var st syscall.Statfs_t
		if err := syscall.Statfs(f.path, &st); err != nil {
			return rlerror(tag, errnoOf(err))
		}
		return newR(Rstatfs, tag).u32(uint32(st.Type)).u32(uint32(st.Bsize)).u64(st.Blocks).u64(st.Bfree).
			u64(st.Bavail).u64(st.Files).u64(st.Ffree).u64(0).u32(uint32(st.Namelen)).done()

	case Tfsync:
		fid, _ := m.u32(), m.u32()
		f, ok := s.fid(fid)
		if !ok || f.file == nil {
			return rlerror(tag, syscall.EBADF)
		}
		if err := f.file.Sync(); err != nil {
			return rlerror(tag, errnoOf(err))
		}
		return newR(Rfsync, tag).done()

	case Tclunk, Tremove:
		fid := m.u32()
		f, ok := s.fid(fid)
		if !ok {
			return rlerror(tag, syscall.EBADF)
		}
		delete(s.fids, fid)
		if f.file != nil {
			f.file.Close()
		}
		if t == Tremove {
			err := syscall.Unlink(f.path)
			if err == syscall.EISDIR {
				err = syscall.Rmdir(f.path)
			}
			if err != nil {
				return rlerror(tag, errnoOf(err))
			}
		}
		return newR(t+1, tag).done()

	case Tflush:
		m.u16()
		return newR(Rflush, tag).done()
	}
	s.t.Errorf("server: request type %d", t)
	return rlerror(tag, syscall.ENOSYS)
}

// iounit is what QEMU's Rlopen and Rlcreate report: the largest multiple of the file system's
// block size that fits an msize message.
func (s *fakeServer) iounit(path string) uint32 {
	var st syscall.Statfs_t
	if err := syscall.Statfs(path, &st); err != nil || st.Bsize <= 0 {
		return 0
	}
	bsize := uint32(st.Bsize)
	return bsize * ((s.msize - IOHeaderSize) / bsize)
}

// openHost opens path as a Tlopen or Tlcreate with Dotl flags asks.
func openHost(path string, dotl, mode uint32) (*os.File, error) {
	flags := int(dotl & DotlAccmode)
	for _, m := range []struct {
		dotl uint32
		host int
	}{
		{DotlCreate, syscall.O_CREAT}, {DotlExcl, syscall.O_EXCL}, {DotlTrunc, syscall.O_TRUNC},
		{DotlAppend, syscall.O_APPEND}, {DotlDirectory, syscall.O_DIRECTORY}, {DotlNofollow, syscall.O_NOFOLLOW},
		{DotlNonblock, syscall.O_NONBLOCK},
	} {
		if dotl&m.dotl != 0 {
			flags |= m.host
		}
	}
	fd, err := syscall.Open(path, flags|syscall.O_CLOEXEC, mode)
	if err != nil {
		return nil, err
	}
	return os.NewFile(uintptr(fd), path), nil
}

// snapshot lists a directory for Treaddir: ".", "..", then its entries by name; entry i's
// offset is i+1.
func (s *fakeServer) snapshot(path string) ([]serverDirent, error) {
	entries, err := os.ReadDir(path)
	if err != nil {
		return nil, err
	}
	var out []serverDirent
	for _, name := range []string{".", ".."} {
		fi, err := os.Lstat(s.child(path, name))
		if err != nil {
			return nil, err
		}
		out = append(out, serverDirent{name, qidOf(fi), fs.DT_DIR})
	}
	sort.Slice(entries, func(i, j int) bool { return entries[i].Name() < entries[j].Name() })
	for _, e := range entries {
		fi, err := e.Info()
		if err != nil {
			return nil, err
		}
		out = append(out, serverDirent{e.Name(), qidOf(fi), dtOf(fi)})
	}
	return out, nil
}
