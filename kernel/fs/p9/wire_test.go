package p9

import (
	"bytes"
	"testing"

	"github.com/unitrace/unitrace/kernel/abi"
	"github.com/unitrace/unitrace/kernel/fs"
)

// TestTypeNumbers pins the message numbers to Linux's enum p9_msg_t (include/net/9p/9p.h):
// each R-message is its T-message plus one, and the 9P2000.L ones sit below 100.
func TestTypeNumbers(t *testing.T) {
	for _, tt := range []struct {
		name string
		got  Type
		want int
	}{
		{"Rlerror", Rlerror, 7}, {"Tstatfs", Tstatfs, 8}, {"Tlopen", Tlopen, 12}, {"Tlcreate", Tlcreate, 14},
		{"Tsymlink", Tsymlink, 16}, {"Treadlink", Treadlink, 22}, {"Tgetattr", Tgetattr, 24},
		{"Tsetattr", Tsetattr, 26}, {"Treaddir", Treaddir, 40}, {"Tfsync", Tfsync, 50}, {"Tlink", Tlink, 70},
		{"Tmkdir", Tmkdir, 72}, {"Trenameat", Trenameat, 74}, {"Tunlinkat", Tunlinkat, 76},
		{"Tversion", Tversion, 100}, {"Tattach", Tattach, 104}, {"Rerror", Rerror, 107}, {"Tflush", Tflush, 108},
		{"Twalk", Twalk, 110}, {"Tread", Tread, 116}, {"Twrite", Twrite, 118}, {"Tclunk", Tclunk, 120},
		{"Tremove", Tremove, 122},
	} {
		if int(tt.got) != tt.want {
			t.Errorf("%s = %d, want %d", tt.name, tt.got, tt.want)
		}
	}
	for _, pair := range [][2]Type{
		{Tstatfs, Rstatfs}, {Tlopen, Rlopen}, {Tlcreate, Rlcreate}, {Tsymlink, Rsymlink}, {Treadlink, Rreadlink},
		{Tgetattr, Rgetattr}, {Tsetattr, Rsetattr}, {Treaddir, Rreaddir}, {Tfsync, Rfsync}, {Tlink, Rlink},
		{Tmkdir, Rmkdir}, {Trenameat, Rrenameat}, {Tunlinkat, Runlinkat}, {Tversion, Rversion},
		{Tattach, Rattach}, {Tflush, Rflush}, {Twalk, Rwalk}, {Tread, Rread}, {Twrite, Rwrite},
		{Tclunk, Rclunk}, {Tremove, Rremove},
	} {
		if pair[1] != pair[0]+1 || replyType(pair[0]) != pair[1] {
			t.Errorf("reply of %d is %d (replyType %d)", pair[0], pair[1], replyType(pair[0]))
		}
	}
}

// TestConstants pins the flag and mask values to include/net/9p/9p.h.
func TestConstants(t *testing.T) {
	for _, tt := range []struct {
		name      string
		got, want uint64
	}{
		{"P9_NOTAG", uint64(NoTag), 0xffff}, {"P9_NOFID", uint64(NoFid), 0xffffffff}, {"P9_MAXWELEM", MaxWalk, 16},
		{"P9_IOHDRSZ", IOHeaderSize, 24}, {"P9_READDIRHDRSZ", ReaddirHeaderSize, 24},
		{"P9_QTDIR", QTDIR, 0x80}, {"P9_QTSYMLINK", QTSYMLINK, 0x02}, {"P9_QTLINK", QTLINK, 0x01},
		{"P9_GETATTR_MODE", GetattrMode, 1}, {"P9_GETATTR_SIZE", GetattrSize, 0x200},
		{"P9_GETATTR_BLOCKS", GetattrBlocks, 0x400}, {"P9_GETATTR_BTIME", GetattrBtime, 0x800},
		{"P9_GETATTR_DATA_VERSION", GetattrDataVersion, 0x2000},
		{"P9_GETATTR_BASIC", GetattrBasic, 0x7ff}, {"P9_GETATTR_ALL", GetattrAll, 0x3fff},
		{"P9_SETATTR_MODE", SetattrMode, 1}, {"P9_SETATTR_SIZE", SetattrSize, 8},
		{"P9_SETATTR_ATIME", SetattrAtime, 0x10}, {"P9_SETATTR_MTIME", SetattrMtime, 0x20},
		{"P9_SETATTR_ATIME_SET", SetattrAtimeSet, 0x80}, {"P9_SETATTR_MTIME_SET", SetattrMtimeSet, 0x100},
		{"P9_DOTL_CREATE", DotlCreate, 0o100}, {"P9_DOTL_TRUNC", DotlTrunc, 0o1000},
		{"P9_DOTL_DIRECTORY", DotlDirectory, 0o200000}, {"P9_DOTL_NOFOLLOW", DotlNofollow, 0o400000},
		{"P9_DOTL_SYNC", DotlSync, 0o4000000}, {"P9_DOTL_AT_REMOVEDIR", AtRemovedir, 0x200},
	} {
		if tt.got != tt.want {
			t.Errorf("%s = %#x, want %#x", tt.name, tt.got, tt.want)
		}
	}
}

// TestEncodeGolden checks every encoder against a hand-assembled message.
func TestEncodeGolden(t *testing.T) {
	for _, tt := range []struct {
		name string
		put  func(b []byte) (int, Err)
		want []byte
	}{
		{"Tversion", func(b []byte) (int, Err) { return PutTversion(b, 8192) }, []byte{
			0x15, 0, 0, 0, 100, 0xff, 0xff, // size 21, Tversion, NOTAG
			0x00, 0x20, 0, 0, // msize 8192
			8, 0, '9', 'P', '2', '0', '0', '0', '.', 'L'}},
		{"Tattach", func(b []byte) (int, Err) {
			return PutTattach(b, 0, 1, 0, NoFid, []byte("u"), nil, 1000)
		}, []byte{
			0x18, 0, 0, 0, 104, 1, 0,
			0, 0, 0, 0, // fid
			0xff, 0xff, 0xff, 0xff, // afid NOFID
			1, 0, 'u', // uname
			0, 0, // aname ""
			0xe8, 0x03, 0, 0}}, // n_uname 1000
		{"Twalk", func(b []byte) (int, Err) {
			return PutTwalk(b, 0, 2, 0, 1, [][]byte{[]byte("a"), []byte("bc")})
		}, []byte{
			0x18, 0, 0, 0, 110, 2, 0,
			0, 0, 0, 0, 1, 0, 0, 0, // fid, newfid
			2, 0, // nwname
			1, 0, 'a', 2, 0, 'b', 'c'}},
		{"Twalk clone", func(b []byte) (int, Err) { return PutTwalk(b, 0, 2, 0, 1, nil) }, []byte{
			0x11, 0, 0, 0, 110, 2, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0}},
		{"Tlopen", func(b []byte) (int, Err) { return PutTlopen(b, 0, 3, 1, DotlRdwr) }, []byte{
			0x0f, 0, 0, 0, 12, 3, 0, 1, 0, 0, 0, 2, 0, 0, 0}},
		{"Tlcreate", func(b []byte) (int, Err) {
			return PutTlcreate(b, 0, 4, 1, []byte("f"), DotlWronly|DotlCreate, 0o644, 100)
		}, []byte{
			0x1a, 0, 0, 0, 14, 4, 0,
			1, 0, 0, 0, // fid
			1, 0, 'f', // name
			0x41, 0, 0, 0, // flags
			0xa4, 0x01, 0, 0, // mode 0644
			100, 0, 0, 0}}, // gid
		{"Tread", func(b []byte) (int, Err) { return PutTread(b, 0, 5, 1, 0x1122334455667788, 4096) }, []byte{
			0x17, 0, 0, 0, 116, 5, 0,
			1, 0, 0, 0,
			0x88, 0x77, 0x66, 0x55, 0x44, 0x33, 0x22, 0x11,
			0, 0x10, 0, 0}},
		{"Twrite", func(b []byte) (int, Err) { return PutTwrite(b, 0, 6, 1, 16, []byte("hi")) }, []byte{
			0x19, 0, 0, 0, 118, 6, 0,
			1, 0, 0, 0,
			16, 0, 0, 0, 0, 0, 0, 0,
			2, 0, 0, 0, 'h', 'i'}},
		{"Tclunk", func(b []byte) (int, Err) { return PutTclunk(b, 0, 7, 9) }, []byte{
			0x0b, 0, 0, 0, 120, 7, 0, 9, 0, 0, 0}},
		{"Tremove", func(b []byte) (int, Err) { return PutTremove(b, 0, 8, 9) }, []byte{
			0x0b, 0, 0, 0, 122, 8, 0, 9, 0, 0, 0}},
		{"Tunlinkat", func(b []byte) (int, Err) { return PutTunlinkat(b, 0, 9, 2, []byte("d"), AtRemovedir) }, []byte{
			0x12, 0, 0, 0, 76, 9, 0, 2, 0, 0, 0, 1, 0, 'd', 0, 2, 0, 0}},
		{"Tgetattr", func(b []byte) (int, Err) { return PutTgetattr(b, 0, 10, 3, GetattrBasic) }, []byte{
			0x13, 0, 0, 0, 24, 10, 0, 3, 0, 0, 0, 0xff, 0x07, 0, 0, 0, 0, 0, 0}},
		{"Tsetattr", func(b []byte) (int, Err) {
			return PutTsetattr(b, 0, 11, 3, SetAttr{Valid: SetattrSize | SetattrMode, Mode: 0o600, Uid: 1, Gid: 2,
				Size: 0x100, AtimeSec: 3, AtimeNsec: 4, MtimeSec: 5, MtimeNsec: 6})
		}, []byte{
			0x43, 0, 0, 0, 26, 11, 0,
			3, 0, 0, 0, // fid
			9, 0, 0, 0, // valid
			0x80, 0x01, 0, 0, // mode 0600
			1, 0, 0, 0, // uid
			2, 0, 0, 0, // gid
			0, 1, 0, 0, 0, 0, 0, 0, // size
			3, 0, 0, 0, 0, 0, 0, 0, 4, 0, 0, 0, 0, 0, 0, 0, // atime
			5, 0, 0, 0, 0, 0, 0, 0, 6, 0, 0, 0, 0, 0, 0, 0}}, // mtime
		{"Treaddir", func(b []byte) (int, Err) { return PutTreaddir(b, 0, 12, 4, 7, 8168) }, []byte{
			0x17, 0, 0, 0, 40, 12, 0, 4, 0, 0, 0, 7, 0, 0, 0, 0, 0, 0, 0, 0xe8, 0x1f, 0, 0}},
		{"Tmkdir", func(b []byte) (int, Err) { return PutTmkdir(b, 0, 13, 2, []byte("d"), 0o755, 0) }, []byte{
			0x16, 0, 0, 0, 72, 13, 0, 2, 0, 0, 0, 1, 0, 'd', 0xed, 0x01, 0, 0, 0, 0, 0, 0}},
		{"Tsymlink", func(b []byte) (int, Err) { return PutTsymlink(b, 0, 14, 2, []byte("l"), []byte("t"), 5) }, []byte{
			0x15, 0, 0, 0, 16, 14, 0, 2, 0, 0, 0, 1, 0, 'l', 1, 0, 't', 5, 0, 0, 0}},
		{"Treadlink", func(b []byte) (int, Err) { return PutTreadlink(b, 0, 15, 6) }, []byte{
			0x0b, 0, 0, 0, 22, 15, 0, 6, 0, 0, 0}},
		{"Tlink", func(b []byte) (int, Err) { return PutTlink(b, 0, 16, 2, 6, []byte("h")) }, []byte{
			0x12, 0, 0, 0, 70, 16, 0, 2, 0, 0, 0, 6, 0, 0, 0, 1, 0, 'h'}},
		{"Trenameat", func(b []byte) (int, Err) { return PutTrenameat(b, 0, 17, 2, []byte("a"), 3, []byte("b")) }, []byte{
			0x15, 0, 0, 0, 74, 17, 0, 2, 0, 0, 0, 1, 0, 'a', 3, 0, 0, 0, 1, 0, 'b'}},
		{"Tstatfs", func(b []byte) (int, Err) { return PutTstatfs(b, 0, 18, 1) }, []byte{
			0x0b, 0, 0, 0, 8, 18, 0, 1, 0, 0, 0}},
		{"Tfsync", func(b []byte) (int, Err) { return PutTfsync(b, 0, 19, 1, true) }, []byte{
			0x0f, 0, 0, 0, 50, 19, 0, 1, 0, 0, 0, 1, 0, 0, 0}},
		{"Tflush", func(b []byte) (int, Err) { return PutTflush(b, 0, 20, 5) }, []byte{
			0x09, 0, 0, 0, 108, 20, 0, 5, 0}},
	} {
		buf := bytes.Repeat([]byte{0xaa}, len(tt.want)+8)
		n, err := tt.put(buf)
		if err != OK || n != len(tt.want) || !bytes.Equal(buf[:n], tt.want) {
			t.Errorf("%s: %d, %v: % x\nwant % x", tt.name, n, err, buf[:max(n, 0)], tt.want)
			continue
		}
		if !bytes.Equal(buf[n:], bytes.Repeat([]byte{0xaa}, 8)) {
			t.Errorf("%s wrote past its message", tt.name)
		}
		// Every shorter buffer is refused, and so is an msize one short of the message.
		for short := 0; short < n; short++ {
			if m, err := tt.put(make([]byte, short)); err != ErrBuffer || m != 0 {
				t.Errorf("%s into %d bytes: %d, %v", tt.name, short, m, err)
			}
		}
	}
}

func TestEncodeLimits(t *testing.T) {
	b := make([]byte, 1<<17)
	if _, err := PutTwalk(b, 0, 1, 0, 1, make([][]byte, MaxWalk+1)); err != ErrTooMany {
		t.Errorf("17-name walk: %v", err)
	}
	if _, err := PutTwalk(b, 0, 1, 0, 1, make([][]byte, MaxWalk)); err != OK {
		t.Errorf("16-name walk: %v", err)
	}
	if _, err := PutTmkdir(b, 0, 1, 0, make([]byte, 0x10000), 0, 0); err != ErrStrLen {
		t.Errorf("65536-byte name: %v", err)
	}
	if n, err := PutTwrite(b, 4096, 1, 0, 0, make([]byte, 4096-23)); err != OK || n != 4096 {
		t.Errorf("Twrite of msize: %d, %v", n, err)
	}
	if _, err := PutTwrite(b, 4096, 1, 0, 0, make([]byte, 4096-22)); err != ErrTooLong {
		t.Errorf("Twrite past msize: %v", err)
	}
}

// TestWalkPathChunks checks the Twalks a long path is split into.
func TestWalkPathChunks(t *testing.T) {
	path := []byte("/a/./b//c/../d/e/f/g/h/i/j/k/l/m/n/o/p/q/r/")
	b := make([]byte, 512)
	n, names, next, err := putTwalkPath(b, 0, 3, 1, 2, path, 0)
	if err != OK || names != MaxWalk {
		t.Fatalf("first chunk: %d names, %v", names, err)
	}
	if !bytes.Equal(b[:n], mustPut(t, func(b []byte) (int, Err) {
		return PutTwalk(b, 0, 3, 1, 2, splitNames("a b c .. d e f g h i j k l m n o"))
	})) {
		t.Errorf("first chunk % x", b[:n])
	}
	n, names, next, err = putTwalkPath(b, 0, 3, 2, 2, path, next)
	if err != OK || names != 3 || !bytes.Equal(b[:n], mustPut(t, func(b []byte) (int, Err) {
		return PutTwalk(b, 0, 3, 2, 2, splitNames("p q r"))
	})) {
		t.Errorf("second chunk: %d names, %v: % x", names, err, b[:n])
	}
	if moreNames(path, next) {
		t.Errorf("names left after %d", next)
	}
}

func splitNames(s string) [][]byte {
	var out [][]byte
	for _, f := range bytes.Fields([]byte(s)) {
		out = append(out, f)
	}
	return out
}

func mustPut(t *testing.T, put func([]byte) (int, Err)) []byte {
	t.Helper()
	b := make([]byte, 1<<16)
	n, err := put(b)
	if err != OK {
		t.Fatalf("encode: %v", err)
	}
	return b[:n]
}

// Hand-assembled replies, shared by the decoder's tests and the fuzzer's seeds.
var (
	rversion = []byte{0x15, 0, 0, 0, 101, 0xff, 0xff, 0x00, 0x20, 0, 0, 8, 0, '9', 'P', '2', '0', '0', '0', '.', 'L'}
	rattach  = []byte{0x14, 0, 0, 0, 105, 1, 0, 0x80, 1, 0, 0, 0, 2, 0, 0, 0, 0, 0, 0, 0}
	rwalk    = []byte{0x23, 0, 0, 0, 111, 2, 0, 2, 0,
		0x80, 0, 0, 0, 0, 5, 0, 0, 0, 0, 0, 0, 0,
		0x02, 1, 0, 0, 0, 6, 0, 0, 0, 0, 0, 0, 0}
	rlopen     = []byte{0x18, 0, 0, 0, 13, 3, 0, 0, 7, 0, 0, 0, 8, 0, 0, 0, 0, 0, 0, 0, 0, 0x20, 0, 0}
	rlcreate   = []byte{0x18, 0, 0, 0, 15, 4, 0, 0, 7, 0, 0, 0, 9, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0}
	rread      = []byte{0x0e, 0, 0, 0, 117, 5, 0, 3, 0, 0, 0, 'a', 'b', 'c'}
	rwrite     = []byte{0x0b, 0, 0, 0, 119, 6, 0, 2, 0, 0, 0}
	rclunk     = []byte{0x07, 0, 0, 0, 121, 7, 0}
	rlerrorMsg = []byte{0x0b, 0, 0, 0, 7, 8, 0, 2, 0, 0, 0}
	rreadlink  = []byte{0x0a, 0, 0, 0, 23, 15, 0, 1, 0, 't'}
	rmkdir     = []byte{0x14, 0, 0, 0, 73, 13, 0, 0x80, 0, 0, 0, 0, 0x0a, 0, 0, 0, 0, 0, 0, 0}
	rflush     = []byte{0x07, 0, 0, 0, 109, 20, 0}
	rreaddir   = []byte{0x3e, 0, 0, 0, 41, 12, 0,
		51, 0, 0, 0, // count
		0x80, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, // qid
		1, 0, 0, 0, 0, 0, 0, 0, // offset
		4, 1, 0, '.', // fs.DT_DIR "."
		0, 0, 0, 0, 0, 2, 0, 0, 0, 0, 0, 0, 0,
		2, 0, 0, 0, 0, 0, 0, 0,
		8, 2, 0, 'a', 'b'} // fs.DT_REG "ab"
	rstatfs = []byte{0x43, 0, 0, 0, 9, 18, 0,
		0x97, 0x19, 0x02, 0x01, // type V9FS_MAGIC
		0, 0x10, 0, 0, // bsize
		1, 0, 0, 0, 0, 0, 0, 0, 2, 0, 0, 0, 0, 0, 0, 0, 3, 0, 0, 0, 0, 0, 0, 0, // blocks bfree bavail
		4, 0, 0, 0, 0, 0, 0, 0, 5, 0, 0, 0, 0, 0, 0, 0, 6, 0, 0, 0, 0, 0, 0, 0, // files ffree fsid
		0xff, 0, 0, 0} // namelen
	rgetattr = []byte{0xa0, 0, 0, 0, 25, 10, 0,
		0xff, 0x07, 0, 0, 0, 0, 0, 0, // valid
		0, 0, 0, 0, 0, 0x2a, 0, 0, 0, 0, 0, 0, 0, // qid path 42
		0xa4, 0x81, 0, 0, // mode 0100644
		0xe8, 0x03, 0, 0, 0xe9, 0x03, 0, 0, // uid gid
		1, 0, 0, 0, 0, 0, 0, 0, // nlink
		2, 0, 0, 0, 0, 0, 0, 0, // rdev
		3, 0, 0, 0, 0, 0, 0, 0, // size
		4, 0, 0, 0, 0, 0, 0, 0, // blksize
		5, 0, 0, 0, 0, 0, 0, 0, // blocks
		6, 0, 0, 0, 0, 0, 0, 0, 7, 0, 0, 0, 0, 0, 0, 0, // atime
		8, 0, 0, 0, 0, 0, 0, 0, 9, 0, 0, 0, 0, 0, 0, 0, // mtime
		10, 0, 0, 0, 0, 0, 0, 0, 11, 0, 0, 0, 0, 0, 0, 0, // ctime
		12, 0, 0, 0, 0, 0, 0, 0, 13, 0, 0, 0, 0, 0, 0, 0, // btime
		14, 0, 0, 0, 0, 0, 0, 0, 15, 0, 0, 0, 0, 0, 0, 0} // gen data_version
)

// TestDecodeGolden checks every body decoder against a hand-assembled reply.
func TestDecodeGolden(t *testing.T) {
	parse := func(b []byte, req Type, tag uint16) Reply {
		t.Helper()
		r, err := ParseReply(b, 8192, req, tag)
		if err != OK {
			t.Fatalf("ParseReply % x: %v", b, err)
		}
		return r
	}
	if msize, err := parse(rversion, Tversion, NoTag).Rversion(16384); err != OK || msize != 8192 {
		t.Errorf("Rversion: %d, %v", msize, err)
	}
	if q, err := parse(rattach, Tattach, 1).Rattach(); err != OK || q != (Qid{QTDIR, 1, 2}) {
		t.Errorf("Rattach: %+v, %v", q, err)
	}
	var qids [MaxWalk]Qid
	if n, err := parse(rwalk, Twalk, 2).Rwalk(2, &qids); err != OK || n != 2 ||
		qids[0] != (Qid{QTDIR, 0, 5}) || qids[1] != (Qid{QTSYMLINK, 1, 6}) {
		t.Errorf("Rwalk: %d %+v, %v", n, qids[:2], err)
	}
	if q, iounit, err := parse(rlopen, Tlopen, 3).Rlopen(); err != OK || q != (Qid{0, 7, 8}) || iounit != 8192 {
		t.Errorf("Rlopen: %+v %d, %v", q, iounit, err)
	}
	if q, iounit, err := parse(rlcreate, Tlcreate, 4).Rlcreate(); err != OK || q != (Qid{0, 7, 9}) || iounit != 0 {
		t.Errorf("Rlcreate: %+v %d, %v", q, iounit, err)
	}
	if data, err := parse(rread, Tread, 5).Rread(3); err != OK || string(data) != "abc" {
		t.Errorf("Rread: %q, %v", data, err)
	}
	if n, err := parse(rwrite, Twrite, 6).Rwrite(2); err != OK || n != 2 {
		t.Errorf("Rwrite: %d, %v", n, err)
	}
	if err := parse(rclunk, Tclunk, 7).Empty(); err != OK {
		t.Errorf("Rclunk: %v", err)
	}
	if r := parse(rlerrorMsg, Tremove, 8); r.Type != Rlerror {
		t.Errorf("Rlerror type %d", r.Type)
	} else if ecode, err := r.Rlerror(); err != OK || ecode != abi.ENOENT {
		t.Errorf("Rlerror: %d, %v", ecode, err)
	}
	if s, err := parse(rreadlink, Treadlink, 15).Rreadlink(); err != OK || string(s) != "t" {
		t.Errorf("Rreadlink: %q, %v", s, err)
	}
	if q, err := parse(rmkdir, Tmkdir, 13).Rmkdir(); err != OK || q != (Qid{QTDIR, 0, 10}) {
		t.Errorf("Rmkdir: %+v, %v", q, err)
	}
	if err := parse(rflush, Tflush, 20).Empty(); err != OK {
		t.Errorf("Rflush: %v", err)
	}
	data, err := parse(rreaddir, Treaddir, 12).Rreaddir(100)
	if err != OK || len(data) != 51 {
		t.Fatalf("Rreaddir: %d bytes, %v", len(data), err)
	}
	e1, rest, err1 := NextDirent(data)
	e2, rest, err2 := NextDirent(rest)
	if err1 != OK || err2 != OK || len(rest) != 0 ||
		e1.Qid != (Qid{QTDIR, 0, 1}) || e1.Offset != 1 || e1.Type != fs.DT_DIR || string(e1.Name) != "." ||
		e2.Qid != (Qid{0, 0, 2}) || e2.Offset != 2 || e2.Type != fs.DT_REG || string(e2.Name) != "ab" {
		t.Errorf("dirents %+v %+v (%v %v), %d left", e1, e2, err1, err2, len(rest))
	}
	if s, err := parse(rstatfs, Tstatfs, 18).Rstatfs(); err != OK || s != (Statfs{0x01021997, 4096, 1, 2, 3, 4, 5, 6, 255}) {
		t.Errorf("Rstatfs: %+v, %v", s, err)
	}
	a, err := parse(rgetattr, Tgetattr, 10).Rgetattr()
	want := Attr{Valid: GetattrBasic, Qid: Qid{0, 0, 42}, Mode: 0o100644, Uid: 1000, Gid: 1001, Nlink: 1, Rdev: 2,
		Size: 3, Blksize: 4, Blocks: 5, Atime: Time{6, 7}, Mtime: Time{8, 9}, Ctime: Time{10, 11}, Btime: Time{12, 13},
		Gen: 14, DataVersion: 15}
	if err != OK || a != want {
		t.Errorf("Rgetattr: %+v, %v\nwant %+v", a, err, want)
	}
}

func TestTypeName(t *testing.T) {
	for typ, want := range map[Type]string{Twalk: "Twalk", Tread: "Tread", Tgetattr: "Tgetattr", Rread: "", 7: ""} {
		if got := typ.Name(); got != want {
			t.Errorf("Type(%d).Name() = %q, want %q", typ, got, want)
		}
	}
}
