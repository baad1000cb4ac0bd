package fd

import (
	"bytes"
	"math/rand/v2"
	"testing"

	"github.com/unitrace/unitrace/kernel/abi"
)

// pipeModel is what a program sees of the pipes of a table: per pipe the bytes in it and the
// descriptors of each end, kept as plainly as possible.
type pipeModel struct {
	data map[int][]byte // by pipe, numbered in creation order
	ends map[int]pipeEnd
	made int
}

type pipeEnd struct {
	id    int // the pipe
	write bool
}

func (m *pipeModel) count(id int, write bool) int {
	n := 0
	for _, e := range m.ends {
		if e.id == id && e.write == write {
			n++
		}
	}
	return n
}

func TestPipeBasics(t *testing.T) {
	var tb Table
	tb.Init()
	r, w, errno := tb.Pipe2(O_CLOEXEC)
	if r != 3 || w != 4 || errno != 0 {
		t.Fatalf("Pipe2 = %d, %d, %d; want 3, 4, 0", r, w, errno)
	}
	if got, _ := tb.Fcntl(r, F_GETFD, 0); got != FD_CLOEXEC {
		t.Errorf("F_GETFD = %d, want FD_CLOEXEC", got)
	}
	if got, _ := tb.Fcntl(w, F_GETFL, 0); got != O_WRONLY {
		t.Errorf("write end F_GETFL = %#x, want O_WRONLY", got)
	}
	if got, _ := tb.Fcntl(r, F_GETPIPE_SZ, 0); got != PipeSize {
		t.Errorf("F_GETPIPE_SZ = %d", got)
	}
	if _, errno := tb.Fcntl(0, F_GETPIPE_SZ, 0); errno != abi.EBADF {
		t.Errorf("F_GETPIPE_SZ on the console: errno %d, want EBADF", errno)
	}
	buf := make([]byte, 16)
	if _, errno := tb.PipeRead(r, buf); errno != abi.EAGAIN {
		t.Errorf("empty read: errno %d, want EAGAIN", errno)
	}
	if _, errno := tb.PipeRead(w, buf); errno != abi.EBADF {
		t.Errorf("read of the write end: errno %d, want EBADF", errno)
	}
	if n, errno := tb.PipeWrite(w, []byte("hello")); n != 5 || errno != 0 {
		t.Fatalf("write = %d, %d", n, errno)
	}
	if _, _, errno := tb.Pipe2(O_DIRECT); errno != abi.EINVAL {
		t.Errorf("Pipe2(O_DIRECT): errno %d, want EINVAL", errno)
	}
	tb.Close(w)
	if n, _ := tb.PipeRead(r, buf); string(buf[:n]) != "hello" {
		t.Errorf("read %q", buf[:n])
	}
	if n, errno := tb.PipeRead(r, buf); n != 0 || errno != 0 {
		t.Errorf("read after the writer closed = %d, %d; want end of file", n, errno)
	}
	r2, w2, _ := tb.Pipe2(0)
	tb.Close(r2)
	if _, errno := tb.PipeWrite(w2, []byte("x")); errno != abi.EPIPE {
		t.Errorf("write without readers: errno %d, want EPIPE", errno)
	}
}

// O_DIRECT is Linux's packet-mode flag, which Pipe2 refuses.
const O_DIRECT = 0o40000

func TestPipeAtomicAndFull(t *testing.T) {
	var tb Table
	tb.Init()
	r, w, _ := tb.Pipe2(O_NONBLOCK)
	big := make([]byte, PipeSize-100)
	if n, _ := tb.PipeWrite(w, big); n != len(big) {
		t.Fatalf("wrote %d", n)
	}
	if _, errno := tb.PipeWrite(w, make([]byte, 200)); errno != abi.EAGAIN {
		t.Errorf("atomic write that does not fit: errno %d, want EAGAIN", errno)
	}
	if n, _ := tb.PipeWrite(w, make([]byte, PipeBuf+1)); n != 100 {
		t.Errorf("long write took %d, want the 100 bytes of room", n)
	}
	if _, errno := tb.PipeWrite(w, make([]byte, PipeBuf+1)); errno != abi.EAGAIN {
		t.Errorf("write to a full pipe: errno %d, want EAGAIN", errno)
	}
	if ev := tb.pipePoll(&tb.files[w]); ev&EPOLLOUT != 0 {
		t.Errorf("full pipe polls %#x", ev)
	}
	tb.PipeRead(r, make([]byte, PipeBuf))
	if ev := tb.pipePoll(&tb.files[w]); ev&EPOLLOUT == 0 {
		t.Errorf("pipe with room polls %#x", ev)
	}
}

func TestPipeEpoll(t *testing.T) {
	var tb Table
	tb.Init()
	ep, _ := tb.EpollCreate(0)
	r, w, _ := tb.Pipe2(O_NONBLOCK)
	tb.EpollCtl(ep, EPOLL_CTL_ADD, r, Event{Events: EPOLLIN | EPOLLRDHUP | EPOLLET, Data: 1})
	tb.EpollCtl(ep, EPOLL_CTL_ADD, w, Event{Events: EPOLLOUT | EPOLLRDHUP | EPOLLET, Data: 2})
	out := make([]Event, 4)
	if n, _ := tb.EpollReady(ep, out); n != 1 || out[0].Data != 2 {
		t.Fatalf("new pipe: %v", out[:n])
	}
	if n, _ := tb.EpollReady(ep, out); n != 0 {
		t.Fatalf("edge-triggered, nothing new: %v", out[:n])
	}
	tb.PipeWrite(w, []byte("x"))
	if n, _ := tb.EpollReady(ep, out); n != 1 || out[0].Data != 1 || out[0].Events != EPOLLIN {
		t.Fatalf("after a write: %v", out[:n])
	}
	tb.Close(w)
	if n, _ := tb.EpollReady(ep, out); n != 1 || out[0].Events != EPOLLIN|EPOLLHUP {
		t.Fatalf("after the writer closed: %v", out[:n])
	}
	r2, w2, _ := tb.Pipe2(0)
	tb.EpollCtl(ep, EPOLL_CTL_ADD, w2, Event{Events: EPOLLOUT | EPOLLET, Data: 3})
	tb.EpollReady(ep, out)
	tb.Close(r2)
	if n, _ := tb.EpollReady(ep, out); n != 1 || out[0].Events != EPOLLOUT|EPOLLERR {
		t.Fatalf("after the reader closed: %v", out[:n])
	}
}

// pipeStep runs one random pipe operation on the table and the model and fails on the first
// difference.
func pipeStep(t testing.TB, tb *Table, m *pipeModel, in input) {
	t.Helper()
	fd := in.next(fdRange+1) - 1
	switch in.next(6) {
	case 0:
		flags := []int{0, O_NONBLOCK, O_CLOEXEC, 1}[in.next(4)]
		r, w, errno := tb.Pipe2(flags)
		if flags == 1 {
			if errno != abi.EINVAL {
				t.Fatalf("Pipe2(1): errno %d", errno)
			}
			return
		}
		if errno != 0 {
			if len(m.data) < MaxPipes && errno != abi.EMFILE {
				t.Fatalf("Pipe2 with %d pipes: errno %d", len(m.data), errno)
			}
			return
		}
		if _, ok := m.ends[r]; ok {
			t.Fatalf("Pipe2 reused open fd %d", r)
		}
		m.made++
		m.data[m.made] = nil
		m.ends[r] = pipeEnd{m.made, false}
		m.ends[w] = pipeEnd{m.made, true}
	case 1, 2:
		size := []int{0, 1, 100, PipeBuf, PipeBuf + 1, PipeSize}[in.next(6)]
		src := bytes.Repeat([]byte{byte(in.next(256))}, size)
		n, errno := tb.PipeWrite(fd, src)
		e, ok := m.ends[fd]
		var wn, werr int
		switch {
		case !ok && tb.Kind(fd) == KindNone:
			werr = abi.EBADF
		case !ok:
			werr = abi.EINVAL
		case !e.write:
			werr = abi.EBADF
		case size == 0:
		case m.count(e.id, false) == 0:
			werr = abi.EPIPE
		default:
			room := PipeSize - len(m.data[e.id])
			if room == 0 || (size <= PipeBuf && room < size) {
				werr = abi.EAGAIN
			} else {
				wn = min(size, room)
				m.data[e.id] = append(m.data[e.id], src[:wn]...)
			}
		}
		if n != wn || errno != werr {
			t.Fatalf("PipeWrite(%d, %d bytes) = %d, %d; model %d, %d", fd, size, n, errno, wn, werr)
		}
	case 3:
		dst := make([]byte, []int{0, 1, 7, PipeBuf, PipeSize}[in.next(5)])
		n, errno := tb.PipeRead(fd, dst)
		e, ok := m.ends[fd]
		var wn, werr int
		var want []byte
		switch {
		case !ok && tb.Kind(fd) == KindNone:
			werr = abi.EBADF
		case !ok:
			werr = abi.EINVAL
		case e.write:
			werr = abi.EBADF
		case len(dst) == 0:
		case len(m.data[e.id]) == 0 && m.count(e.id, true) > 0:
			werr = abi.EAGAIN
		default:
			wn = min(len(dst), len(m.data[e.id]))
			want = m.data[e.id][:wn]
			m.data[e.id] = m.data[e.id][wn:]
		}
		if n != wn || errno != werr || !bytes.Equal(dst[:n], want) {
			t.Fatalf("PipeRead(%d) = %d, %d; model %d, %d", fd, n, errno, wn, werr)
		}
	case 4:
		nfd, errno := tb.Dup(fd, 0, false)
		if e, ok := m.ends[fd]; ok {
			// Dups can fill the table long before MaxPipes pipes exist.
			open := 0
			for d := 0; d < MaxFDs; d++ {
				if tb.Kind(d) != KindNone {
					open++
				}
			}
			switch {
			case errno == abi.EMFILE && open == MaxFDs:
			case errno != 0:
				t.Fatalf("Dup(%d) with %d descriptors open: errno %d", fd, open, errno)
			default:
				m.ends[nfd] = e
			}
		}
	case 5:
		tb.Close(fd)
		if e, ok := m.ends[fd]; ok {
			delete(m.ends, fd)
			if m.count(e.id, false)+m.count(e.id, true) == 0 {
				delete(m.data, e.id)
			}
		}
	}
	for fd, e := range m.ends {
		if got, _ := tb.PipeBuffered(fd); got != len(m.data[e.id]) {
			t.Fatalf("fd %d holds %d bytes, model %d", fd, got, len(m.data[e.id]))
		}
		ev := tb.pipePoll(&tb.files[fd])
		readable := !e.write && len(m.data[e.id]) > 0
		if ev&EPOLLIN != 0 != readable || e.write && ev&(EPOLLIN|EPOLLHUP) != 0 {
			t.Fatalf("fd %d (write %v) polls %#x", fd, e.write, ev)
		}
	}
}

func newPipeModel() *pipeModel {
	return &pipeModel{data: map[int][]byte{}, ends: map[int]pipeEnd{}}
}

func TestPipeRandom(t *testing.T) {
	for seed := uint64(0); seed < 20; seed++ {
		var tb Table
		tb.Init()
		m := newPipeModel()
		in := randInput{rand.New(rand.NewPCG(seed, 7))}
		for i := 0; i < 2000; i++ {
			pipeStep(t, &tb, m, in)
		}
		checkInvariants(t, &tb)
	}
}

func FuzzPipes(f *testing.F) {
	f.Add([]byte{0, 0, 1, 2, 3, 4, 5, 6})
	// A pipe, then its read end (fd 3) duplicated until the table is full.
	f.Add(append([]byte{0, 0, 0}, bytes.Repeat([]byte{4, 4}, MaxFDs)...))
	f.Fuzz(func(t *testing.T, ops []byte) {
		var tb Table
		tb.Init()
		m := newPipeModel()
		in := &byteInput{ops}
		for len(in.b) > 0 {
			pipeStep(t, &tb, m, in)
		}
	})
}

// TestPipeInPlace: splice's in-place access to a pipe's buffer moves the same bytes, in the same
// order, as reads and writes would, across the ring's wrap, with the same ends of file and errors.
func TestPipeInPlace(t *testing.T) {
	var tb Table
	tb.Init()
	r, w, _ := tb.Pipe2(0)
	if _, errno := tb.PipeData(r); errno != abi.EAGAIN {
		t.Errorf("empty PipeData: errno %d, want EAGAIN", errno)
	}
	if _, errno := tb.PipeData(w); errno != abi.EBADF {
		t.Errorf("PipeData of the write end: errno %d, want EBADF", errno)
	}
	if _, errno := tb.PipeRoom(r); errno != abi.EBADF {
		t.Errorf("PipeRoom of the read end: errno %d, want EBADF", errno)
	}
	rng := rand.New(rand.NewPCG(1, 2))
	var want, got []byte
	next := byte(0)
	for round := 0; round < 2000; round++ {
		if rng.IntN(2) == 0 { // fill some room in place
			room, errno := tb.PipeRoom(w)
			if errno == abi.EAGAIN {
				continue
			}
			if errno != 0 {
				t.Fatalf("PipeRoom: %d", errno)
			}
			k := rng.IntN(len(room) + 1)
			for i := 0; i < k; i++ {
				room[i] = next
				want = append(want, next)
				next++
			}
			tb.PipeCommit(w, k)
		} else { // take some bytes in place, after looking at all of them
			var all []byte
			for skip := 0; ; {
				run, errno := tb.PipeDataAt(r, skip)
				if errno != 0 || len(run) == 0 {
					break
				}
				all = append(all, run...)
				skip += len(run)
			}
			if n, _ := tb.PipeBuffered(r); len(all) != n || !bytes.Equal(all, want[len(got):]) {
				t.Fatalf("round %d: PipeDataAt saw %d bytes of %d, or other bytes", round, len(all), n)
			}
			data, errno := tb.PipeData(r)
			if errno == abi.EAGAIN {
				continue
			}
			if errno != 0 {
				t.Fatalf("PipeData: %d", errno)
			}
			k := rng.IntN(len(data) + 1)
			got = append(got, data[:k]...)
			tb.PipeConsume(r, k)
		}
		if n, _ := tb.PipeBuffered(r); n != len(want)-len(got) {
			t.Fatalf("round %d: %d buffered, want %d", round, n, len(want)-len(got))
		}
	}
	rest := make([]byte, PipeSize)
	n, _ := tb.PipeRead(r, rest)
	got = append(got, rest[:n]...)
	if !bytes.Equal(got, want) {
		t.Fatalf("bytes differ: %d moved, %d expected", len(got), len(want))
	}
	tb.PipeWrite(w, []byte("x"))
	tb.Close(w)
	if data, errno := tb.PipeData(r); string(data) != "x" || errno != 0 {
		t.Errorf("PipeData = %q, %d", data, errno)
	}
	tb.PipeConsume(r, 1)
	if data, errno := tb.PipeData(r); len(data) != 0 || errno != 0 {
		t.Errorf("PipeData at end of file = %q, %d", data, errno)
	}
	r2, w2, _ := tb.Pipe2(0)
	tb.Close(r2)
	if _, errno := tb.PipeRoom(w2); errno != abi.EPIPE {
		t.Errorf("PipeRoom without a reader: errno %d, want EPIPE", errno)
	}
}

// TestPipeHold: while a splice holds a pipe's room, writers wait and readers read; while it
// holds its bytes, readers wait and writers write; the release adds or drops what moved, and a
// held pipe whose descriptors closed is not made anew until its release.
func TestPipeHold(t *testing.T) {
	var tb Table
	tb.Init()
	r, w, _ := tb.Pipe2(0)
	tb.PipeWrite(w, []byte("ab"))
	room, _ := tb.PipeRoom(w)
	pn := tb.PipeHold(w, true)
	if pn < 0 {
		t.Fatal("PipeHold of the write end failed")
	}
	if _, errno := tb.PipeWrite(w, []byte("x")); errno != abi.EAGAIN {
		t.Errorf("write while the room is held: errno %d, want EAGAIN", errno)
	}
	copy(room, "cde")
	b := make([]byte, 1)
	if n, errno := tb.PipeRead(r, b); n != 1 || errno != 0 || b[0] != 'a' {
		t.Errorf("read while the room is held: %d %d %q", n, errno, b)
	}
	tb.PipeRelease(pn, true, 3)
	data, _ := tb.PipeData(r)
	if string(data) != "bcde" {
		t.Fatalf("after the release: %q, want bcde", data)
	}
	if tb.PipeHold(r, true) >= 0 || tb.PipeHold(w, false) >= 0 {
		t.Error("PipeHold of the wrong end succeeded")
	}
	pn = tb.PipeHold(r, false)
	if _, errno := tb.PipeRead(r, b); errno != abi.EAGAIN {
		t.Errorf("read while the bytes are held: errno %d, want EAGAIN", errno)
	}
	if n, errno := tb.PipeWrite(w, []byte("f")); n != 1 || errno != 0 {
		t.Errorf("write while the bytes are held: %d %d", n, errno)
	}
	tb.PipeRelease(pn, false, 2)
	data, _ = tb.PipeData(r)
	if string(data) != "def" {
		t.Fatalf("after the release: %q, want def", data)
	}
	pn = tb.PipeHold(w, true)
	tb.Close(r)
	tb.Close(w)
	r2, w2, _ := tb.Pipe2(0)
	if q, _, _ := tb.Pipe(r2); q == pn {
		t.Errorf("a held pipe was made anew")
	}
	tb.PipeRelease(pn, true, 5)
	tb.Close(r2)
	tb.Close(w2)
	for i := 0; i < MaxPipes; i++ {
		if _, _, errno := tb.Pipe2(0); errno != 0 {
			t.Fatalf("pipe %d after the release: errno %d", i, errno)
		}
	}
}
