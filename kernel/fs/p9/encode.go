package p9

import (
	"encoding/binary"

	"github.com/unitrace/unitrace/kernel/le"
)

// encoder writes one message into a caller's buffer (a le.Writer bounded by msize). The first
// failure sticks: later writes do nothing and finish reports it, so an encoding function checks
// once, at the end.
type encoder struct {
	w   le.Writer
	err Err // a failure of 9P's own (a string too long), which stops the message as a write's does
}

// begin starts a message of type t with tag; the size field is written by finish. A message
// longer than msize (when it is not 0) is refused, as the server would refuse it.
func begin(b []byte, msize uint32, t Type, tag uint16) encoder {
	e := encoder{w: le.Writer{B: b, Limit: int(min(uint64(msize), 1<<31))}}
	e.u32(0)
	e.u8(uint8(t))
	e.u16(tag)
	return e
}

// failure is the first failure: a message too long to send is ErrTooLong whatever the buffer,
// one the buffer cannot hold ErrBuffer.
func (e *encoder) failure() Err {
	switch {
	case e.err != OK:
		return e.err
	case e.w.Err == le.ErrLimit:
		return ErrTooLong
	case e.w.Err == le.ErrFull:
		return ErrBuffer
	}
	return OK
}

func (e *encoder) u8(v uint8) {
	if e.err == OK {
		e.w.U8(v)
	}
}

func (e *encoder) u16(v uint16) {
	if e.err == OK {
		e.w.U16(v)
	}
}

func (e *encoder) u32(v uint32) {
	if e.err == OK {
		e.w.U32(v)
	}
}

func (e *encoder) u64(v uint64) {
	if e.err == OK {
		e.w.U64(v)
	}
}

func (e *encoder) raw(s []byte) {
	if e.err == OK {
		e.w.Bytes(s)
	}
}

// str writes a 9P string: len[2] then the bytes, no terminator.
func (e *encoder) str(s []byte) {
	if len(s) > 0xffff {
		if e.failure() == OK {
			e.err = ErrStrLen
		}
		return
	}
	e.u16(uint16(len(s)))
	e.raw(s)
}

// finish writes the size field and returns the message's length, or the first failure.
func (e *encoder) finish() (int, Err) {
	if err := e.failure(); err != OK {
		return 0, err
	}
	binary.LittleEndian.PutUint32(e.w.B, uint32(e.w.N))
	return e.w.N, OK
}

// The T-message encoders below write one whole message at the start of b and return its length.
// Field layouts are the 9P2000.L protocol description's, as Linux's net/9p/client.c marshals
// them (the format string of each p9_client_rpc call is given: d u32, q u64, w u16, s string,
// T a name array, g/u a gid/uid as u32) and QEMU's hw/9pfs unmarshals them; TestEncodeGolden
// checks every one against hand-assembled bytes. msize bounds the message (0: only b does).
// Strings are byte slices; nothing is retained.

// PutTversion: size[4] Tversion tag[2] msize[4] version[s] ("ds"); the tag is always NoTag.
func PutTversion(b []byte, msize uint32) (int, Err) {
	e := begin(b, msize, Tversion, NoTag)
	e.u32(msize)
	e.u16(uint16(len(Version)))
	if e.err == OK && e.w.Room(len(Version)) {
		e.w.N += copy(e.w.B[e.w.N:], Version)
	}
	return e.finish()
}

// PutTattach: fid[4] afid[4] uname[s] aname[s] n_uname[4] ("ddss?u": n_uname is the .u/.L
// extension).
func PutTattach(b []byte, msize uint32, tag uint16, fid, afid uint32, uname, aname []byte, nUname uint32) (int, Err) {
	e := begin(b, msize, Tattach, tag)
	e.u32(fid)
	e.u32(afid)
	e.str(uname)
	e.str(aname)
	e.u32(nUname)
	return e.finish()
}

// PutTwalk: fid[4] newfid[4] nwname[2] nwname*(wname[s]) ("ddT"). At most MaxWalk names; none
// clones fid into newfid.
func PutTwalk(b []byte, msize uint32, tag uint16, fid, newfid uint32, names [][]byte) (int, Err) {
	if len(names) > MaxWalk {
		return 0, ErrTooMany
	}
	e := begin(b, msize, Twalk, tag)
	e.u32(fid)
	e.u32(newfid)
	e.u16(uint16(len(names)))
	for _, name := range names {
		e.str(name)
	}
	return e.finish()
}

// putTwalkPath is PutTwalk of the next MaxWalk (or fewer) names of path[off:], as nextName
// splits it: one Twalk's worth of a longer walk. It also returns how many names it took and
// the offset after the last.
func putTwalkPath(b []byte, msize uint32, tag uint16, fid, newfid uint32, path []byte, off int) (n, names, next int, err Err) {
	e := begin(b, msize, Twalk, tag)
	e.u32(fid)
	e.u32(newfid)
	at := e.w.N
	e.u16(0) // nwname, once known
	next = off
	for names < MaxWalk {
		name, after := nextName(path, next)
		if len(name) == 0 {
			break
		}
		e.str(name)
		names++
		next = after
	}
	if e.failure() == OK {
		binary.LittleEndian.PutUint16(e.w.B[at:], uint16(names))
	}
	n, err = e.finish()
	return n, names, next, err
}

// PutTlopen: fid[4] flags[4] ("dd"); flags are Dotl* flags.
func PutTlopen(b []byte, msize uint32, tag uint16, fid, flags uint32) (int, Err) {
	e := begin(b, msize, Tlopen, tag)
	e.u32(fid)
	e.u32(flags)
	return e.finish()
}

// PutTlcreate: fid[4] name[s] flags[4] mode[4] gid[4] ("dsddg"). fid, a directory, becomes the
// new file, open.
func PutTlcreate(b []byte, msize uint32, tag uint16, fid uint32, name []byte, flags, mode, gid uint32) (int, Err) {
	e := begin(b, msize, Tlcreate, tag)
	e.u32(fid)
	e.str(name)
	e.u32(flags)
	e.u32(mode)
	e.u32(gid)
	return e.finish()
}

// PutTread: fid[4] offset[8] count[4] ("dqd").
func PutTread(b []byte, msize uint32, tag uint16, fid uint32, offset uint64, count uint32) (int, Err) {
	e := begin(b, msize, Tread, tag)
	e.u32(fid)
	e.u64(offset)
	e.u32(count)
	return e.finish()
}

// PutTwrite: fid[4] offset[8] count[4] data[count] ("dqV").
func PutTwrite(b []byte, msize uint32, tag uint16, fid uint32, offset uint64, data []byte) (int, Err) {
	if uint64(len(data)) > 0xffffffff {
		return 0, ErrDataLen
	}
	e := begin(b, msize, Twrite, tag)
	e.u32(fid)
	e.u64(offset)
	e.u32(uint32(len(data)))
	e.raw(data)
	return e.finish()
}

// PutTclunk: fid[4] ("d").
func PutTclunk(b []byte, msize uint32, tag uint16, fid uint32) (int, Err) {
	return putFid(b, msize, Tclunk, tag, fid)
}

// PutTremove: fid[4] ("d"). The fid is clunked whether or not the file is removed.
func PutTremove(b []byte, msize uint32, tag uint16, fid uint32) (int, Err) {
	return putFid(b, msize, Tremove, tag, fid)
}

// PutTreadlink: fid[4] ("d").
func PutTreadlink(b []byte, msize uint32, tag uint16, fid uint32) (int, Err) {
	return putFid(b, msize, Treadlink, tag, fid)
}

// PutTstatfs: fid[4] ("d").
func PutTstatfs(b []byte, msize uint32, tag uint16, fid uint32) (int, Err) {
	return putFid(b, msize, Tstatfs, tag, fid)
}

func putFid(b []byte, msize uint32, t Type, tag uint16, fid uint32) (int, Err) {
	e := begin(b, msize, t, tag)
	e.u32(fid)
	return e.finish()
}

// PutTunlinkat: dirfd[4] name[s] flags[4] ("dsd"); flags 0 or AtRemovedir.
func PutTunlinkat(b []byte, msize uint32, tag uint16, dirfid uint32, name []byte, flags uint32) (int, Err) {
	e := begin(b, msize, Tunlinkat, tag)
	e.u32(dirfid)
	e.str(name)
	e.u32(flags)
	return e.finish()
}

// PutTgetattr: fid[4] request_mask[8] ("dq"); mask is Getattr* bits.
func PutTgetattr(b []byte, msize uint32, tag uint16, fid uint32, mask uint64) (int, Err) {
	e := begin(b, msize, Tgetattr, tag)
	e.u32(fid)
	e.u64(mask)
	return e.finish()
}

// SetAttr is the body of Tsetattr (struct p9_iattr_dotl): Valid says which fields apply
// (Setattr* bits).
type SetAttr struct {
	Valid     uint32
	Mode      uint32 // permission bits (chmod)
	Uid       uint32
	Gid       uint32
	Size      uint64 // truncate to this length
	AtimeSec  uint64 // with SetattrAtime|SetattrAtimeSet
	AtimeNsec uint64
	MtimeSec  uint64 // with SetattrMtime|SetattrMtimeSet
	MtimeNsec uint64
}

// PutTsetattr: fid[4] valid[4] mode[4] uid[4] gid[4] size[8] atime_sec[8] atime_nsec[8]
// mtime_sec[8] mtime_nsec[8] ("dI", I being "ddugqqqqq").
func PutTsetattr(b []byte, msize uint32, tag uint16, fid uint32, a SetAttr) (int, Err) {
	e := begin(b, msize, Tsetattr, tag)
	e.u32(fid)
	e.u32(a.Valid)
	e.u32(a.Mode)
	e.u32(a.Uid)
	e.u32(a.Gid)
	e.u64(a.Size)
	e.u64(a.AtimeSec)
	e.u64(a.AtimeNsec)
	e.u64(a.MtimeSec)
	e.u64(a.MtimeNsec)
	return e.finish()
}

// PutTreaddir: fid[4] offset[8] count[4] ("dqd"); offset is 0 or an entry's offset field.
func PutTreaddir(b []byte, msize uint32, tag uint16, fid uint32, offset uint64, count uint32) (int, Err) {
	e := begin(b, msize, Treaddir, tag)
	e.u32(fid)
	e.u64(offset)
	e.u32(count)
	return e.finish()
}

// PutTmkdir: dfid[4] name[s] mode[4] gid[4] ("dsdg").
func PutTmkdir(b []byte, msize uint32, tag uint16, dfid uint32, name []byte, mode, gid uint32) (int, Err) {
	e := begin(b, msize, Tmkdir, tag)
	e.u32(dfid)
	e.str(name)
	e.u32(mode)
	e.u32(gid)
	return e.finish()
}

// PutTsymlink: fid[4] name[s] symtgt[s] gid[4] ("dssg"): name, in directory fid, points at
// target.
func PutTsymlink(b []byte, msize uint32, tag uint16, dfid uint32, name, target []byte, gid uint32) (int, Err) {
	e := begin(b, msize, Tsymlink, tag)
	e.u32(dfid)
	e.str(name)
	e.str(target)
	e.u32(gid)
	return e.finish()
}

// PutTlink: dfid[4] fid[4] name[s] ("dds"): name, in directory dfid, becomes a hard link to fid.
func PutTlink(b []byte, msize uint32, tag uint16, dfid, fid uint32, name []byte) (int, Err) {
	e := begin(b, msize, Tlink, tag)
	e.u32(dfid)
	e.u32(fid)
	e.str(name)
	return e.finish()
}

// PutTrenameat: olddirfid[4] oldname[s] newdirfid[4] newname[s] ("dsds").
func PutTrenameat(b []byte, msize uint32, tag uint16, olddir uint32, oldname []byte, newdir uint32, newname []byte) (int, Err) {
	e := begin(b, msize, Trenameat, tag)
	e.u32(olddir)
	e.str(oldname)
	e.u32(newdir)
	e.str(newname)
	return e.finish()
}

// PutTfsync: fid[4] datasync[4] ("dd"; struct p9_tfsync omits datasync, the client sends it).
func PutTfsync(b []byte, msize uint32, tag uint16, fid uint32, datasync bool) (int, Err) {
	e := begin(b, msize, Tfsync, tag)
	e.u32(fid)
	var d uint32
	if datasync {
		d = 1
	}
	e.u32(d)
	return e.finish()
}

// PutTflush: oldtag[2] ("w").
func PutTflush(b []byte, msize uint32, tag, oldtag uint16) (int, Err) {
	e := begin(b, msize, Tflush, tag)
	e.u16(oldtag)
	return e.finish()
}
