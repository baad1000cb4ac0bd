//go:build unitrace_host && amd64

package unwind

import (
	"encoding/binary"
	"slices"
	"testing"
	"unsafe"

	"github.com/unitrace/unitrace/arch/amd64"
	"github.com/unitrace/unitrace/trace/record"
)

// A synthetic machine for the walks across trap frames: one buffer holds a kernel stack (with
// the sampler's frame and a system call's frame on it) and a thread's stack (with a stand-in g
// and its TLS slot); hostMachine confines every load to the buffer.
type crossMachine struct {
	mem        []uint64
	base       uintptr
	kLo, kHi   uintptr // the kernel stack: the first half of the buffer
	tLo, tHi   uintptr // the thread's stack: the second half, after the g
	g, tls     uintptr
	m, g0      uintptr // the g's M and its system stack's g
	inner, out uintptr // the sampler's frame (kernel context), the system call's (thread context)
}

const crossWords = 8192 // 64 KiB

func newCrossMachine(t testing.TB) *crossMachine {
	m := &crossMachine{mem: make([]uint64, crossWords+2)}
	m.base = (uintptr(unsafe.Pointer(&m.mem[0])) + 15) &^ 15
	half := uintptr(crossWords * 8 / 2)
	m.kLo, m.kHi = m.base, m.base+half
	m.g = m.kHi
	m.tls = m.g + 64 // FS base: the g's address is at FS-8
	m.m, m.g0 = m.g+128, m.g+192
	m.tLo, m.tHi = m.g+512, m.base+2*half-0x1000 // the goroutine's stack; the M's g0 stack after it
	m.put(m.g+gStackLo, uint64(m.tLo))
	m.put(m.g+gStackHi, uint64(m.tHi))
	m.put(m.g+gM, uint64(m.m))
	m.put(m.m+mG0, uint64(m.g0))
	m.put(m.g0+gStackLo, uint64(m.tHi))
	m.put(m.g0+gStackHi, uint64(m.tHi+0x1000))
	m.put(m.tls-8, uint64(m.g))
	fs := uintptr(unsafe.Sizeof(amd64.Frame{}))
	m.out = (m.kHi - fs) &^ 15
	m.inner = (m.out - fs - 256) &^ 15
	hostMachine.memLo, hostMachine.memHi = m.base, m.base+2*half
	hostMachine.kstackLo, hostMachine.kstackHi = m.kLo, m.kHi
	hostMachine.textLo, hostMachine.textHi = textLo, textHi
	t.Cleanup(func() { hostMachine = hostMachineState{} })
	return m
}

func (m *crossMachine) put(a uintptr, v uint64) { *(*uint64)(ptr(a)) = v }

func (m *crossMachine) frame(a uintptr) *amd64.Frame { return (*amd64.Frame)(ptr(a)) }

// chain writes frame records at the given addresses, linked in order, with the given return
// addresses; the last one's saved frame pointer is 0 (the natural end).
func (m *crossMachine) chain(at []uintptr, rets []uint64) uintptr {
	for i, a := range at {
		next := uint64(0)
		if i+1 < len(at) {
			next = uint64(at[i+1])
		}
		m.put(a, next)
		m.put(a+8, rets[i])
	}
	return at[0]
}

// build lays out the sampler's interrupt in a system call: kernel pc 0x150000 with two return
// addresses on the kernel stack, then the thread at 0x110000 with two on its own stack.
func (m *crossMachine) build() {
	kfp := m.chain([]uintptr{m.kLo + 0x800, m.kLo + 0x900}, []uint64{0x150100, 0x150200})
	in := m.frame(m.inner)
	in.RIP, in.RSP, in.RBP, in.FSBase, in.Prev = 0x150000, uint64(m.kLo+0x7f0), uint64(kfp), 0, uint64(m.out)
	ufp := m.chain([]uintptr{m.tLo + 0x100, m.tLo + 0x200}, []uint64{0x110100, 0x110200})
	out := m.frame(m.out)
	out.RIP, out.RSP, out.RBP, out.FSBase, out.Prev = 0x110000, uint64(m.tLo+0xf0), uint64(ufp), uint64(m.tls), 0
	m.put(m.tLo+0xf0, 0x110050) // the words at the thread's sp
}

// walk walks the crossing from the frame at fa (StartTraps; with markFirst, the trap part of a
// StartAcross, whose first context has a mark too) as the emits do: count, then store exactly
// that many (the storing walk's flags may say StackTrunc where the counting one saw a check fail
// on the next word: only the counting walk's flags go into the record). It panics unless the
// storing walk stored the words a walk with room to spare does, and returns the words, the
// counting walk's flags and the crossing, walked.
func (m *crossMachine) walk(fa uintptr, markFirst bool) ([]uint64, record.Flags, *Crossing) {
	start := func(max int) *Crossing {
		x := new(Crossing)
		x.StartTraps(fa, max)
		x.across = markFirst // a kernel path of no frames, then a mark before every context
		x.part.over()
		return x
	}
	counting := start(MaxDepth)
	n := counting.Count()
	out := make([]uint64, n)
	if got := start(n).Store(out); got != n {
		panic("the storing walk stored other than the words the counting one counted")
	}
	full := make([]uint64, MaxDepth)
	if got := start(MaxDepth).Store(full); got != n || !slices.Equal(out, full[:n]) {
		panic("the storing walk stored other words than a walk with room to spare")
	}
	if again := counting.Count(); again != 0 {
		panic("a crossing walked again without a start yielded words")
	}
	return out, counting.End(), counting
}

func TestWalkTrapsCrossesIntoThread(t *testing.T) {
	m := newCrossMachine(t)
	m.build()
	got, fl, x := m.walk(m.inner, false)
	want := []uint64{0x150000, 0x150100, 0x150200, record.StackMarkThread, 0x110000, 0x110100, 0x110200}
	if !slices.Equal(got, want) || fl != 0 {
		t.Fatalf("stack %x, flags %#x; want %x, 0", got, fl, want)
	}
	if k := x.First(); k == nil || k.PC != 0x150000 || k.Kind != record.StackInterrupt {
		t.Errorf("first context %+v, want the kernel code at 0x150000", k)
	}
	th := x.Thread()
	if th == nil {
		t.Fatal("no thread context")
	}
	if w0, _ := th.Words(); th.SP != m.tLo+0xf0 || w0 != 0x110050 || th.Kind != record.StackGoroutine {
		t.Errorf("thread context %+v", th)
	}

	// A tracepoint in the system call's handler: its own chain was walked already; the trap
	// frame's context follows its mark.
	got, _, _ = m.walk(m.out, true)
	if want := []uint64{record.StackMarkThread, 0x110000, 0x110100, 0x110200}; !slices.Equal(got, want) {
		t.Errorf("from the system call's frame: %x, want %x", got, want)
	}
}

func TestWalkTrapsRefusesGarbageLinks(t *testing.T) {
	m := newCrossMachine(t)
	cases := []struct {
		name string
		prev uint64
	}{
		{"unaligned", uint64(m.out + 8)},
		{"outside the kernel stacks", uint64(m.tLo + 0x100)},
		{"running past the stack", uint64(m.kHi - 16)},
		{"non-canonical", 0xdead_0000_0000_0000},
	}
	for _, c := range cases {
		m.build()
		m.frame(m.inner).Prev = c.prev
		got, fl, x := m.walk(m.inner, false)
		if fl&record.WalkStop == 0 || x.Thread() != nil || len(got) != 3 {
			t.Errorf("%s: stack %x, flags %#x, thread %v: want the kernel part, then WalkStop", c.name, got, fl, x.Thread() != nil)
		}
	}
	m.build()
	m.frame(m.out).RIP = 0xdead // a linked frame whose pc is not code
	if got, fl, _ := m.walk(m.inner, false); fl&record.WalkStop == 0 || len(got) != 3 {
		t.Errorf("a pc outside the text: stack %x, flags %#x", got, fl)
	}
	m.build()
	m.frame(m.out).Prev = uint64(m.inner) // a loop
	if got, fl, _ := m.walk(m.inner, false); fl&record.WalkStop == 0 || len(got) > MaxDepth {
		t.Errorf("a loop of frames: stack %x, flags %#x", got, fl)
	}
}

// TestWalkTrapsOnSystemStack: a thread that switched SP to its M's g0 stack but whose frame
// pointer still points into the goroutine's stack (the runtime's vDSO-style calls) is walked
// on the goroutine's stack, and classified as on the system stack.
func TestWalkTrapsOnSystemStack(t *testing.T) {
	m := newCrossMachine(t)
	m.build()
	m.frame(m.out).RSP = uint64(m.tHi + 0x800)
	got, fl, x := m.walk(m.inner, false)
	want := []uint64{0x150000, 0x150100, 0x150200, record.StackMarkThread, 0x110000, 0x110100, 0x110200}
	if th := x.Thread(); !slices.Equal(got, want) || fl != 0 || th == nil || th.Kind != record.StackSystem {
		t.Errorf("stack %x, flags %#x, thread %+v; want %x, 0, on the system stack", got, fl, th, want)
	}
}

// TestWalkTrapsLeavesTheThreadRoom: a kernel chain deeper than the kernel's share is cut there,
// and the thread's context still follows.
func TestWalkTrapsLeavesTheThreadRoom(t *testing.T) {
	m := newCrossMachine(t)
	m.build()
	var at []uintptr
	var rets []uint64
	for i := 0; i < 100; i++ {
		at = append(at, m.kLo+0x800+uintptr(i)*16)
		rets = append(rets, 0x150000+uint64(i))
	}
	m.frame(m.inner).RBP = uint64(m.chain(at, rets))
	got, fl, x := m.walk(m.inner, false)
	if th := x.Thread(); fl&record.StackTrunc == 0 || th == nil || len(got) != kernelPartMax+4 || got[kernelPartMax] != record.StackMarkThread {
		t.Errorf("%d words, flags %#x, thread %v; want the kernel's %d, the mark and the thread's 3", len(got), fl, th != nil, kernelPartMax)
	}
}

// plainTraps is the walk across trap frames as one plain loop that stores its words in out (or
// only counts them, out nil), at most max: what Crossing must yield and how it must end, and the
// thread context it must reach (FuzzWalkTraps). Its chains are plainFrames.
func plainTraps(fa uintptr, markFirst bool, out []uint64, max int) (n int, flags record.Flags, thread *Context) {
	put := func(v uint64) {
		if out != nil {
			out[n] = v
		}
		n++
	}
	mark := markFirst
	for depth := 0; fa != 0; depth++ {
		if depth == maxTrapFrames {
			return n, flags | record.WalkStop, nil
		}
		c := new(Context)
		c.readInterrupted(fa)
		if depth > 0 && !inText(c.PC) {
			return n, flags | record.WalkStop, nil
		}
		prev := framePrev(fa)
		limit := max
		if prev != 0 {
			limit = min(max, n+kernelPartMax)
		}
		need := 1
		if mark {
			need = 2
		}
		if n+need > limit {
			return n, flags | record.StackTrunc, nil
		}
		if mark {
			m := record.StackMarkThread
			if prev != 0 {
				m = record.StackMarkKernel
			}
			put(m)
		}
		put(uint64(c.PC))
		if c.Hi != 0 {
			w := c.Walk()
			var rest []uint64
			if out != nil {
				rest = out[n:]
			}
			k, wf := plainFrames(&w, c.FP, rest, limit-n)
			n += k
			flags |= wf
		}
		if prev == 0 {
			return n, flags, c
		}
		if !validFrame(prev) {
			return n, flags | record.WalkStop, nil
		}
		fa, mark = prev, true
	}
	return n, flags, nil
}

// FuzzWalkTraps fills the synthetic machine's memory with arbitrary words (frames, links,
// chains, the g) and checks that the walk stays inside it, ends, records as frames only exact
// pcs of linked frames, marks and code addresses, and yields what plainTraps does.
func FuzzWalkTraps(f *testing.F) {
	f.Add([]byte{}, uint16(0))
	f.Add(make([]byte, 512), uint16(3))
	f.Fuzz(func(t *testing.T, data []byte, seed uint16) {
		m := newCrossMachine(t)
		m.build()
		// Scatter the input over the frames and the first words of both stacks.
		targets := []uintptr{m.inner, m.out, m.kLo + 0x800, m.tLo + 0x100, m.g, m.m}
		for i := 0; i+8 <= len(data); i += 8 {
			base := targets[(i/8+int(seed))%len(targets)]
			off := uintptr(binary.LittleEndian.Uint16(data[i:])) % 1024 &^ 7
			m.put(base+off, binary.LittleEndian.Uint64(data[i:]))
		}
		got, end, x := m.walk(m.inner, seed&1 != 0)
		if len(got) > MaxDepth {
			t.Fatalf("%d words", len(got))
		}
		want := make([]uint64, MaxDepth)
		n, wantEnd, wantThread := plainTraps(m.inner, seed&1 != 0, want, MaxDepth)
		if th := x.Thread(); !slices.Equal(got, want[:n]) || end != wantEnd || (th == nil) != (wantThread == nil) ||
			th != nil && *th != *wantThread {
			t.Fatalf("%x, end %v, thread %+v; the plain loop: %x, end %v, thread %+v", got, end, th, want[:n], wantEnd, wantThread)
		}
		for i, w := range got {
			if record.IsStackMark(uint64(w)) || (w >= textLo && w < textHi) {
				continue
			}
			// Only the first context's pc may lie outside the text: its frame is the
			// running trap's own, built by its entry stub.
			first := 0
			if seed&1 != 0 {
				first = 1
			}
			if i != first {
				t.Fatalf("word %d = %#x is neither a mark nor code: %x", i, w, got)
			}
		}
	})
}

// BenchmarkCrossing is the sampler's walk of a system call it interrupted, on the synthetic
// machine: count the words, then store them, as EmitSample does (host readable() stands in for
// the page-table lookups of the guest's).
func BenchmarkCrossing(b *testing.B) {
	m := newCrossMachine(b)
	m.build()
	dst := make([]uint64, MaxDepth)
	var x Crossing
	for range b.N {
		x.StartTraps(m.inner, MaxDepth)
		n := x.Count()
		x.StartTraps(m.inner, n)
		x.Store(dst[:n])
	}
}
