package fd

import (
	"math/rand/v2"
	"slices"
	"testing"
)

var (
	eventMasks = []uint32{
		EPOLLIN, EPOLLOUT, EPOLLIN | EPOLLOUT, EPOLLIN | EPOLLET, EPOLLOUT | EPOLLET,
		EPOLLIN | EPOLLONESHOT, EPOLLIN | EPOLLOUT | EPOLLET | EPOLLONESHOT, EPOLLIN | EPOLLEXCLUSIVE,
		EPOLLPRI, EPOLLIN | EPOLLRDNORM, 0, EPOLLIN | EPOLLOUT | EPOLLEXCLUSIVE | EPOLLET, EPOLLRDHUP | EPOLLIN,
	}
	writeValues = []uint64{0, 1, 2, 7, 1 << 63, 1<<64 - 2, 1<<64 - 1}
	flagValues  = []int{0, EFD_SEMAPHORE, EFD_NONBLOCK, EFD_CLOEXEC | EFD_NONBLOCK, EFD_SEMAPHORE | EFD_NONBLOCK, 2}
)

// input draws the operands of one step; the random test and the fuzz target
// supply different sources.
type input interface{ next(n int) int }

type randInput struct{ r *rand.Rand }

func (in randInput) next(n int) int { return in.r.IntN(n) }

type byteInput struct{ b []byte }

func (in *byteInput) next(n int) int {
	if len(in.b) == 0 {
		return 0
	}
	v := int(in.b[0]) % n
	in.b = in.b[1:]
	return v
}

const fdRange = 12 // small, so operations keep meeting one another

// step runs one random operation on both implementations and fails on the
// first difference.
func step(t testing.TB, tb *Table, m *model, in input) {
	t.Helper()
	fd := in.next(fdRange+2) - 1
	fd2 := in.next(fdRange+1) - 1
	switch op := in.next(10); op {
	case 0:
		init := uint32(in.next(3))
		flags := flagValues[in.next(len(flagValues))]
		gfd, gerr := tb.Eventfd(init, flags)
		wfd, werr := m.eventfd(init, flags)
		if gfd != wfd || gerr != werr {
			t.Fatalf("Eventfd(%d, %#x) = %d,%d; model %d,%d", init, flags, gfd, gerr, wfd, werr)
		}
	case 1:
		flags := []int{0, EPOLL_CLOEXEC, 1}[in.next(3)]
		gfd, gerr := tb.EpollCreate(flags)
		wfd, werr := m.epollCreate(flags)
		if gfd != wfd || gerr != werr {
			t.Fatalf("EpollCreate(%#x) = %d,%d; model %d,%d", flags, gfd, gerr, wfd, werr)
		}
	case 2, 3:
		op := in.next(5)
		ev := Event{eventMasks[in.next(len(eventMasks))], uint64(in.next(100))}
		if g, w := tb.EpollCtl(fd, op, fd2, ev), m.ctl(fd, op, fd2, ev); g != w {
			t.Fatalf("EpollCtl(%d, %d, %d, %+v) = %d; model %d", fd, op, fd2, ev, g, w)
		}
	case 4:
		gv, gerr := tb.EventfdRead(fd)
		wv, werr := m.read(fd)
		if gv != wv || gerr != werr {
			t.Fatalf("EventfdRead(%d) = %d,%d; model %d,%d", fd, gv, gerr, wv, werr)
		}
	case 5:
		v := writeValues[in.next(len(writeValues))]
		if g, w := tb.EventfdWrite(fd, v), m.write(fd, v); g != w {
			t.Fatalf("EventfdWrite(%d, %#x) = %d; model %d", fd, v, g, w)
		}
	case 6, 7:
		max := in.next(5)
		out := make([]Event, max)
		gn, gerr := tb.EpollReady(fd, out)
		want, werr := m.epollReady(fd, max)
		if gerr != werr || !slices.Equal(out[:gn], want) {
			t.Fatalf("EpollReady(%d, %d) = %+v,%d; model %+v,%d", fd, max, out[:gn], gerr, want, werr)
		}
	case 8:
		if in.next(4) == 0 {
			_, g := tb.Close(fd)
			if w := m.close(fd); g != w {
				t.Fatalf("Close(%d) = %d; model %d", fd, g, w)
			}
			break
		}
		out := make([]int32, MaxFDs)
		got := out[:tb.Watchers(fd, out)]
		slices.Sort(got)
		if want := m.watchers(fd); !slices.Equal(got, want) {
			t.Fatalf("Watchers(%d) = %v; model %v", fd, got, want)
		}
	case 9:
		cmd := in.next(6)
		arg := []uintptr{0, 1, O_NONBLOCK, O_NONBLOCK | 1, 1<<32 | O_NONBLOCK}[in.next(5)]
		gr, gerr := tb.Fcntl(fd, cmd, arg)
		wr, werr := m.fcntl(fd, cmd, arg)
		if gr != wr || gerr != werr {
			t.Fatalf("Fcntl(%d, %d, %#x) = %d,%d; model %d,%d", fd, cmd, arg, gr, gerr, wr, werr)
		}
	}
	if k := tb.Kind(fd); (m.open(fd) == nil) != (k == KindNone) || m.open(fd) != nil && m.open(fd).kind != k {
		t.Fatalf("Kind(%d) = %v disagrees with the model", fd, k)
	}
	if f := m.open(fd); f != nil && tb.Nonblocking(fd) != f.nonblock {
		t.Fatalf("Nonblocking(%d) disagrees with the model", fd)
	}
}

func TestRandomAgainstModel(t *testing.T) {
	for seed := uint64(0); seed < 40; seed++ {
		r := rand.New(rand.NewPCG(seed, 99))
		var tb Table
		tb.Init()
		m := newModel()
		for i := 0; i < 3000; i++ {
			step(t, &tb, m, randInput{r})
			checkInvariants(t, &tb)
		}
	}
}

func FuzzTable(f *testing.F) {
	f.Add([]byte{1, 5, 1, 0, 1, 1, 0, 4, 0, 0, 2, 4, 5, 1, 0, 0, 5, 5, 1, 6, 4, 4, 1, 7, 4})
	f.Add([]byte{2, 1, 1, 2, 1, 1, 2, 1, 1, 3, 5, 2, 1, 4, 5, 3, 4, 4, 1, 6, 3, 4, 1, 8, 5, 6, 2})
	f.Fuzz(func(t *testing.T, ops []byte) {
		var tb Table
		tb.Init()
		m := newModel()
		in := &byteInput{ops}
		for len(in.b) > 0 {
			step(t, &tb, m, in)
		}
		checkInvariants(t, &tb)
	})
}
