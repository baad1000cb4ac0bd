//go:build unitrace_host && amd64

package unwind

import (
	"slices"
	"testing"

	"github.com/unitrace/unitrace/symtab"
	"github.com/unitrace/unitrace/trace/record"
)

// Walks with table steps on a synthetic goroutine stack: a function table of a few functions
// with one SP delta each (hostMachine.funcs), frames laid out as amd64's prologues lay them.

var chainFuncs = []hostFunc{
	{lo: 0x101000, hi: 0x101100, delta: 0x28},                               // fnMain
	{lo: 0x102000, hi: 0x102100, delta: 0x48},                               // fnCaller
	{lo: 0x103000, hi: 0x103100, delta: 0x228},                              // fnClobber: asm, a big frame, BP for data
	{lo: 0x104000, hi: 0x104100, delta: 0},                                  // fnFrameless
	{lo: 0x105000, hi: 0x105100, delta: 0x18, flag: symtab.FuncFlagSPWrite}, // fnSPWrite
	{lo: 0x106000, hi: 0x106100, delta: 0, flag: symtab.FuncFlagTopFrame},   // fnGoexit
	{lo: 0x107000, hi: 0x107100, delta: 0x38},                               // fnGo: Go code, a frame
	{lo: 0x108000, hi: 0x108100, delta: 0},                                  // fnAsmCaller: frameless, yet calls
}

const (
	fnMain = iota
	fnCaller
	fnClobber
	fnFrameless
	fnSPWrite
	fnGoexit
	fnGo
	fnAsmCaller
)

// garbageFP is what an assembly function keeps in its frame-pointer register: SHA-256's first
// round constant, which is no stack address.
const garbageFP = 0x6a09e667f3bcc908

// chainFrame is one frame of a synthetic stack: its function, the pc in it (the call it makes,
// or for the leaf the interrupted instruction) and whether it keeps garbage in BP from its
// prologue on.
type chainFrame struct {
	fn      int
	pc      uintptr
	clobber bool
}

func frameIn(fn int, off uintptr) chainFrame { return chainFrame{fn: fn, pc: chainFuncs[fn].lo + off} }

// chainStack lays frames out, outermost first, as amd64 calls and prologues do: each call
// pushes the return address; a function with a delta of at least 16 pushes BP below it and
// points BP there (unless clobber: then BP holds garbageFP from there on). It returns the
// leaf's context.
func chainStack(t testing.TB, frames []chainFrame) (*fakeStack, Context) {
	s := newFakeStack(1024)
	lo, hi := s.bounds()
	hostMachine.memLo, hostMachine.memHi = lo, hi
	hostMachine.textLo, hostMachine.textHi = textLo, textHi
	hostMachine.funcs = chainFuncs
	t.Cleanup(func() { hostMachine = hostMachineState{} })
	sp, bp := hi-64, uintptr(0)
	for i := 1; i < len(frames); i++ {
		e := sp - 8 // the callee's entry SP: the return address into the caller
		s.words[(e-lo)/8] = frames[i-1].pc
		d := uintptr(chainFuncs[frames[i].fn].delta)
		if d >= 16 {
			s.words[(e-8-lo)/8] = bp
			bp = e - 8
		}
		if frames[i].clobber {
			bp = garbageFP
		}
		sp = e - d
	}
	return s, SavedContext(frames[len(frames)-1].pc, sp, bp, lo, hi)
}

// walkChain walks c's chain with room for max words.
func walkChain(c Context, max int) ([]uint64, record.Flags) {
	out := make([]uint64, max)
	n, end, _ := c.WalkThread(out)
	return out[:n], end
}

const mark = record.StackMarkTable

func TestChainTableSteps(t *testing.T) {
	goexit, main, caller := frameIn(fnGoexit, 1), frameIn(fnMain, 0x40), frameIn(fnCaller, 0x50)
	outer := []uint64{uint64(main.pc), uint64(goexit.pc)}
	clobberLeaf := chainFrame{fn: fnClobber, pc: chainFuncs[fnClobber].lo + 0x80, clobber: true}
	clobberCalls := chainFrame{fn: fnClobber, pc: chainFuncs[fnClobber].lo + 0x90, clobber: true}
	cases := []struct {
		name   string
		frames []chainFrame
		tables bool
		want   []uint64
		end    record.Flags
	}{
		{"a linked leaf: the chain alone", []chainFrame{goexit, main, caller, frameIn(fnGo, 0x10)}, true,
			append([]uint64{uint64(caller.pc)}, outer...), 0},
		{"BP used for data in the leaf", []chainFrame{goexit, main, caller, clobberLeaf}, true,
			append([]uint64{mark, uint64(caller.pc)}, outer...), 0},
		{"BP used for data, no tables: the walk stops", []chainFrame{goexit, main, caller, clobberLeaf}, false,
			nil, record.WalkStop},
		{"a frameless leaf", []chainFrame{goexit, main, caller, frameIn(fnFrameless, 8)}, true,
			append([]uint64{mark, uint64(caller.pc)}, outer...), 0},
		{"a frameless leaf, no tables: its caller skipped", []chainFrame{goexit, main, caller, frameIn(fnFrameless, 8)}, false,
			outer, 0},
		{"a record that fails: its frame stepped by the tables", []chainFrame{goexit, main, caller, clobberCalls, frameIn(fnGo, 0x10)}, true,
			append([]uint64{uint64(clobberCalls.pc), mark, uint64(caller.pc)}, outer...), 0},
		{"a frameless caller: stepped again", []chainFrame{goexit, main, caller, frameIn(fnAsmCaller, 0x20), frameIn(fnFrameless, 4)}, true,
			append([]uint64{mark, uint64(chainFuncs[fnAsmCaller].lo + 0x20), mark, uint64(caller.pc)}, outer...), 0},
		{"an SPWRITE leaf, linked: the chain alone", []chainFrame{goexit, main, caller, frameIn(fnSPWrite, 8)}, true,
			append([]uint64{uint64(caller.pc)}, outer...), 0},
		{"an SPWRITE leaf, BP for data: never through it", []chainFrame{goexit, main, caller, {fn: fnSPWrite, pc: chainFuncs[fnSPWrite].lo + 8, clobber: true}}, true,
			nil, record.WalkStop},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, ctx := chainStack(t, c.frames)
			if !c.tables {
				hostMachine.funcs = nil
			}
			got, end := walkChain(ctx, MaxDepth)
			if !slices.Equal(got, c.want) || end != c.end {
				t.Errorf("got %x, end %v; want %x, end %v", got, end, c.want, c.end)
			}
		})
	}
}

// TestChainGarbage: a slot the tables point at that holds no return address, a caller's SP
// past the stack, a return address that is no code: the walk stops there (or falls back to the
// frame pointers at the leaf) and never yields the garbage.
func TestChainGarbage(t *testing.T) {
	goexit, main, caller := frameIn(fnGoexit, 1), frameIn(fnMain, 0x40), frameIn(fnCaller, 0x50)
	leaf := chainFrame{fn: fnClobber, pc: chainFuncs[fnClobber].lo + 0x80, clobber: true}
	s, ctx := chainStack(t, []chainFrame{goexit, main, caller, leaf})
	lo, hi := s.bounds()
	slot := (ctx.SP + uintptr(chainFuncs[fnClobber].delta) - lo) / 8
	for _, bad := range []uintptr{0x5, garbageFP, textHi, lo + 8} {
		s.words[slot] = bad
		got, end := walkChain(ctx, MaxDepth)
		if len(got) != 0 || end != record.WalkStop {
			t.Errorf("slot holding %#x: %x, end %v", bad, got, end)
		}
	}
	s.words[slot] = caller.pc
	ctx.SP = hi - 0x100 // the slot would lie past the stack
	if got, end := walkChain(ctx, MaxDepth); len(got) != 0 || end != record.WalkStop {
		t.Errorf("slot past the stack: %x, end %v", got, end)
	}
}

// TestChainRoom: a table step needs two words; without them the walk is cut (StackTrunc), and
// never ends on a mark.
func TestChainRoom(t *testing.T) {
	goexit, main, caller := frameIn(fnGoexit, 1), frameIn(fnMain, 0x40), frameIn(fnCaller, 0x50)
	leaf := chainFrame{fn: fnClobber, pc: chainFuncs[fnClobber].lo + 0x80, clobber: true}
	_, ctx := chainStack(t, []chainFrame{goexit, main, caller, leaf})
	for max := 0; max <= 5; max++ {
		got, end := walkChain(ctx, max)
		if len(got) > max || len(got) > 0 && got[len(got)-1] == mark {
			t.Fatalf("room %d: %x", max, got)
		}
		if max < 4 && end&record.StackTrunc == 0 {
			t.Errorf("room %d: %x, end %v, want StackTrunc", max, got, end)
		}
	}
}

// FuzzChain fills a stack with arbitrary words, gives the function table arbitrary deltas and
// flags and walks from arbitrary registers: no load outside the stack (hostMachine confines
// them; one outside would fault the test), no word outside the text but a mark, and a mark
// always followed by a return address.
func FuzzChain(f *testing.F) {
	f.Add([]byte{8, 0, 0, 0, 0, 0, 0, 0, 16, 0, 16, 0, 0, 0, 0, 0}, uint16(0x80), uint16(0x40), uint32(0x1030))
	f.Fuzz(func(t *testing.T, data []byte, spOff, fpOff uint16, pc uint32) {
		s := newFakeStack(256)
		lo, hi := s.bounds()
		hostMachine.memLo, hostMachine.memHi = lo, hi
		hostMachine.textLo, hostMachine.textHi = textLo, textHi
		funcs := slices.Clone(chainFuncs)
		for i := range funcs {
			if i < len(data) {
				funcs[i].delta = int32(data[i]) * 8 % 0x300
				funcs[i].flag = symtab.FuncFlag(data[i] >> 6)
			}
		}
		hostMachine.funcs = funcs
		defer func() { hostMachine = hostMachineState{} }()
		for i := 0; i+8 <= len(data) && i/8 < len(s.words); i += 8 {
			v := uintptr(data[i]) | uintptr(data[i+1])<<8 | uintptr(data[i+2])<<16
			switch data[i+3] % 3 {
			case 0:
				s.words[i/8] = lo + v%(256*8)
			case 1:
				s.words[i/8] = textLo + 0x1000 + v%0x8000
			default:
				s.words[i/8] = v
			}
		}
		ctx := SavedContext(textLo+uintptr(pc)%0x10000, lo+uintptr(spOff)%(256*8)&^7, lo+uintptr(fpOff)%(256*8), lo, hi)
		got, _ := walkChain(ctx, MaxDepth)
		for i, w := range got {
			switch {
			case w == mark:
				if i+1 == len(got) || got[i+1] == mark {
					t.Fatalf("a mark not followed by a return address: %x", got)
				}
			case w < textLo || w >= textHi:
				t.Fatalf("word %d = %#x outside the text: %x", i, w, got)
			}
		}
	})
}
