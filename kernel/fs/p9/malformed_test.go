package p9

import (
	"encoding/binary"
	"github.com/unitrace/unitrace/kernel/fs"
	"testing"
)

// msg assembles a reply: the header, with its size field set to the message's length, then
// body.
func msg(t Type, tag uint16, body ...byte) []byte {
	b := binary.LittleEndian.AppendUint32(nil, uint32(HeaderSize+len(body)))
	b = append(b, byte(t))
	b = binary.LittleEndian.AppendUint16(b, tag)
	return append(b, body...)
}

// withSize returns b with its size field replaced.
func withSize(b []byte, size uint32) []byte {
	b = append([]byte(nil), b...)
	binary.LittleEndian.PutUint32(b, size)
	return b
}

// TestParseReplyRejects checks that each kind of bad header has its own error.
func TestParseReplyRejects(t *testing.T) {
	for _, tt := range []struct {
		name  string
		b     []byte
		msize uint32
		req   Type
		tag   uint16
		want  Err
	}{
		{"ok", rread, 8192, Tread, 5, OK},
		{"Rlerror to anything", rlerrorMsg, 8192, Tmkdir, 8, OK},
		{"empty", nil, 8192, Tread, 5, ErrShort},
		{"six bytes", rread[:6], 8192, Tread, 5, ErrShort},
		{"truncated", rread[:len(rread)-1], 8192, Tread, 5, ErrSize},
		{"size larger than received", withSize(rread, 15), 8192, Tread, 5, ErrSize},
		{"size smaller than received", withSize(rread, 13), 8192, Tread, 5, ErrSize},
		{"size below the header", withSize(rread[:7], 3), 8192, Tread, 5, ErrSize},
		{"size above msize", rread, 13, Tread, 5, ErrBig},
		{"size above MaxMsize before Tversion", withSize(make([]byte, MaxMsize+1), MaxMsize+1), 0, Tversion, NoTag, ErrBig},
		{"wrong tag", rread, 8192, Tread, 6, ErrTag},
		{"Tversion's reply must carry NOTAG", msg(Rversion, 0, rversion[7:]...), 8192, Tversion, 0xffff, ErrTag},
		{"wrong type", rread, 8192, Twrite, 5, ErrType},
		{"a T-message as reply", msg(Tread, 5), 8192, Tread, 5, ErrType},
		{"9P2000 Rerror", msg(Rerror, 5, 1, 0, 'x'), 8192, Tread, 5, ErrType},
		{"request this package does not send", rread, 8192, Rread, 5, ErrRequest},
		{"unknown request", rread, 8192, 200, 5, ErrRequest},
	} {
		_, err := ParseReply(tt.b, tt.msize, tt.req, tt.tag)
		if err != tt.want {
			t.Errorf("%s: %v, want %v", tt.name, err, tt.want)
		}
	}
}

// TestBodyRejects checks that each kind of bad body has its own error.
func TestBodyRejects(t *testing.T) {
	qid := []byte{0, 1, 0, 0, 0, 2, 0, 0, 0, 0, 0, 0, 0}
	cat := func(parts ...[]byte) []byte {
		var b []byte
		for _, p := range parts {
			b = append(b, p...)
		}
		return b
	}
	u16 := func(v uint16) []byte { return binary.LittleEndian.AppendUint16(nil, v) }
	u32 := func(v uint32) []byte { return binary.LittleEndian.AppendUint32(nil, v) }
	dirent := func(name string) []byte {
		return cat(qid, make([]byte, 8), []byte{fs.DT_REG}, u16(uint16(len(name))), []byte(name))
	}
	var qids [MaxWalk]Qid
	for _, tt := range []struct {
		name   string
		b      []byte
		decode func(r Reply) Err
		want   Err
	}{
		{"Rattach short qid", msg(Rattach, 1, qid[:12]...), func(r Reply) Err { _, e := r.Rattach(); return e }, ErrTruncated},
		{"Rattach trailing byte", msg(Rattach, 1, cat(qid, []byte{0})...), func(r Reply) Err { _, e := r.Rattach(); return e }, ErrTrailing},
		{"Rlopen without iounit", msg(Rlopen, 1, qid...), func(r Reply) Err { _, _, e := r.Rlopen(); return e }, ErrTruncated},
		{"Rlopen decoded as Rlcreate", msg(Rlopen, 1, cat(qid, u32(0))...), func(r Reply) Err { _, _, e := r.Rlcreate(); return e }, ErrMsgType},
		{"Rlerror decoded as Rread", msg(Rlerror, 1, u32(2)...), func(r Reply) Err { _, e := r.Rread(10); return e }, ErrMsgType},
		{"Rlerror short", msg(Rlerror, 1, 2, 0), func(r Reply) Err { _, e := r.Rlerror(); return e }, ErrTruncated},
		{"Rlerror trailing", msg(Rlerror, 1, cat(u32(2), u32(0))...), func(r Reply) Err { _, e := r.Rlerror(); return e }, ErrTrailing},
		{"Rclunk with a body", msg(Rclunk, 1, 0), func(r Reply) Err { return r.Empty() }, ErrTrailing},
		{"Empty of Rread", msg(Rread, 1, u32(0)...), func(r Reply) Err { return r.Empty() }, ErrMsgType},
		{"Rreadlink string past the end", msg(Rreadlink, 1, cat(u16(5), []byte("ab"))...), func(r Reply) Err { _, e := r.Rreadlink(); return e }, ErrString},
		{"Rreadlink no length", msg(Rreadlink, 1, 5), func(r Reply) Err { _, e := r.Rreadlink(); return e }, ErrTruncated},
		{"Rversion string past the end", msg(Rversion, NoTag, cat(u32(8192), u16(9), []byte(Version))...), func(r Reply) Err { _, e := r.Rversion(8192); return e }, ErrString},
		{"Rversion other protocol", msg(Rversion, NoTag, cat(u32(8192), u16(8), []byte("9P2000.u"))...), func(r Reply) Err { _, e := r.Rversion(8192); return e }, ErrVersion},
		{"Rversion unknown", msg(Rversion, NoTag, cat(u32(8192), u16(7), []byte("unknown"))...), func(r Reply) Err { _, e := r.Rversion(8192); return e }, ErrVersion},
		{"Rversion msize below 4096", msg(Rversion, NoTag, cat(u32(4095), u16(8), []byte(Version))...), func(r Reply) Err { _, e := r.Rversion(8192); return e }, ErrMsize},
		{"Rversion msize above proposed", msg(Rversion, NoTag, cat(u32(8193), u16(8), []byte(Version))...), func(r Reply) Err { _, e := r.Rversion(8192); return e }, ErrMsize},
		{"Rread count past the end", msg(Rread, 1, cat(u32(4), []byte("abc"))...), func(r Reply) Err { _, e := r.Rread(10); return e }, ErrCount},
		{"Rread count past msize", msg(Rread, 1, cat(u32(0xffffffff), []byte("abc"))...), func(r Reply) Err { _, e := r.Rread(10); return e }, ErrCount},
		{"Rread more than asked", msg(Rread, 1, cat(u32(3), []byte("abc"))...), func(r Reply) Err { _, e := r.Rread(2); return e }, ErrOvercount},
		{"Rread trailing", msg(Rread, 1, cat(u32(2), []byte("abc"))...), func(r Reply) Err { _, e := r.Rread(10); return e }, ErrTrailing},
		{"Rwrite more than sent", msg(Rwrite, 1, u32(3)...), func(r Reply) Err { _, e := r.Rwrite(2); return e }, ErrOvercount},
		{"Rwalk more qids than names", msg(Rwalk, 1, cat(u16(2), qid, qid)...), func(r Reply) Err { _, e := r.Rwalk(1, &qids); return e }, ErrWalk},
		{"Rwalk more than MaxWalk", msg(Rwalk, 1, u16(17)...), func(r Reply) Err { _, e := r.Rwalk(17, &qids); return e }, ErrWalk},
		{"Rwalk qids past the end", msg(Rwalk, 1, cat(u16(2), qid)...), func(r Reply) Err { _, e := r.Rwalk(2, &qids); return e }, ErrTruncated},
		{"Rwalk no count", msg(Rwalk, 1, 1), func(r Reply) Err { _, e := r.Rwalk(2, &qids); return e }, ErrTruncated},
		{"Rgetattr short", msg(Rgetattr, 1, rgetattr[7:len(rgetattr)-1]...), func(r Reply) Err { _, e := r.Rgetattr(); return e }, ErrTruncated},
		{"Rstatfs trailing", msg(Rstatfs, 1, cat(rstatfs[7:], []byte{0})...), func(r Reply) Err { _, e := r.Rstatfs(); return e }, ErrTrailing},
		{"Rreaddir entry header past the data", msg(Rreaddir, 1, cat(u32(20), dirent("a")[:20])...), func(r Reply) Err { _, e := r.Rreaddir(100); return e }, ErrDirent},
		{"Rreaddir name past the data", msg(Rreaddir, 1, cat(u32(25), dirent("ab")[:25])...), func(r Reply) Err { _, e := r.Rreaddir(100); return e }, ErrDirent},
		{"Rreaddir second entry overruns", msg(Rreaddir, 1, cat(u32(30), dirent("a"), dirent("b")[:5])...), func(r Reply) Err { _, e := r.Rreaddir(100); return e }, ErrDirent},
		{"Rreaddir count past the end", msg(Rreaddir, 1, cat(u32(30), dirent("a"))...), func(r Reply) Err { _, e := r.Rreaddir(100); return e }, ErrCount},
		{"Rreaddir more than asked", msg(Rreaddir, 1, cat(u32(25), dirent("ab"))...), func(r Reply) Err { _, e := r.Rreaddir(24); return e }, ErrOvercount},
		{"Rreaddir empty name", msg(Rreaddir, 1, cat(u32(24), dirent(""))...), func(r Reply) Err { _, e := r.Rreaddir(100); return e }, ErrDirName},
		{"Rreaddir name with a slash", msg(Rreaddir, 1, cat(u32(27), dirent("a/b"))...), func(r Reply) Err { _, e := r.Rreaddir(100); return e }, ErrDirName},
		{"Rreaddir name with a NUL", msg(Rreaddir, 1, cat(u32(26), dirent("a\x00"))...), func(r Reply) Err { _, e := r.Rreaddir(100); return e }, ErrDirName},
	} {
		req := Type(tt.b[4]) - 1 // the request this reply answers
		if Type(tt.b[4]) == Rlerror {
			req = Tread
		}
		r, err := ParseReply(tt.b, 1<<16, req, binary.LittleEndian.Uint16(tt.b[5:]))
		if err != OK {
			t.Errorf("%s: ParseReply: %v", tt.name, err)
			continue
		}
		if got := tt.decode(r); got != tt.want {
			t.Errorf("%s: %v, want %v", tt.name, got, tt.want)
		}
	}
}

// TestErrStrings checks that every Err has its own description.
func TestErrStrings(t *testing.T) {
	seen := map[string]Err{}
	for e := OK; e < numErrs; e++ {
		s := e.String()
		if s == "" || s == "unknown 9P error" {
			t.Errorf("Err %d has no description", e)
		}
		if prev, ok := seen[s]; ok {
			t.Errorf("Errs %d and %d share %q", prev, e, s)
		}
		seen[s] = e
	}
	if numErrs.String() != "unknown 9P error" {
		t.Errorf("out of range: %q", numErrs.String())
	}
}
