//go:build unitrace_host && amd64

package unwind

import (
	"encoding/binary"
	"slices"
	"testing"

	"github.com/unitrace/unitrace/arch/goabi"
	"github.com/unitrace/unitrace/kernel/signal"
	"github.com/unitrace/unitrace/trace/record"
)

// The walks across signal frames, on the synthetic machine of traps_test.go: the thread runs a
// signal handler on its M's gsignal stack, below the frame the kernel built there, when the
// sampler's interrupt (here, the system call's frame m.out) stops it.

const testRestorer = 0x130000

// signalMachine is a crossMachine whose goroutine's stack is cut short, its upper part given to
// the M's gsignal, with the thread in a handler there.
type signalMachine struct {
	*crossMachine
	gsignal, sLo, sHi uintptr // the signal goroutine and its stack
}

func newSignalMachine(t *testing.T) *signalMachine {
	m := &signalMachine{crossMachine: newCrossMachine(t)}
	m.gsignal = m.g + 320
	m.sLo, m.sHi = m.tLo+0x4000, m.tLo+0x6000
	m.put(m.g+gStackHi, uint64(m.sLo)) // the goroutine's stack: [tLo, sLo)
	m.put(m.gsignal+gStackLo, uint64(m.sLo))
	m.put(m.gsignal+gStackHi, uint64(m.sHi))
	// An M of its own, in a free part of the kernel stack: the shared one's gsignal field would
	// overlap the stand-in g0.
	mm := m.kLo + 0x100
	m.put(m.g+gM, uint64(mm))
	m.put(m.gsignal+gM, uint64(mm))
	m.put(mm+mG0, uint64(m.g0))
	m.put(mm+goabi.MGsignal, uint64(m.gsignal))
	m.put(mm+goabi.MCurg, uint64(m.g))
	m.put(m.tls-8, uint64(m.gsignal)) // the handler runs as gsignal
	NoteRestorer(testRestorer)
	t.Cleanup(func() {
		for i := range restorers {
			restorers[i].Store(0)
		}
	})
	return m
}

// build stops the thread in a handler at 0x120000 whose chain is 0x120100, then the restorer;
// the signal frame above it saved the interrupted goroutine at 0x110000, with its chain
// 0x110100, 0x110200 on the goroutine's stack. It returns the frame's base.
func (m *signalMachine) build() uintptr {
	ufp := m.chain([]uintptr{m.tLo + 0x100, m.tLo + 0x200}, []uint64{0x110100, 0x110200})
	hfp := m.chain([]uintptr{m.sLo + 0x200, m.sLo + 0x300}, []uint64{0x120100, testRestorer})
	m.put(m.sLo+0x300, uint64(ufp)) // sigtramp's record saved the interrupted frame pointer
	base := m.sLo + 0x308           // rt_sigframe: pretcode (the restorer), then uc
	m.put(base+signal.AMD64FrameRIP, 0x110000)
	m.put(base+signal.AMD64FrameRSP, uint64(m.tLo+0xf0))
	m.put(base+signal.AMD64FrameRBP, uint64(ufp))
	out := m.frame(m.out)
	out.RIP, out.RSP, out.RBP, out.FSBase, out.Prev = 0x120000, uint64(m.sLo+0x100), uint64(hfp), uint64(m.tls), 0
	return base
}

// TestWalkCrossesSignalFrame: the handler's chain ends at the restorer, then the mark, the
// interrupted pc and its chain on the goroutine's stack; the capture of a thread's saved
// context (the snapshots') crosses the same way.
func TestWalkCrossesSignalFrame(t *testing.T) {
	m := newSignalMachine(t)
	m.build()
	want := []uint64{0x120000, 0x120100, testRestorer, record.StackMarkSignal, 0x110000, 0x110100, 0x110200}
	got, fl, x := m.walk(m.out, false)
	if !slices.Equal(got, want) || fl != 0 {
		t.Fatalf("stack %x, flags %#x; want %x, 0", got, fl, want)
	}
	if th := x.Thread(); th == nil || th.Kind != record.StackGoroutine || th.Lo != m.sLo {
		t.Errorf("the handler's context %+v, want on gsignal's stack", th)
	}

	c := ContextAt(m.out)
	frames := make([]uint64, MaxDepth)
	n, sf, walked := c.WalkThread(frames)
	if !slices.Equal(frames[:n], want[1:]) || sf != 0 || !walked {
		t.Errorf("captured %x, flags %#x, walked %v; want %x", frames[:n], sf, walked, want[1:])
	}

	// Without the restorer noted, the walk stops where the chain leaves gsignal's stack.
	restorers[0].Store(0)
	got, fl, _ = m.walk(m.out, false)
	if want := []uint64{0x120000, 0x120100, testRestorer}; !slices.Equal(got, want) || fl != record.WalkStop {
		t.Errorf("no restorer: stack %x, flags %#x; want %x, WalkStop", got, fl, want)
	}
}

// TestWalkAtHandlerEntry: a thread stopped at its handler's first instruction has pushed no
// frame, and runs as the interrupted g still (the handler switches to gsignal later), so its
// sp is on no stack it knows: its stack is the signal frame's crossing, from the frame at sp.
func TestWalkAtHandlerEntry(t *testing.T) {
	m := newSignalMachine(t)
	base := m.build()
	m.put(m.tls-8, uint64(m.g))
	out := m.frame(m.out)
	out.RIP, out.RSP, out.RBP = 0x120000, uint64(base), 0xdead_0000 // RBP: the interrupted code's
	m.put(base+signal.AMD64FrameRBP, uint64(m.tLo+0x100))
	got, fl, _ := m.walk(m.out, false)
	want := []uint64{0x120000, record.StackMarkSignal, 0x110000, 0x110100, 0x110200}
	if !slices.Equal(got, want) || fl != 0 {
		t.Errorf("stack %x, flags %#x; want %x, 0", got, fl, want)
	}
	c := ContextAt(m.out)
	frames := make([]uint64, MaxDepth)
	if n, fl, walked := c.WalkThread(frames); !slices.Equal(frames[:n], want[1:]) || fl != 0 || !walked {
		t.Errorf("captured %x, flags %#x, walked %v; want %x", frames[:n], fl, walked, want[1:])
	}

	// In the restorer, after the handler's return popped the frame's first word.
	out.RIP, out.RSP = testRestorer+7, uint64(base+8)
	if got, fl, _ := m.walk(m.out, false); !slices.Equal(got[1:], want[1:]) || fl != 0 {
		t.Errorf("in the restorer: stack %x, flags %#x; want %x", got, fl, want[1:])
	}
	out.RIP = 0x120000 // not in the restorer: the word below sp is not the frame's
	if got, _, _ := m.walk(m.out, false); len(got) != 1 {
		t.Errorf("past the restorer's code: stack %x, want the pc alone", got)
	}
	out.RSP = uint64(base)

	// Anywhere else, a word at sp equal to the restorer is checked as a frame like any other.
	m.put(base+signal.AMD64FrameRIP, 0xdead)
	if got, fl, _ := m.walk(m.out, false); !slices.Equal(got, want[:1]) || fl != record.WalkStop {
		t.Errorf("a bad frame at sp: stack %x, flags %#x; want %x, WalkStop", got, fl, want[:1])
	}
}

// TestWalkHandlerBeforeGsignal: the handler's code before the runtime switches g to gsignal
// runs on the signal stack as the g it interrupted; its chain is walked on the M's signal
// stack all the same, and crosses the frame.
func TestWalkHandlerBeforeGsignal(t *testing.T) {
	m := newSignalMachine(t)
	m.build()
	m.put(m.tls-8, uint64(m.g))
	got, fl, x := m.walk(m.out, false)
	want := []uint64{0x120000, 0x120100, testRestorer, record.StackMarkSignal, 0x110000, 0x110100, 0x110200}
	if !slices.Equal(got, want) || fl != 0 {
		t.Fatalf("stack %x, flags %#x; want %x, 0", got, fl, want)
	}
	if th := x.Thread(); th == nil || th.Kind != record.StackGoroutine || th.Lo != m.sLo {
		t.Errorf("the handler's context %+v, want on gsignal's stack", th)
	}
}

// TestWalkSignalFrameChecks: a signal frame whose words fail a check ends the walk at the
// restorer with WalkStop, and nothing of it becomes a frame.
func TestWalkSignalFrameChecks(t *testing.T) {
	handler := []uint64{0x120000, 0x120100, testRestorer}
	for _, c := range []struct {
		name  string
		spoil func(m *signalMachine, base uintptr)
		want  []uint64
		flags record.Flags
	}{
		{"a pc outside the text", func(m *signalMachine, base uintptr) { m.put(base+signal.AMD64FrameRIP, 0xdead) },
			handler, record.WalkStop},
		{"an sp on no known stack", func(m *signalMachine, base uintptr) { m.put(base+signal.AMD64FrameRSP, 0x1000) },
			append(slices.Clone(handler), record.StackMarkSignal, 0x110000), record.WalkStop},
		{"a frame running past the stack", func(m *signalMachine, base uintptr) {
			m.put(m.gsignal+gStackHi, uint64(base+signal.AMD64FrameRIP)) // the pc's word outside
			m.frame(m.out).RSP = uint64(m.sLo + 0x100)
		}, handler, record.WalkStop},
		{"a garbage chain after it", func(m *signalMachine, base uintptr) { m.put(base+signal.AMD64FrameRBP, 0x7) },
			append(slices.Clone(handler), record.StackMarkSignal, 0x110000), record.WalkStop},
	} {
		m := newSignalMachine(t)
		c.spoil(m, m.build())
		got, fl, _ := m.walk(m.out, false)
		if !slices.Equal(got, c.want) || fl != c.flags {
			t.Errorf("%s: stack %x, flags %#x; want %x, %#x", c.name, got, fl, c.want, c.flags)
		}
	}
}

// TestWalkNestedSignalFrames: a handler that interrupted a handler on the same signal stack
// crosses both frames, innermost first; a loop of frames stops at maxSignalFrames.
func TestWalkNestedSignalFrames(t *testing.T) {
	m := newSignalMachine(t)
	base := m.build()
	// The outer handler, interrupted at 0x121000 with its chain 0x121100, then the restorer of
	// the first frame; the inner one's frame lies below it on the same stack.
	outer := m.chain([]uintptr{m.sLo + 0x280}, []uint64{0x121100})
	m.put(m.sLo+0x280, uint64(m.sLo+0x300)) // on to the record that returns to the restorer
	inner := m.chain([]uintptr{m.sLo + 0x40, m.sLo + 0x60}, []uint64{0x122100, testRestorer})
	ibase := m.sLo + 0x68
	m.put(ibase+signal.AMD64FrameRIP, 0x121000)
	m.put(ibase+signal.AMD64FrameRSP, uint64(m.sLo+0x270))
	m.put(ibase+signal.AMD64FrameRBP, uint64(outer))
	m.frame(m.out).RIP, m.frame(m.out).RSP, m.frame(m.out).RBP = 0x122000, uint64(m.sLo+0x20), uint64(inner)
	got, fl, _ := m.walk(m.out, false)
	want := []uint64{0x122000, 0x122100, testRestorer, record.StackMarkSignal, 0x121000, 0x121100, testRestorer,
		record.StackMarkSignal, 0x110000, 0x110100, 0x110200}
	if !slices.Equal(got, want) || fl != 0 {
		t.Errorf("stack %x, flags %#x; want %x, 0", got, fl, want)
	}

	// A frame that says it interrupted itself: the crossing gives up after maxSignalFrames.
	m.put(base+signal.AMD64FrameRIP, 0x120000)
	m.put(base+signal.AMD64FrameRSP, uint64(m.sLo+0x100))
	m.put(base+signal.AMD64FrameRBP, uint64(m.sLo+0x200))
	got, fl, _ = m.walk(m.out, false)
	if fl&record.WalkStop == 0 || len(got) > MaxDepth {
		t.Errorf("a loop of signal frames: stack %x, flags %#x", got, fl)
	}
}

// FuzzWalkSignal scatters untrusted words over a handler's stack, its signal frame and the
// interrupted goroutine's stack: whatever they hold, the walk stays in bounds (the synthetic
// machine confines every load), counts and stores the same words, and yields nothing but the
// handler's pc, marks and addresses of the text.
func FuzzWalkSignal(f *testing.F) {
	f.Add([]byte{}, uint16(0))
	f.Add(make([]byte, 512), uint16(3))
	f.Fuzz(func(t *testing.T, data []byte, seed uint16) {
		m := newSignalMachine(t)
		base := m.build()
		targets := []uintptr{m.sLo + 0x200, base, base + signal.AMD64FrameRBP, m.tLo + 0x100, m.gsignal, m.m}
		for i := 0; i+8 <= len(data); i += 8 {
			at := targets[(i/8+int(seed))%len(targets)]
			off := uintptr(binary.LittleEndian.Uint16(data[i:])) % 256 &^ 7
			m.put(at+off, binary.LittleEndian.Uint64(data[i:]))
		}
		got, _, _ := m.walk(m.out, false)
		if len(got) > MaxDepth {
			t.Fatalf("%d words", len(got))
		}
		for i, w := range got[1:] {
			if !record.IsStackMark(w) && (w < textLo || w >= textHi) {
				t.Fatalf("word %d = %#x is neither a mark nor code: %x", i+1, w, got)
			}
		}
	})
}
