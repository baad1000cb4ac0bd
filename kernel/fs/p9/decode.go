package p9

import "encoding/binary"

// Reply is an R-message whose header ParseReply checked: its size field is the number of bytes
// received and at most msize, its tag is the request's, its type the request's reply or
// Rlerror. Its body is a slice of the caller's buffer; the body decoders below read it.
type Reply struct {
	Type Type
	Tag  uint16
	body []byte
}

// replyType is the reply each request this package sends expects, or 0.
func replyType(t Type) Type {
	switch t {
	case Tstatfs, Tlopen, Tlcreate, Tsymlink, Treadlink, Tgetattr, Tsetattr, Treaddir, Tfsync,
		Tlink, Tmkdir, Trenameat, Tunlinkat, Tversion, Tattach, Tflush, Twalk, Tread, Twrite,
		Tclunk, Tremove:
		return t + 1
	}
	return 0
}

// ParseReply checks the header of the reply b to a request of type req sent with tag (NoTag for
// Tversion). msize bounds the reply (0 before Tversion's: then only MaxMsize does). b must be
// exactly the bytes the server sent: the size field has to match len(b).
func ParseReply(b []byte, msize uint32, req Type, tag uint16) (Reply, Err) {
	want := replyType(req)
	if want == 0 {
		return Reply{}, ErrRequest
	}
	if len(b) < HeaderSize {
		return Reply{}, ErrShort
	}
	size := binary.LittleEndian.Uint32(b)
	if uint64(size) != uint64(len(b)) {
		return Reply{}, ErrSize
	}
	if msize == 0 {
		msize = MaxMsize
	}
	if size > msize {
		return Reply{}, ErrBig
	}
	r := Reply{Type: Type(b[4]), Tag: binary.LittleEndian.Uint16(b[5:]), body: b[HeaderSize:]}
	if r.Tag != tag {
		return Reply{}, ErrTag
	}
	if r.Type != want && r.Type != Rlerror {
		return Reply{}, ErrType
	}
	return r, OK
}

// MaxMsize caps the msize a client proposes (and a reply's size before Tversion's reply sets
// msize): far more than a kernel buffer will hold, and small enough that no size or count
// arithmetic overflows.
const MaxMsize = 4 << 20

// decoder reads a reply body. The first failure sticks, like encoder's.
type decoder struct {
	b   []byte
	n   int
	err Err
}

func (d *decoder) take(n int) []byte {
	if d.err != OK {
		return nil
	}
	if len(d.b)-d.n < n {
		d.err = ErrTruncated
		return nil
	}
	s := d.b[d.n : d.n+n]
	d.n += n
	return s
}

func (d *decoder) u16() uint16 {
	if s := d.take(2); s != nil {
		return binary.LittleEndian.Uint16(s)
	}
	return 0
}

func (d *decoder) u32() uint32 {
	if s := d.take(4); s != nil {
		return binary.LittleEndian.Uint32(s)
	}
	return 0
}

func (d *decoder) u64() uint64 {
	if s := d.take(8); s != nil {
		return binary.LittleEndian.Uint64(s)
	}
	return 0
}

// qid reads type[1] version[4] path[8].
func (d *decoder) qid() Qid {
	s := d.take(QidSize)
	if s == nil {
		return Qid{}
	}
	return Qid{Type: s[0], Version: binary.LittleEndian.Uint32(s[1:]), Path: binary.LittleEndian.Uint64(s[5:])}
}

// str reads len[2] and that many bytes.
func (d *decoder) str() []byte {
	n := int(d.u16())
	if d.err != OK {
		return nil
	}
	if len(d.b)-d.n < n {
		d.err = ErrString
		return nil
	}
	s := d.b[d.n : d.n+n]
	d.n += n
	return s
}

// data reads count[4] and that many bytes; max is what the request asked for.
func (d *decoder) data(max uint32) []byte {
	n := d.u32()
	if d.err != OK {
		return nil
	}
	if uint64(len(d.b)-d.n) < uint64(n) {
		d.err = ErrCount
		return nil
	}
	if n > max {
		d.err = ErrOvercount
		return nil
	}
	s := d.b[d.n : d.n+int(n)]
	d.n += int(n)
	return s
}

// end returns the first failure, or ErrTrailing if bytes are left.
func (d *decoder) end() Err {
	if d.err == OK && d.n != len(d.b) {
		d.err = ErrTrailing
	}
	return d.err
}

func (r Reply) decoder(want Type) (decoder, Err) {
	if r.Type != want {
		return decoder{}, ErrMsgType
	}
	return decoder{b: r.body}, OK
}

// The body decoders. Each reads one reply type (ErrMsgType on any other) and checks the body is
// exactly its fields. Layouts are net/9p/client.c's p9pdu_readf formats (given) and QEMU's
// hw/9pfs marshalling; TestDecodeGolden checks each against hand-assembled bytes.

// Rlerror: ecode[4] ("d"), a Linux errno; Errno turns it into the one to return.
func (r Reply) Rlerror() (ecode uint32, err Err) {
	d, err := r.decoder(Rlerror)
	if err != OK {
		return 0, err
	}
	ecode = d.u32()
	return ecode, d.end()
}

// Rversion: msize[4] version[s] ("ds"). proposed is the Tversion's msize: the server's may not
// exceed it nor be below MinMsize, and its version must be 9P2000.L.
func (r Reply) Rversion(proposed uint32) (msize uint32, err Err) {
	d, err := r.decoder(Rversion)
	if err != OK {
		return 0, err
	}
	msize = d.u32()
	v := d.str()
	if err := d.end(); err != OK {
		return 0, err
	}
	if string(v) != Version {
		return 0, ErrVersion
	}
	if msize < MinMsize || msize > proposed {
		return 0, ErrMsize
	}
	return msize, OK
}

// Rattach: qid[13] ("Q"), the root's.
func (r Reply) Rattach() (Qid, Err) { return r.qidOnly(Rattach) }

// Rmkdir: qid[13] ("Q"), the new directory's.
func (r Reply) Rmkdir() (Qid, Err) { return r.qidOnly(Rmkdir) }

// Rsymlink: qid[13] ("Q"), the new link's.
func (r Reply) Rsymlink() (Qid, Err) { return r.qidOnly(Rsymlink) }

func (r Reply) qidOnly(t Type) (Qid, Err) {
	d, err := r.decoder(t)
	if err != OK {
		return Qid{}, err
	}
	q := d.qid()
	return q, d.end()
}

// Rwalk: nwqid[2] nwqid*(wqid[13]) ("R"). nwname is the number of names the Twalk carried: the
// server returns one qid per name walked, and fewer than nwname means the walk stopped there
// (newfid was not made). The qids go into qids[:n].
func (r Reply) Rwalk(nwname int, qids *[MaxWalk]Qid) (n int, err Err) {
	d, err := r.decoder(Rwalk)
	if err != OK {
		return 0, err
	}
	n = int(d.u16())
	if d.err == OK && (n > nwname || n > MaxWalk) {
		return 0, ErrWalk
	}
	for i := 0; i < n && d.err == OK; i++ {
		qids[i] = d.qid()
	}
	if err := d.end(); err != OK {
		return 0, err
	}
	return n, OK
}

// Rlopen: qid[13] iounit[4] ("Qd"). iounit, if not 0, caps one read or write.
func (r Reply) Rlopen() (Qid, uint32, Err) { return r.qidIounit(Rlopen) }

// Rlcreate: qid[13] iounit[4] ("Qd"), the new file's.
func (r Reply) Rlcreate() (Qid, uint32, Err) { return r.qidIounit(Rlcreate) }

func (r Reply) qidIounit(t Type) (Qid, uint32, Err) {
	d, err := r.decoder(t)
	if err != OK {
		return Qid{}, 0, err
	}
	q := d.qid()
	iounit := d.u32()
	if err := d.end(); err != OK {
		return Qid{}, 0, err
	}
	return q, iounit, OK
}

// Rread: count[4] data[count] ("D"). count is what the Tread asked for; the data is a slice of
// the reply.
func (r Reply) Rread(count uint32) ([]byte, Err) {
	d, err := r.decoder(Rread)
	if err != OK {
		return nil, err
	}
	data := d.data(count)
	if err := d.end(); err != OK {
		return nil, err
	}
	return data, OK
}

// Rwrite: count[4] ("d"), at most the Twrite's count.
func (r Reply) Rwrite(count uint32) (uint32, Err) {
	d, err := r.decoder(Rwrite)
	if err != OK {
		return 0, err
	}
	n := d.u32()
	if err := d.end(); err != OK {
		return 0, err
	}
	if n > count {
		return 0, ErrOvercount
	}
	return n, OK
}

// Rreaddir: count[4] data[count] ("D"), the data being whole directory entries (see
// NextDirent); every entry is checked here, so walking them later cannot fail.
func (r Reply) Rreaddir(count uint32) ([]byte, Err) {
	d, err := r.decoder(Rreaddir)
	if err != OK {
		return nil, err
	}
	data := d.data(count)
	if err := d.end(); err != OK {
		return nil, err
	}
	for rest := data; len(rest) > 0; {
		var err Err
		if _, rest, err = NextDirent(rest); err != OK {
			return nil, err
		}
	}
	return data, OK
}

// Rreadlink: target[s] ("s").
func (r Reply) Rreadlink() ([]byte, Err) {
	d, err := r.decoder(Rreadlink)
	if err != OK {
		return nil, err
	}
	target := d.str()
	if err := d.end(); err != OK {
		return nil, err
	}
	return target, OK
}

// Rgetattr: valid[8] qid[13] mode[4] uid[4] gid[4] nlink[8] rdev[8] size[8] blksize[8]
// blocks[8] atime_sec[8] atime_nsec[8] mtime_sec[8] mtime_nsec[8] ctime_sec[8] ctime_nsec[8]
// btime_sec[8] btime_nsec[8] gen[8] data_version[8] ("A": struct p9_stat_dotl).
func (r Reply) Rgetattr() (Attr, Err) {
	d, err := r.decoder(Rgetattr)
	if err != OK {
		return Attr{}, err
	}
	var a Attr
	a.Valid = d.u64()
	a.Qid = d.qid()
	a.Mode = d.u32()
	a.Uid = d.u32()
	a.Gid = d.u32()
	a.Nlink = d.u64()
	a.Rdev = d.u64()
	a.Size = d.u64()
	a.Blksize = d.u64()
	a.Blocks = d.u64()
	a.Atime = Time{d.u64(), d.u64()}
	a.Mtime = Time{d.u64(), d.u64()}
	a.Ctime = Time{d.u64(), d.u64()}
	a.Btime = Time{d.u64(), d.u64()}
	a.Gen = d.u64()
	a.DataVersion = d.u64()
	if err := d.end(); err != OK {
		return Attr{}, err
	}
	return a, OK
}

// Rstatfs: type[4] bsize[4] blocks[8] bfree[8] bavail[8] files[8] ffree[8] fsid[8] namelen[4]
// ("ddqqqqqqd": struct p9_rstatfs).
func (r Reply) Rstatfs() (Statfs, Err) {
	d, err := r.decoder(Rstatfs)
	if err != OK {
		return Statfs{}, err
	}
	var s Statfs
	s.Type = d.u32()
	s.Bsize = d.u32()
	s.Blocks = d.u64()
	s.Bfree = d.u64()
	s.Bavail = d.u64()
	s.Files = d.u64()
	s.Ffree = d.u64()
	s.Fsid = d.u64()
	s.Namelen = d.u32()
	if err := d.end(); err != OK {
		return Statfs{}, err
	}
	return s, OK
}

// Empty checks a reply that has no body: Rclunk, Rremove, Runlinkat, Rsetattr, Rlink,
// Rrenameat, Rfsync, Rflush.
func (r Reply) Empty() Err {
	switch r.Type {
	case Rclunk, Rremove, Runlinkat, Rsetattr, Rlink, Rrenameat, Rfsync, Rflush:
	default:
		return ErrMsgType
	}
	if len(r.body) != 0 {
		return ErrTrailing
	}
	return OK
}
