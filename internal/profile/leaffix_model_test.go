package profile

import (
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/unitrace/unitrace/symtab"
	"github.com/unitrace/unitrace/trace/record"
	"github.com/unitrace/unitrace/trace/wire"
)

// A model of compiled code and a machine running it, to check the leaf fix
// against the truth: random call chains, the innermost function stopped at
// a random instruction of its prologue, body or epilogue, the stack memory
// as the instructions so far left it, and the frame-pointer walk the guest's
// sampler does. The fixed stack must be the true call stack, every time.

// modelFunc is one function of the model's text. Instructions are 4 bytes;
// a framed function's instructions are, by index:
//
//	amd64: 0 stack check, 1 PUSHQ BP, 2 MOVQ SP,BP, 3 SUBQ $F,SP, 4 body,
//	       5 CALL (returns to 6), 6 body, 7 ADDQ $F,SP, 8 POPQ BP, 9 RET
//	arm64: 0 stack check, 1 MOVD.W R30,-F(RSP), 2 MOVD R29,-8(RSP),
//	       3 SUB $8,RSP,R29, 4 body, 5 CALL (returns to 6), 6 body,
//	       7 MOVD -8(RSP),R29, 8 MOVD.P F(RSP),R30, 9 RET
//
// A frameless function is 6 instructions with nothing pushed.
type modelFunc struct {
	entry  uint64
	n      int    // instructions
	framed bool   // else frameless
	frame  uint64 // F: locals (amd64), or the whole frame with the LR slot (arm64)
	flag   symtab.FuncFlag
}

const modelInst = 4

func (f *modelFunc) end() uint64         { return f.entry + uint64(f.n)*modelInst }
func (f *modelFunc) pc(i int) uint64     { return f.entry + uint64(i)*modelInst }
func (f *modelFunc) returnAddr() uint64  { return f.pc(6) } // after the CALL at 5
func (f *modelFunc) index(pc uint64) int { return int((pc - f.entry) / modelInst) }

// spDelta is what the pclntab says after instruction i-1, at instruction i.
func (f *modelFunc) spDelta(arch wire.Arch, i int) int32 {
	if !f.framed {
		return 0
	}
	if arch == wire.ArchAMD64 {
		switch {
		case i <= 1 || i == 9:
			return 0
		case i == 2 || i == 3 || i == 8:
			return 8
		}
		return int32(8 + f.frame)
	}
	if i <= 1 || i == 9 {
		return 0
	}
	return int32(f.frame)
}

type model struct {
	arch  wire.Arch
	funcs []*modelFunc
}

func newModel(rng *rand.Rand, arch wire.Arch) *model {
	m := &model{arch: arch}
	pc := uint64(0x401000)
	for i := range 24 {
		f := &modelFunc{entry: pc, framed: i < 16}
		f.n = 6
		if f.framed {
			f.n = 10
			f.frame = 8 * uint64(rng.IntN(8))
			if arch == wire.ArchARM64 {
				f.frame = 16 + 16*uint64(rng.IntN(6))
			}
		}
		switch {
		case i == 20:
			f.flag = symtab.FuncFlagTopFrame | symtab.FuncFlagAsm
		case i == 21:
			f.flag = symtab.FuncFlagSPWrite | symtab.FuncFlagAsm
		case i >= 18:
			f.flag = symtab.FuncFlagAsm // plain NOFRAME assembly: fixable
		}
		m.funcs = append(m.funcs, f)
		pc = f.end() + 16*uint64(rng.IntN(3)) // padding between functions
	}
	return m
}

func (m *model) find(pc uint64) *modelFunc {
	for _, f := range m.funcs {
		if pc >= f.entry && pc < f.end() {
			return f
		}
	}
	return nil
}

// Code for LeafCaller.
func (m *model) Func(pc uint64) (Func, bool) {
	f := m.find(pc)
	if f == nil {
		return Func{}, false
	}
	return Func{Name: "f", Entry: f.entry, End: f.end(), Flag: f.flag}, true
}

func (m *model) SPDelta(pc uint64) (int32, bool) {
	f := m.find(pc)
	if f == nil || (pc-f.entry)%modelInst != 0 {
		return 0, false
	}
	return f.spDelta(m.arch, f.index(pc)), true
}

func (m *model) CallBefore(ra uint64) (bool, bool) {
	f := m.find(ra - 1)
	return f != nil && f.framed && ra == f.returnAddr(), true
}

// machine is the state a sample sees.
type machine struct {
	mem        map[uint64]uint64
	sp, fp, lr uint64
}

func (mc *machine) push(v uint64) { mc.sp -= 8; mc.mem[mc.sp] = v }

// run builds the stack of a chain of framed callers (outermost first), each
// stopped in its call, and the innermost function stopped before
// instruction at. It returns the machine and the true stack, leaf first.
func (m *model) run(rng *rand.Rand, chain []*modelFunc, leaf *modelFunc, at int) (*machine, []uint64) {
	mc := &machine{mem: map[uint64]uint64{}, sp: 0xc000100000}
	const rootRA = 0x400ff0 // into code that is not in the model: the walk ends there
	truth := []uint64{rootRA}
	ra := uint64(rootRA)
	for _, f := range chain {
		m.enter(mc, f, ra, 5) // stopped at its CALL
		ra = f.returnAddr()
		truth = append(truth, ra)
	}
	m.enter(mc, leaf, ra, at)
	slices.Reverse(truth)
	return mc, append([]uint64{leaf.pc(at)}, truth...)
}

// enter executes f's instructions before index at, f having been called
// with return address ra.
func (m *model) enter(mc *machine, f *modelFunc, ra uint64, at int) {
	if m.arch == wire.ArchAMD64 {
		mc.push(ra)
		if !f.framed {
			return
		}
		steps := []func(){
			func() {},                   // stack check
			func() { mc.push(mc.fp) },   // PUSHQ BP
			func() { mc.fp = mc.sp },    // MOVQ SP, BP
			func() { mc.sp -= f.frame }, // SUBQ
			func() {},                   // body
			func() {},                   // CALL: the callee pushes
			func() {},                   // body
			func() { mc.sp += f.frame }, // ADDQ
			func() { mc.fp = mc.mem[mc.sp]; mc.sp += 8 }, // POPQ BP
		}
		for i := 0; i < at && i < len(steps); i++ {
			steps[i]()
		}
		return
	}
	mc.lr = ra
	if !f.framed {
		return
	}
	steps := []func(){
		func() {},
		func() { mc.sp -= f.frame; mc.mem[mc.sp] = mc.lr }, // MOVD.W R30, -F(RSP)
		func() { mc.mem[mc.sp-8] = mc.fp },                 // MOVD R29, -8(RSP)
		func() { mc.fp = mc.sp - 8 },                       // SUB $8, RSP, R29
		func() { mc.lr = 0xdead0000 },                      // body: calls clobber LR
		func() {},                                          // CALL
		func() { mc.lr = 0xdead0001 },                      // body
		func() { mc.fp = mc.mem[mc.sp-8] },                 // MOVD -8(RSP), R29
		func() { mc.lr = mc.mem[mc.sp]; mc.sp += f.frame }, // MOVD.P F(RSP), R30
	}
	for i := 0; i < at && i < len(steps); i++ {
		steps[i]()
	}
}

// walk is the guest's frame-pointer walk from fp: each frame record holds
// the caller's fp and, one word up, a return address.
func (mc *machine) walk() []uint64 {
	var out []uint64
	for fp := mc.fp; fp != 0 && len(out) < 64; fp = mc.mem[fp] {
		out = append(out, mc.mem[fp+8])
	}
	return out
}

func TestLeafFixModel(t *testing.T) {
	for _, arch := range []wire.Arch{wire.ArchAMD64, wire.ArchARM64} {
		t.Run(arch.String(), func(t *testing.T) { testLeafFixModel(t, arch) })
	}
}

func testLeafFixModel(t *testing.T, arch wire.Arch) {
	rng := rand.New(rand.NewPCG(1, uint64(arch)))
	m := newModel(rng, arch)
	var framed []*modelFunc
	for _, f := range m.funcs {
		if f.framed {
			framed = append(framed, f)
		}
	}
	counts := map[FixResult]int{}
	for iter := range 20000 {
		chain := make([]*modelFunc, 1+rng.IntN(6))
		for i := range chain {
			chain[i] = framed[rng.IntN(len(framed))]
		}
		leaf := m.funcs[rng.IntN(len(m.funcs))]
		at := rng.IntN(leaf.n)
		mc, truth := m.run(rng, chain, leaf, at)
		rec := record.Record{Header: record.Header{TPID: record.TPSample, Flags: record.PC0Exact | record.StackFromInterrupt}}
		rec.Stack = append([]uint64{leaf.pc(at)}, mc.walk()...)
		lr := uint64(0)
		if arch == wire.ArchARM64 {
			lr = mc.lr
		}
		rec.Args = []uint64{mc.sp, mc.fp, lr, mc.mem[mc.sp], mc.mem[mc.sp+8], 1, 0, 0}
		got, res := FixStack(arch, m, &rec)
		counts[res]++
		switch {
		case leaf.flag&(symtab.FuncFlagTopFrame|symtab.FuncFlagSPWrite) != 0:
			if res == FixApplied {
				t.Fatalf("iter %d: fixed a TOPFRAME/SPWRITE function", iter)
			}
		case !slices.Equal(got, truth):
			t.Fatalf("iter %d (%v, leaf framed=%v at instruction %d): got %#x (%v), want %#x; raw %#x",
				iter, arch, leaf.framed, at, got, res, truth, rec.Stack)
		}
	}
	t.Logf("%v: %v", arch, counts)
	if counts[FixApplied] == 0 || counts[FixLinked] == 0 {
		t.Errorf("the model never exercised both outcomes: %v", counts)
	}
}

// TestLeafFixGarbage checks that words that are not return addresses are
// never inserted, whatever the registers say.
func TestLeafFixGarbage(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	for _, arch := range []wire.Arch{wire.ArchAMD64, wire.ArchARM64} {
		m := newModel(rng, arch)
		for range 20000 {
			f := m.funcs[rng.IntN(len(m.funcs))]
			r := Regs{PC: f.pc(rng.IntN(f.n)), SP: rng.Uint64(), FP: rng.Uint64(), LR: rng.Uint64(),
				W0: rng.Uint64(), W1: rng.Uint64()}
			if rng.IntN(2) == 0 { // an address in text, but not after a call
				r.W0 = m.funcs[rng.IntN(len(m.funcs))].pc(1)
				r.LR = r.W0
			}
			if ra, res := LeafCaller(arch, m, r); res == FixApplied {
				if ok, _ := m.CallBefore(ra); !ok {
					t.Fatalf("%v: inserted %#x, which follows no call", arch, ra)
				}
			}
		}
	}
}
