package p9

import (
	"github.com/unitrace/unitrace/kernel/abi"
	"github.com/unitrace/unitrace/kernel/fs"
)

// MaxOps is how many operations a Client has in flight at once. An operation's tag is its slot
// number, so tags are 0..MaxOps-1 (Tversion goes on the wire with NoTag, but its slot's tag is
// still what the caller uses).
const MaxOps = 16

// Client is one 9P2000.L session's state: the negotiated msize, the fid table and the operations
// in flight, each a small state machine whose messages the caller carries. It is pointer-free
// and never allocates, so the kernel can keep it in a global; the zero value is a client that
// has not negotiated yet (Version first).
//
// The Client does no locking: the caller serialises its calls (the kernel lock). It keeps
// nothing half-done between calls, so several operations can be in flight at once, each
// waiting for its reply while other threads run.
type Client struct {
	msize uint32 // negotiated by Version; 0 before
	fids  fidTable
	ops   [MaxOps]op
	held  uint32 // bit t: tag t is Hold's, not to be started on
}

// Result is what Reply reports about the operation the reply was for.
type Result struct {
	// Done says the operation is over and its tag free. Otherwise the next request of the
	// operation is in the request buffer given to Reply, Next bytes of it: send it, with the
	// same tag, and hand its reply to Reply again.
	Done bool
	Next int

	// Errno is 0 if the operation succeeded, else the Linux errno it failed with: the
	// server's (Errno), the client's own (ENOENT for a walk that stopped short, EINTR for a
	// flushed operation), or EIO for a reply the decoder rejected, Err saying why.
	Errno int
	Err   Err

	Fid    uint32 // Attach, Walk, Open, Create: the new fid
	Qid    Qid    // the file's: Attach, Walk (the last name's), Open, Create, Lopen, Mkdir, Symlink
	Walked int    // Walk, Open: how many names were walked, also when the walk stopped short
	Iounit uint32 // Open, Create, Lopen: the most one read or write moves (0: no limit but msize)
	Count  uint32 // Read, Readdir: bytes received; Write: bytes written
	Msize  uint32 // Version: the negotiated msize
	// Data is, for Read, the data; for Readdir, the entries (NextDirent); for Readlink, the
	// target. It is a slice of the reply: copy it out before the reply buffer is reused.
	Data   []byte
	Attr   Attr   // Getattr
	Statfs Statfs // Statfs
}

type opKind uint8

const (
	opFree opKind = iota
	opVersion
	opAttach
	opWalk
	opOpen
	opCreate
	opLopen
	opRead
	opWrite
	opReaddir
	opGetattr
	opSetattr
	opMkdir
	opSymlink
	opReadlink
	opLink
	opRenameat
	opUnlinkat
	opStatfs
	opFsync
	opClunk
	opRemove
	opFlush
)

// op is one operation in flight. Walk and Open keep their path (Create its name) here, since
// the later messages of the operation are built from it after the caller's copy is gone.
type op struct {
	opState
	path [MaxPath]byte
}

// opState is an operation's state but its path.
type opState struct {
	kind    opKind
	sent    Type   // the T-message in flight
	flushed bool   // a Tflush names this operation
	fid     uint32 // the fid it works on
	newfid  uint32 // Attach, Walk, Open, Create: the fid it makes (NoFid: none)
	live    bool   // the server holds newfid: a walk of it has succeeded
	count   uint32 // Read, Readdir, Write: the count sent; Twalk: the names sent; Tversion: msize
	walked  uint32 // Walk, Open: names walked so far
	flags   uint32 // Open, Create: Tlopen/Tlcreate flags
	mode    uint32 // Create
	gid     uint32 // Create
	errno   int32  // the failure to report once a clean-up Tclunk is answered
	err     Err    // the decoder's, with errno EIO
	qid     Qid
	oldtag  uint16 // Flush: the operation it flushes
	orphan  uint32 // Flush: a fid to clunk once Rflush is in (NoFid: none)
	pathOff uint16 // Walk, Open: where the next Twalk's names start
	pathLen uint16
}

func (o *op) pathBytes() []byte { return o.path[:o.pathLen] }

// Msize returns the negotiated msize, 0 before Version.
func (c *Client) Msize() uint32 { return c.msize }

// InFlight says whether tag has an operation in flight.
func (c *Client) InFlight(tag uint16) bool { return tag < MaxOps && c.ops[tag].kind != opFree }

// FidQid returns the qid of an allocated fid, as its last walk, open or create left it.
func (c *Client) FidQid(fid uint32) (Qid, bool) {
	f, ok := c.fids.get(fid)
	if !ok {
		return Qid{}, false
	}
	return f.qid, true
}

// FreeFids is how many fids the client can still allocate.
func (c *Client) FreeFids() int { return MaxFids - c.fids.used }

// NextTag returns the tag the next operation started will take, so that the caller can hand
// that tag's request buffer to the call; false when none is free (the call would fail with
// EAGAIN).
func (c *Client) NextTag() (uint16, bool) {
	for i := range c.ops {
		if c.startable(uint16(i)) {
			return uint16(i), true
		}
	}
	return 0, false
}

// Hold keeps a tag whose operation is over from being started on until Unhold: its reply
// buffer still holds data the caller has not taken (a Read's, a Readlink's). Holding a tag in
// flight is refused.
func (c *Client) Hold(tag uint16) bool {
	if tag >= MaxOps || c.ops[tag].kind != opFree {
		return false
	}
	c.held |= 1 << tag
	return true
}

// Unhold gives a held tag back.
func (c *Client) Unhold(tag uint16) {
	if tag < MaxOps {
		c.held &^= 1 << tag
	}
}

func (c *Client) startable(tag uint16) bool {
	return c.ops[tag].kind == opFree && c.held&(1<<tag) == 0 && !c.flushing(tag)
}

// startOp takes a free operation slot: the one NextTag names.
func (c *Client) startOp(kind opKind) (uint16, *op, int) {
	if kind != opVersion && c.msize == 0 {
		return 0, nil, abi.EIO // no session: Version first
	}
	tag, ok := c.NextTag()
	if !ok {
		return 0, nil, abi.EAGAIN
	}
	o := &c.ops[tag]
	// The path is not cleared: only its first pathLen bytes are ever read.
	o.opState = opState{kind: kind, fid: NoFid, newfid: NoFid, orphan: NoFid}
	return tag, o, 0
}

// flushing says whether a Tflush naming tag is in flight: 9P forbids reusing the tag until its
// Rflush is in, even when the flushed request was answered.
func (c *Client) flushing(tag uint16) bool {
	for i := range c.ops {
		if o := &c.ops[i]; o.kind == opFlush && o.sent == Tflush && o.oldtag == tag {
			return true
		}
	}
	return false
}

// endOp frees an operation slot.
func (c *Client) endOp(tag uint16) { c.ops[tag].kind = opFree }

// sent records the message a step put in the buffer, or undoes the start of the operation if
// it could not be encoded.
func (c *Client) sent(tag uint16, t Type, n int, err Err) (uint16, int, int) {
	if err != OK {
		o := &c.ops[tag]
		if o.newfid != NoFid {
			c.fids.free(o.newfid)
		}
		c.endOp(tag)
		return 0, 0, encodeErrno(err)
	}
	c.ops[tag].sent = t
	return tag, n, 0
}

// encodeErrno is the errno of a request that cannot be built: too long for msize is a name or
// target too long to send; a buffer smaller than the message is the caller's mistake.
func encodeErrno(err Err) int {
	if err == ErrTooLong || err == ErrStrLen {
		return abi.ENAMETOOLONG
	}
	return abi.EIO
}

// fidFor returns fid's entry if it can be used by an operation: allocated, not pending, not
// being clunked.
func (c *Client) fidFor(fid uint32) (*fidEntry, bool) {
	f, ok := c.fids.get(fid)
	if !ok || f.state == fidPending || f.state == fidClosing {
		return nil, false
	}
	return f, true
}

// fidUse says what an operation needs of the fid it works on.
type fidUse uint8

const (
	anyFid    fidUse = iota // allocated, not pending, not being clunked
	walkedFid               // and not open (Tlopen, walks)
	openFid                 // and open
	readerFid               // and open for reading
	writerFid               // and open for writing
)

// fidOp starts an operation of kind on fid, which must be fit for use: it returns the tag, the
// operation (its fid set) and the fid's entry, or EBADF for a fid that is not, or startOp's
// errno.
func (c *Client) fidOp(kind opKind, fid uint32, use fidUse) (uint16, *op, *fidEntry, int) {
	f, ok := c.fidFor(fid)
	switch {
	case !ok,
		use == walkedFid && f.state != fidWalked,
		use >= openFid && f.state != fidOpen,
		use == readerFid && f.access == DotlWronly,
		use == writerFid && f.access == DotlRdonly:
		return 0, nil, nil, abi.EBADF
	}
	tag, o, errno := c.startOp(kind)
	if errno != 0 {
		return 0, nil, nil, errno
	}
	o.fid = fid
	return tag, o, f, 0
}

// Operations. Each starts an operation: it checks its arguments, encodes the first request
// into b (msize bytes always suffice) and returns the tag to send it with and its length, or
// an errno: EAGAIN when all MaxOps tags are in flight (wait for a Reply that is Done, then
// start again), EBADF for a fid that is not allocated or not in the state the operation needs,
// EINVAL or ENAMETOOLONG for a bad name, EIO before Version.

// Version starts the Tversion that opens a session, proposing msize (at least MinMsize, at
// most MaxMsize; the size of the caller's buffers). It may only run alone: it ends any previous
// session, and every fid with it.
func (c *Client) Version(b []byte, msize uint32) (tag uint16, n int, errno int) {
	if msize < MinMsize || msize > MaxMsize {
		return 0, 0, abi.EINVAL
	}
	for i := range c.ops {
		if c.ops[i].kind != opFree {
			return 0, 0, abi.EBUSY
		}
	}
	c.msize, c.held = 0, 0
	c.fids.reset()
	tag, o, errno := c.startOp(opVersion)
	if errno != 0 {
		return 0, 0, errno
	}
	o.count = msize
	n, err := PutTversion(b, msize)
	return c.sent(tag, Tversion, n, err)
}

// Attach starts a Tattach: the root of the export aname (QEMU ignores it: the mount tag chose
// the export) as user uname / numeric nUname (NoUname if unknown). Result.Fid is the root's fid.
func (c *Client) Attach(b []byte, uname, aname []byte, nUname uint32) (tag uint16, n int, errno int) {
	tag, o, errno := c.startOp(opAttach)
	if errno != 0 {
		return 0, 0, errno
	}
	fid, ok := c.fids.alloc()
	if !ok {
		c.endOp(tag)
		return 0, 0, abi.ENOMEM
	}
	o.newfid = fid
	n, err := PutTattach(b, c.msize, tag, fid, NoFid, uname, aname, nUname)
	return c.sent(tag, Tattach, n, err)
}

// Walk starts walking path from fid (a fid that is not open) to a new fid, in Twalks of at most
// MaxWalk names. Empty and "." components are skipped, so an empty path clones fid; ".." is the
// server's to walk. Symbolic links are not followed: a walk through one stops short. A walk
// that stops short fails with ENOENT (as Linux's p9_client_walk), Result.Walked saying how many
// names were walked and Result.Qid the last one's (a symbolic link's, perhaps); no fid is left
// behind (one the server made is clunked first, the Reply that reports the failure then being
// the clunk's).
func (c *Client) Walk(b []byte, fid uint32, path []byte) (tag uint16, n int, errno int) {
	return c.startWalk(b, opWalk, fid, path, 0)
}

// Open starts opening path, walked from fid as Walk does, with the open(2) flags flags
// (OpenFlags translates them; O_CREAT is Create's): a Walk, then a Tlopen of the new fid.
// Result.Fid is the open fid, Result.Iounit its iounit. If the Tlopen fails, the new fid is
// clunked before the failure is reported.
func (c *Client) Open(b []byte, fid uint32, path []byte, flags uint32) (tag uint16, n int, errno int) {
	return c.startWalk(b, opOpen, fid, path, OpenFlags(flags))
}

func (c *Client) startWalk(b []byte, kind opKind, fid uint32, path []byte, flags uint32) (uint16, int, int) {
	if e := checkPath(path); e != 0 {
		return 0, 0, e
	}
	tag, o, f, errno := c.fidOp(kind, fid, walkedFid)
	if errno != 0 {
		return 0, 0, errno
	}
	qid := f.qid
	newfid, ok := c.fids.alloc()
	if !ok {
		c.endOp(tag)
		return 0, 0, abi.ENOMEM
	}
	o.newfid, o.flags, o.qid = newfid, flags, qid
	o.pathLen = uint16(copy(o.path[:], path))
	n, err := c.putWalk(b, tag, o, fid)
	return c.sent(tag, Twalk, n, err)
}

// putWalk encodes the next Twalk of o's path, from `from` (the starting fid, then newfid).
func (c *Client) putWalk(b []byte, tag uint16, o *op, from uint32) (int, Err) {
	n, k, next, err := putTwalkPath(b, c.msize, tag, from, o.newfid, o.pathBytes(), int(o.pathOff))
	o.pathOff = uint16(next)
	o.count = uint32(k)
	o.sent = Twalk
	return n, err
}

// Create starts creating name in the directory dirfid and opening it with the open(2) flags
// flags and permission bits mode, owned by group gid: a Twalk that clones dirfid, then a
// Tlcreate that turns the clone into the new file (O_CREAT is implied; O_EXCL is honoured).
// Result.Fid is the open fid of the new file. If the Tlcreate fails (EEXIST...), the clone is
// clunked before the failure is reported.
func (c *Client) Create(b []byte, dirfid uint32, name []byte, flags, mode, gid uint32) (tag uint16, n int, errno int) {
	if e := checkName(name); e != 0 {
		return 0, 0, e
	}
	dotl := OpenFlags(flags) | DotlCreate
	if flags&fs.O_EXCL != 0 {
		dotl |= DotlExcl
	}
	tag, n, errno = c.startWalk(b, opCreate, dirfid, nil, dotl)
	if errno != 0 {
		return 0, 0, errno
	}
	o := &c.ops[tag]
	o.mode, o.gid = mode, gid
	o.pathLen = uint16(copy(o.path[:], name))
	o.pathOff = o.pathLen // the clone walks no names
	return tag, n, 0
}

// Lopen starts a Tlopen of fid, a fid that is not open yet, with the open(2) flags flags.
func (c *Client) Lopen(b []byte, fid uint32, flags uint32) (tag uint16, n int, errno int) {
	tag, o, f, errno := c.fidOp(opLopen, fid, walkedFid)
	if errno != 0 {
		return 0, 0, errno
	}
	o.flags = OpenFlags(flags)
	f.state = fidPending // until the reply says whether it is open
	n, err := PutTlopen(b, c.msize, tag, fid, o.flags)
	if err != OK {
		f.state = fidWalked
	}
	return c.sent(tag, Tlopen, n, err)
}

// ioCount bounds one read, write or readdir: the count asked, msize less the header room, and
// the fid's iounit if it has one.
func (c *Client) ioCount(f *fidEntry, count uint64, header uint32) uint32 {
	limit := uint64(c.msize - header)
	if f.iounit != 0 && uint64(f.iounit) < limit {
		limit = uint64(f.iounit)
	}
	return uint32(min(count, limit))
}

// Read starts a Tread of up to count bytes at offset from fid, open for reading. One read moves
// at most msize-IOHeaderSize bytes (and the fid's iounit): Result.Count says how many came, 0
// at the end of the file.
func (c *Client) Read(b []byte, fid uint32, offset uint64, count uint32) (tag uint16, n int, errno int) {
	tag, o, f, errno := c.fidOp(opRead, fid, readerFid)
	if errno != 0 {
		return 0, 0, errno
	}
	o.count = c.ioCount(f, uint64(count), IOHeaderSize)
	n, err := PutTread(b, c.msize, tag, fid, offset, o.count)
	return c.sent(tag, Tread, n, err)
}

// Write starts a Twrite of data at offset to fid, open for writing. It sends at most
// msize-IOHeaderSize bytes (and the fid's iounit) of data: Result.Count says how many the
// server wrote; the caller writes the rest with another Write.
func (c *Client) Write(b []byte, fid uint32, offset uint64, data []byte) (tag uint16, n int, errno int) {
	tag, o, f, errno := c.fidOp(opWrite, fid, writerFid)
	if errno != 0 {
		return 0, 0, errno
	}
	o.count = c.ioCount(f, uint64(len(data)), IOHeaderSize)
	n, err := PutTwrite(b, c.msize, tag, fid, offset, data[:o.count])
	return c.sent(tag, Twrite, n, err)
}

// Readdir starts a Treaddir of up to count bytes of entries from fid, a directory open for
// reading, at offset (0, or the Offset of the last entry received). Result.Data holds whole
// entries (NextDirent), empty at the end of the directory.
func (c *Client) Readdir(b []byte, fid uint32, offset uint64, count uint32) (tag uint16, n int, errno int) {
	tag, o, f, errno := c.fidOp(opReaddir, fid, openFid)
	if errno != 0 {
		return 0, 0, errno
	}
	o.count = c.ioCount(f, uint64(count), ReaddirHeaderSize)
	n, err := PutTreaddir(b, c.msize, tag, fid, offset, o.count)
	return c.sent(tag, Treaddir, n, err)
}

// Getattr starts a Tgetattr of fid asking for the Getattr* bits mask (GetattrBasic for stat).
// Result.Attr is the answer; Attr.Stat maps it to stat fields.
func (c *Client) Getattr(b []byte, fid uint32, mask uint64) (tag uint16, n int, errno int) {
	tag, _, _, errno = c.fidOp(opGetattr, fid, anyFid)
	if errno != 0 {
		return 0, 0, errno
	}
	n, err := PutTgetattr(b, c.msize, tag, fid, mask)
	return c.sent(tag, Tgetattr, n, err)
}

// Setattr starts a Tsetattr of fid: truncate (SetattrSize), chmod (SetattrMode), chown, times.
func (c *Client) Setattr(b []byte, fid uint32, a SetAttr) (tag uint16, n int, errno int) {
	tag, _, _, errno = c.fidOp(opSetattr, fid, anyFid)
	if errno != 0 {
		return 0, 0, errno
	}
	n, err := PutTsetattr(b, c.msize, tag, fid, a)
	return c.sent(tag, Tsetattr, n, err)
}

// nameOp starts an operation on a name in directory fid dfid.
func (c *Client) nameOp(kind opKind, dfid uint32, name []byte) (uint16, *op, int) {
	if e := checkName(name); e != 0 {
		return 0, nil, e
	}
	tag, o, _, errno := c.fidOp(kind, dfid, anyFid)
	return tag, o, errno
}

// Mkdir starts a Tmkdir of name in directory dfid with permission bits mode and group gid.
// Result.Qid is the new directory's.
func (c *Client) Mkdir(b []byte, dfid uint32, name []byte, mode, gid uint32) (tag uint16, n int, errno int) {
	tag, _, errno = c.nameOp(opMkdir, dfid, name)
	if errno != 0 {
		return 0, 0, errno
	}
	n, err := PutTmkdir(b, c.msize, tag, dfid, name, mode, gid)
	return c.sent(tag, Tmkdir, n, err)
}

// Symlink starts a Tsymlink: name, in directory dfid, a symbolic link to target, group gid.
// Result.Qid is the link's.
func (c *Client) Symlink(b []byte, dfid uint32, name, target []byte, gid uint32) (tag uint16, n int, errno int) {
	if len(target) == 0 {
		return 0, 0, abi.ENOENT // symlink(2) with an empty target
	}
	if len(target) > MaxPath {
		return 0, 0, abi.ENAMETOOLONG
	}
	tag, _, errno = c.nameOp(opSymlink, dfid, name)
	if errno != 0 {
		return 0, 0, errno
	}
	n, err := PutTsymlink(b, c.msize, tag, dfid, name, target, gid)
	return c.sent(tag, Tsymlink, n, err)
}

// Readlink starts a Treadlink of fid, a symbolic link. Result.Data is its target.
func (c *Client) Readlink(b []byte, fid uint32) (tag uint16, n int, errno int) {
	tag, _, _, errno = c.fidOp(opReadlink, fid, anyFid)
	if errno != 0 {
		return 0, 0, errno
	}
	n, err := PutTreadlink(b, c.msize, tag, fid)
	return c.sent(tag, Treadlink, n, err)
}

// Link starts a Tlink: name, in directory dfid, a new hard link to the file fid.
func (c *Client) Link(b []byte, dfid, fid uint32, name []byte) (tag uint16, n int, errno int) {
	if _, ok := c.fidFor(fid); !ok {
		return 0, 0, abi.EBADF
	}
	tag, _, errno = c.nameOp(opLink, dfid, name)
	if errno != 0 {
		return 0, 0, errno
	}
	n, err := PutTlink(b, c.msize, tag, dfid, fid, name)
	return c.sent(tag, Tlink, n, err)
}

// Renameat starts a Trenameat of oldname in directory olddir to newname in directory newdir.
func (c *Client) Renameat(b []byte, olddir uint32, oldname []byte, newdir uint32, newname []byte) (tag uint16, n int, errno int) {
	if e := checkName(newname); e != 0 {
		return 0, 0, e
	}
	if _, ok := c.fidFor(newdir); !ok {
		return 0, 0, abi.EBADF
	}
	tag, _, errno = c.nameOp(opRenameat, olddir, oldname)
	if errno != 0 {
		return 0, 0, errno
	}
	n, err := PutTrenameat(b, c.msize, tag, olddir, oldname, newdir, newname)
	return c.sent(tag, Trenameat, n, err)
}

// Unlinkat starts a Tunlinkat of name in directory dfid; flags is 0 or AtRemovedir (rmdir).
func (c *Client) Unlinkat(b []byte, dfid uint32, name []byte, flags uint32) (tag uint16, n int, errno int) {
	if flags&^AtRemovedir != 0 {
		return 0, 0, abi.EINVAL
	}
	tag, _, errno = c.nameOp(opUnlinkat, dfid, name)
	if errno != 0 {
		return 0, 0, errno
	}
	n, err := PutTunlinkat(b, c.msize, tag, dfid, name, flags)
	return c.sent(tag, Tunlinkat, n, err)
}

// Statfs starts a Tstatfs of the file system fid is on. Result.Statfs is the answer.
func (c *Client) Statfs(b []byte, fid uint32) (tag uint16, n int, errno int) {
	tag, _, _, errno = c.fidOp(opStatfs, fid, anyFid)
	if errno != 0 {
		return 0, 0, errno
	}
	n, err := PutTstatfs(b, c.msize, tag, fid)
	return c.sent(tag, Tstatfs, n, err)
}

// Fsync starts a Tfsync of fid, an open fid: its data (and, unless datasync, its metadata).
func (c *Client) Fsync(b []byte, fid uint32, datasync bool) (tag uint16, n int, errno int) {
	tag, _, _, errno = c.fidOp(opFsync, fid, openFid)
	if errno != 0 {
		return 0, 0, errno
	}
	n, err := PutTfsync(b, c.msize, tag, fid, datasync)
	return c.sent(tag, Tfsync, n, err)
}

// Clunk starts a Tclunk of fid. The fid is gone once the reply is in, whatever it says (9P:
// a clunk frees the fid even when it fails); until then nothing else may use it.
func (c *Client) Clunk(b []byte, fid uint32) (tag uint16, n int, errno int) {
	return c.drop(b, opClunk, Tclunk, fid)
}

// Remove starts a Tremove of the file fid names. Like Clunk, it frees the fid, removed or not.
func (c *Client) Remove(b []byte, fid uint32) (tag uint16, n int, errno int) {
	return c.drop(b, opRemove, Tremove, fid)
}

func (c *Client) drop(b []byte, kind opKind, t Type, fid uint32) (uint16, int, int) {
	tag, _, f, errno := c.fidOp(kind, fid, anyFid)
	if errno != 0 {
		return 0, 0, errno
	}
	prev := f.state
	f.state = fidClosing
	n, err := putFid(b, c.msize, t, tag, fid)
	if err != OK {
		f.state = prev
	}
	return c.sent(tag, t, n, err)
}

// Flush starts a Tflush of the operation in flight with tag oldtag, to abandon it (its caller
// was interrupted). The old operation ends with its own reply, if one comes before Rflush (an
// empty one, which is how QEMU returns a request it cancelled, ends it with EINTR), or else
// with Rflush: afterwards InFlight(oldtag) is false. Whatever fid the old operation had made
// or was dropping is clunked by the flush before its Reply is Done. A transport must hand over
// the old operation's reply, if any, before the flush's: 9P servers answer in that order.
func (c *Client) Flush(b []byte, oldtag uint16) (tag uint16, n int, errno int) {
	if !c.InFlight(oldtag) {
		return 0, 0, abi.EINVAL
	}
	if old := &c.ops[oldtag]; old.kind == opVersion || old.kind == opFlush || old.flushed {
		return 0, 0, abi.EINVAL
	}
	tag, o, errno := c.startOp(opFlush)
	if errno != 0 {
		return 0, 0, errno
	}
	o.oldtag = oldtag
	c.ops[oldtag].flushed = true
	n, err := PutTflush(b, c.msize, tag, oldtag)
	if err != OK {
		c.ops[oldtag].flushed = false
	}
	return c.sent(tag, Tflush, n, err)
}
