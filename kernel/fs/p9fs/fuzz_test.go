package p9fs

import (
	"encoding/binary"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/unitrace/unitrace/kernel/fs"
)

// FuzzReplies mounts a share against the real test server, then answers every request of a
// series of calls with bytes from the fuzzer: a reply whose header is right (size, the reply's
// type, the tag) but whose body is arbitrary, or arbitrary bytes altogether. Whatever comes back,
// the calls end with an errno or a result, nothing panics, and the file system's accounting
// stays whole (every call's tags come free).
func FuzzReplies(f *testing.F) {
	f.Add([]byte{1, 0, 0, 0, 0}, uint8(0))
	f.Add([]byte{0xff, 13, 0x80, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12}, uint8(1))
	f.Fuzz(func(t *testing.T, data []byte, mode uint8) {
		r := newRig(t, testMsize)
		os.WriteFile(filepath.Join(r.dir, "a"), []byte("content"), 0o644)
		in := data
		next := func(n int) []byte {
			k := min(n, len(in))
			b := in[:k]
			in = in[k:]
			return b
		}
		pump := func() {
			for rounds := 0; rounds < 1000; rounds++ {
				tag, n, ok := r.f.NextSend(time.Now().UnixNano())
				if !ok {
					return
				}
				req := r.f.req(tag)[:n]
				resp := r.f.resp(tag)
				clear(resp[:64])
				body := next(int(1 + (mode^byte(rounds))%32))
				var reply []byte
				if mode&1 == 0 || len(body) == 0 || body[0]&1 == 0 {
					size := 7 + len(body)
					hdr := make([]byte, 7, size)
					binary.LittleEndian.PutUint32(hdr, uint32(size))
					hdr[4] = req[4] + 1
					if len(body) > 0 && body[0] == 0xee {
						hdr[4] = 7 // Rlerror
					}
					binary.LittleEndian.PutUint16(hdr[5:], binary.LittleEndian.Uint16(req[5:]))
					reply = append(hdr, body...)
				} else {
					reply = body
				}
				copy(resp, reply)
				r.f.Complete(tag, uint32(len(reply)), time.Now().UnixNano())
			}
			t.Fatal("requests do not stop")
		}
		do := func(call func() int) {
			for runs := 0; runs < 4*MaxLog; runs++ {
				r.f.Begin(0)
				if call() != fs.EQUEUED {
					r.f.End(0)
					return
				}
				pump()
				for _, ok := r.f.NextWake(); ok; _, ok = r.f.NextWake() {
				}
			}
			t.Fatal("a call does not end")
		}
		var ino uint32
		buf := make([]byte, 256)
		do(func() int { var e int; ino, e = r.f.Lookup(0, RootIno, []byte("a")); return e })
		if r.f.Mode(ino) != 0 {
			r.f.Acquire(ino)
			do(func() int { _, e := r.f.Stat(0, ino); return e })
			do(func() int { _, e := r.f.Read(0, ino, 0, buf); return e })
			do(func() int { _, e := r.f.Write(0, ino, 3, []byte("xyz"), false); return e })
			r.f.Release(ino)
		}
		do(func() int { _, _, e := r.f.ReadDir(0, RootIno, 0, buf); return e })
		do(func() int { _, e := r.f.Create(0, RootIno, []byte("b"), 0o644); return e })
		do(func() int { return r.f.Rename(0, RootIno, []byte("b"), RootIno, []byte("c")) })
		do(func() int { return r.f.Unlink(0, RootIno, []byte("c"), false) })
		do(func() int { _, e := r.f.Statfs(0); return e })
		pump()
		for tag := uint16(0); tag < 16; tag++ {
			if r.f.c.InFlight(tag) {
				t.Fatalf("tag %d still in flight after every call ended", tag)
			}
		}
	})
}
