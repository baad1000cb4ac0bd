package profiletest

import (
	"fmt"

	"github.com/unitrace/unitrace/trace/record"
	"github.com/unitrace/unitrace/trace/wire"
)

// Scenario is a recording of the amd64 program with known answers. The
// stacks are what the guest's sampler records: the interrupted pc, then the
// frame-pointer chain from the interrupted RBP, with SP, RBP and the words
// at [SP] and [SP+8].
type Scenario struct {
	Prog *Program
	Rec  Recording
	// Want maps a folded stack (root first, leaf fix applied, inline
	// frames expanded) to its samples.
	Want map[string]int
	// WantRaw is the same without the leaf fix.
	WantRaw map[string]int
	// LeafPCs counts the exact pcs of the samples in main.leaf.
	LeafPCs map[uint64]int
	Idle    int // idle samples, hidden by default
	Lost    int // LOST records' count (all the CPU's records are samples)
	Fixed   int // samples the leaf fix changes
}

// Counts of the scenario's samples.
const (
	NLeaf      = 60 // main.leaf, frameless: the chain skips main.mid
	NLeafCPU1  = 8  // the same on CPU 1, thread 2
	NMidLinked = 10 // main.mid after its prologue: nothing to fix
	NMidEntry  = 5  // main.mid's first instruction: the chain skips main.outer
	NMidPush   = 3  // main.mid after PUSHQ BP, before MOVQ SP, BP
	NAsm       = 20 // main.asmleaf (NOFRAME assembly) under main.middle
	NInline    = 4  // main.inl inlined into main.withInline
	NNoStack   = 1
	NInexact   = 2 // no exception frame: the walk's own stack, no fix
	NIdle      = 3
	NLost      = 4
)

// NewScenario builds the scenario for an amd64 build of the program. The
// HOST frame names image (the program's path when empty).
func NewScenario(p *Program, image string) *Scenario {
	if p.Arch != "amd64" {
		panic("profiletest: the scenario is for amd64")
	}
	if image == "" {
		image = p.Path
	}
	raMainOuter := p.ReturnAddress("main.main", "main.outer")
	raOuterMid := p.ReturnAddress("main.outer", "main.mid")
	raMidLeaf := p.ReturnAddress("main.mid", "main.leaf")
	raMainMiddle := p.ReturnAddress("main.main", "main.middle")
	raMiddleAsm := p.ReturnAddress("main.middle", "main.asmleaf")
	raMainWith := p.ReturnAddress("main.main", "main.withInline")

	sc := &Scenario{Prog: p, Want: map[string]int{}, WantRaw: map[string]int{}, LeafPCs: map[uint64]int{}}
	sc.Rec = Recording{Image: image, BuildID: BuildID, Accel: "tcg", Arch: wire.ArchAMD64}
	ns := uint64(1_000_000)
	add := func(cpu uint16, tid uint32, s Sample, want, raw string) {
		s.CPU, s.TID, s.Ns = cpu, tid, ns
		ns += 1_000_000
		sc.Rec.Samples = append(sc.Rec.Samples, s)
		if s.Idle {
			sc.Idle++
			return
		}
		sc.Want[want]++
		sc.WantRaw[raw]++
		if want != raw {
			sc.Fixed++
		}
	}
	// Stack addresses: main.main's frame, then each callee's below it.
	const sp0 = 0xc000040f00
	bpMain := uint64(sp0 + 0x60)

	leafCode := p.Code("main.leaf")
	for i := range NLeaf + NLeafCPU1 {
		in := leafCode[i%len(leafCode)]
		cpu, tid := uint16(0), uint32(1)
		if i >= NLeaf {
			cpu, tid = 1, 2
		}
		bpMid := uint64(sp0 - 0x40)
		add(cpu, tid, Sample{SP: bpMid - 16, FP: bpMid, W0: raMidLeaf, W1: 0x1234, Stack: []uint64{in.PC, raOuterMid, raMainOuter}},
			"main.main;main.outer;main.mid;main.leaf", "main.main;main.outer;main.leaf")
		sc.LeafPCs[in.PC]++
	}
	// main.mid with its frame linked: SUBQ $8 done, so SP delta 16 and
	// RBP = SP+8. The chain's first word is mid's own return address.
	call := p.Find("main.mid", "CALL")
	for range NMidLinked {
		sp := uint64(sp0 - 0x50)
		add(0, 1, Sample{SP: sp, FP: sp + 8, W0: 7, W1: 8, Stack: []uint64{call.PC, raOuterMid, raMainOuter}},
			"main.main;main.outer;main.mid", "main.main;main.outer;main.mid")
	}
	// main.mid at its entry: RBP is still outer's, [SP] the return address.
	entry := p.Func("main.mid").Entry
	bpOuter := uint64(sp0 - 0x20)
	for range NMidEntry {
		add(0, 1, Sample{SP: bpOuter - 0x30, FP: bpOuter, W0: raOuterMid, Stack: []uint64{entry, raMainOuter}},
			"main.main;main.outer;main.mid", "main.main;main.mid")
	}
	// main.mid between PUSHQ BP and MOVQ SP, BP: [SP] is outer's RBP,
	// [SP+8] the return address.
	mov := p.Find("main.mid", "MOVQ SP, BP")
	for range NMidPush {
		add(0, 1, Sample{SP: bpOuter - 0x38, FP: bpOuter, W0: bpOuter, W1: raOuterMid, Stack: []uint64{mov.PC, raMainOuter}},
			"main.main;main.outer;main.mid", "main.main;main.mid")
	}
	// The assembly leaf: the chain starts at middle's frame, whose return
	// address is into main.main.
	asm := p.Code("main.asmleaf")
	bpMiddle := uint64(sp0 - 0x18)
	for i := range NAsm {
		add(0, 1, Sample{SP: bpMiddle - 0x18, FP: bpMiddle, W0: raMiddleAsm, Stack: []uint64{asm[i%len(asm)].PC, raMainMiddle}},
			"main.main;main.middle;main.asmleaf", "main.main;main.asmleaf")
	}
	// main.inl inlined into main.withInline, frame linked.
	inlPC := p.InlinedPC("main.withInline", "main.inl")
	for range NInline {
		sp := uint64(sp0 - 0x30)
		add(0, 1, Sample{SP: sp, FP: sp + 16, Stack: []uint64{inlPC, raMainWith}},
			"main.main;main.withInline;main.inl", "main.main;main.withInline;main.inl")
	}
	for range NNoStack {
		add(0, 1, Sample{SP: sp0}, "[no stack]", "[no stack]")
	}
	// No exception frame: the sampler walked from its own frame, so the
	// stack is return addresses only.
	for range NInexact {
		add(0, 1, Sample{Flags: record.StackFromInterrupt | record.NoInterruptFrame, SP: sp0, FP: bpMain,
			W0: raMidLeaf, Stack: []uint64{raOuterMid, raMainOuter}},
			"main.main;main.outer", "main.main;main.outer")
	}
	for range NIdle {
		add(0, 1, Sample{Idle: true, SP: sp0}, "", "")
	}
	// The sampler slowed down halfway; 4 records were lost on CPU 0.
	sc.Rec.Events = append(sc.Rec.Events, Event{CPU: 0, Ns: 40_500_000, Old: 1000, New: 500},
		Event{CPU: 0, Ns: 50_500_000, Lost: NLost})
	sc.Lost = NLost
	return sc
}

// Total is the number of samples the views show by default.
func (sc *Scenario) Total() int {
	n := 0
	for _, v := range sc.Want {
		n += v
	}
	return n
}

// String lists the expected stacks, for test failures.
func (sc *Scenario) String() string {
	return fmt.Sprint(sc.Want)
}
