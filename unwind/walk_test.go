package unwind

import (
	"slices"
	"testing"
	"unsafe"

	"github.com/unitrace/unitrace/trace/record"
)

// fakeStack builds frame-pointer chains in a real Go buffer: frame i is at words[off[i]], its
// saved frame pointer (word 0) links to frame i+1 and word 1 holds its return address.
type fakeStack struct {
	words []uintptr
}

func newFakeStack(n int) *fakeStack { return &fakeStack{words: make([]uintptr, n)} }

func (s *fakeStack) addr(i int) uintptr { return uintptr(unsafe.Pointer(&s.words[i])) }

func (s *fakeStack) bounds() (lo, hi uintptr) { return s.addr(0), s.addr(len(s.words)-1) + 8 }

// chain links frames at the given word offsets with the given return addresses; the last
// frame's saved frame pointer is last.
func (s *fakeStack) chain(offs []int, rets []uintptr, last uintptr) uintptr {
	for i, o := range offs {
		next := last
		if i+1 < len(offs) {
			next = s.addr(offs[i+1])
		}
		s.words[o] = next
		s.words[o+1] = rets[i]
	}
	return s.addr(offs[0])
}

const textLo, textHi = 0x100000, 0x200000

func walkOf(s *fakeStack) Walk {
	lo, hi := s.bounds()
	return Walk{StackLo: lo, StackHi: hi, TextLo: textLo, TextHi: textHi}
}

// frames walks w from fp to the end, at most max frames, in the three ways a Walk can be walked:
// frame by frame (Next), counting (Count) and storing (Store, into a slice of max words). It
// fails tb unless all three see the same frames and end the same way, and returns the frames
// and how the walk ended.
func frames(tb testing.TB, w Walk, fp uintptr, max int) ([]uint64, record.Flags) {
	tb.Helper()
	var got []uint64
	w.Start(fp, max)
	for w.Next() {
		got = append(got, w.PC())
	}
	end := w.End()
	if w.Next() || w.End() != end {
		tb.Fatalf("Next after the end: a frame, or the end changed")
	}
	w.Start(fp, max)
	if n := w.Count(); n != len(got) || w.End() != end {
		tb.Fatalf("Count: %d frames, end %v; Next: %d, end %v", n, w.End(), len(got), end)
	}
	w.Start(fp, max)
	dst := make([]uint64, max)
	if n := w.Store(dst); !slices.Equal(dst[:n], got) || w.End() != end {
		tb.Fatalf("Store: %x, end %v; Next: %x, end %v", dst[:n], w.End(), got, end)
	}
	return got, end
}

func TestWalkChain(t *testing.T) {
	s := newFakeStack(64)
	fp := s.chain([]int{4, 10, 20}, []uintptr{0x100010, 0x100020, 0x100030}, 0)
	w := walkOf(s)
	out, flags := frames(t, w, fp, 8)
	if len(out) != 3 || flags != 0 {
		t.Fatalf("n=%d flags=%v, want 3 frames and a natural end", len(out), flags)
	}
	for i, want := range []uint64{0x100010, 0x100020, 0x100030} {
		if out[i] != want {
			t.Errorf("frame %d = %#x, want %#x", i, out[i], want)
		}
	}
	var pcs [8]uint64
	if n, how := w.PCs(fp, pcs[:]); n != 3 || how != 0 || !slices.Equal(pcs[:n], out) {
		t.Errorf("PCs: %x, flags %v; want %x, 0", pcs[:n], how, out)
	}
}

func TestWalkStops(t *testing.T) {
	s := newFakeStack(64)
	lo, hi := s.bounds()
	cases := []struct {
		name  string
		setup func() uintptr
		n     int
		flags record.Flags
	}{
		{"garbage fp like 0x4", func() uintptr { return 0x4 }, 0, record.WalkStop},
		{"misaligned", func() uintptr { return s.addr(4) + 3 }, 0, record.WalkStop},
		{"below the stack", func() uintptr { return lo - 64 }, 0, record.WalkStop},
		{"above the stack", func() uintptr { return hi + 64 }, 0, record.WalkStop},
		{"return address outside text", func() uintptr {
			return s.chain([]int{4, 10}, []uintptr{0x100010, 0xdeadbeef}, 0)
		}, 1, record.WalkStop},
		{"loop back to itself", func() uintptr {
			fp := s.chain([]int{20}, []uintptr{0x100010}, 0)
			s.words[20] = fp
			return fp
		}, 1, record.WalkStop},
		{"downward link", func() uintptr {
			return s.chain([]int{30, 12}, []uintptr{0x100010, 0x100020}, 0)
		}, 1, record.WalkStop},
		{"outermost frame with zero return address", func() uintptr {
			return s.chain([]int{4, 10}, []uintptr{0x100010, 0}, 0)
		}, 1, 0},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			clear(s.words)
			w := walkOf(s)
			got, flags := frames(t, w, c.setup(), MaxDepth)
			if len(got) != c.n || flags != c.flags {
				t.Errorf("n=%d flags=%v, want n=%d flags=%v", len(got), flags, c.n, c.flags)
			}
		})
	}
}

func TestWalkTruncates(t *testing.T) {
	s := newFakeStack(2*MaxDepth + 20)
	var offs []int
	var rets []uintptr
	for i := 0; i < MaxDepth+10; i++ {
		offs = append(offs, 2*i)
		rets = append(rets, uintptr(textLo+16*i))
	}
	fp := s.chain(offs, rets, 0)
	w := walkOf(s)
	got, flags := frames(t, w, fp, MaxDepth)
	if len(got) != MaxDepth || flags != record.StackTrunc {
		t.Fatalf("n=%d flags=%v, want %d frames and StackTrunc", len(got), flags, MaxDepth)
	}
	var pcs [MaxDepth]uint64
	if n, how := w.PCs(fp, pcs[:]); n != MaxDepth || how != record.StackTrunc {
		t.Errorf("PCs: %d frames, flags %v; want %d and StackTrunc", n, how, MaxDepth)
	}
	if n, how := w.PCs(fp, nil); n != 0 || how != 0 {
		t.Errorf("PCs into no room: %d frames, flags %v; want 0, 0", n, how)
	}
}

// plainFrames is the frame-pointer walk as one plain loop that counts its frames or stores
// them in out: the checks of Walk, in the same order, without the iterator around them. Walk
// must find the same frames and end the same way (FuzzWalk).
func plainFrames(w *Walk, fp uintptr, out []uint64, max int) (n int, flags record.Flags) {
	prev := uintptr(0)
	page := ^uintptr(0)
	for n < max {
		if fp == 0 {
			return n, 0
		}
		if w.StackHi < 16 || fp&7 != 0 || fp < w.StackLo || fp > w.StackHi-16 || fp <= prev {
			return n, record.WalkStop
		}
		if w.Mapped {
			for _, a := range [2]uintptr{fp, fp + 8} {
				if a>>12 != page {
					if !readable(a) {
						return n, record.WalkStop
					}
					page = a >> 12
				}
			}
		}
		ret := load(fp + 8)
		if ret < w.TextLo || ret >= w.TextHi {
			if ret == 0 {
				return n, 0
			}
			return n, record.WalkStop
		}
		if out != nil {
			out[n] = uint64(ret)
		}
		n++
		prev = fp
		fp = load(fp)
	}
	if fp != 0 {
		return n, record.StackTrunc
	}
	return n, 0
}

// FuzzWalk fills a stack with arbitrary words and walks it from an arbitrary frame pointer: the
// walk must never read outside the stack (the bounds check comes first), never record a return
// address outside the text, and find what plainFrames finds, at any depth limit.
func FuzzWalk(f *testing.F) {
	f.Add([]byte{8, 0, 0, 0, 0, 0, 0, 0, 16, 0, 16, 0, 0, 0, 0, 0}, uint16(0))
	f.Fuzz(func(t *testing.T, data []byte, start uint16) {
		s := newFakeStack(256)
		lo, _ := s.bounds()
		for i := 0; i+8 <= len(data) && i/8 < len(s.words); i += 8 {
			v := uintptr(data[i]) | uintptr(data[i+1])<<8 | uintptr(data[i+2])<<16
			switch data[i+3] % 3 { // mix stack addresses, text addresses and garbage
			case 0:
				s.words[i/8] = lo + v%(256*8)
			case 1:
				s.words[i/8] = textLo + v%(textHi-textLo)
			default:
				s.words[i/8] = v
			}
		}
		w := walkOf(s)
		fp := lo + uintptr(start)%(256*8)
		out, end := frames(t, w, fp, MaxDepth)
		for i := range out {
			if out[i] < textLo || out[i] >= textHi {
				t.Fatalf("frame %d = %#x is outside the text", i, out[i])
			}
		}
		for _, max := range []int{MaxDepth, int(start>>11) + 1, 0} { // 0: no room at all
			want := make([]uint64, max)
			n, how := plainFrames(&w, fp, want, max)
			got, gotEnd := out, end
			if max != MaxDepth {
				got, gotEnd = frames(t, w, fp, max)
			}
			if !slices.Equal(got, want[:n]) || gotEnd != how {
				t.Fatalf("at most %d frames: %x, end %v; the plain loop: %x, end %v", max, got, gotEnd, want[:n], how)
			}
		}
	})
}

// BenchmarkWalk32 is a tracepoint's backtrace of 32 frames: count, then store, as the emits do.
func BenchmarkWalk32(b *testing.B) {
	s := newFakeStack(256)
	var offs []int
	var rets []uintptr
	for i := 0; i < 32; i++ {
		offs = append(offs, 4*i)
		rets = append(rets, uintptr(textLo+16*i))
	}
	fp := s.chain(offs, rets, 0)
	w := walkOf(s)
	dst := make([]uint64, MaxDepth)
	for range b.N {
		w.Start(fp, MaxDepth)
		n := w.Count()
		w.Start(fp, n)
		w.Store(dst[:n])
	}
}
