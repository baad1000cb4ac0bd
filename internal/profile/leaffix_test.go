package profile

import (
	"testing"

	"github.com/unitrace/unitrace/trace/record"
	"github.com/unitrace/unitrace/trace/wire"
)

// leafCase is one machine state in the real program and what the fix must
// make of it.
type leafCase struct {
	name string
	regs Regs
	want uint64 // the return address to insert
	res  FixResult
}

func checkLeafCases(t *testing.T, arch wire.Arch, im *Image, cases []leafCase) {
	t.Helper()
	for _, c := range cases {
		ra, res := LeafCaller(arch, im, c.regs)
		if res != c.res || ra != c.want {
			t.Errorf("%s: LeafCaller = %#x, %v; want %#x, %v", c.name, ra, res, c.want, c.res)
		}
	}
}

// funcPC returns the entry of a runtime function of the image.
func funcPC(t *testing.T, im *Image, name string) uint64 {
	t.Helper()
	fs := im.FuncsNamed(name)
	if len(fs) == 0 {
		t.Fatalf("no %s in the image", name)
	}
	return fs[0].Entry
}

func TestLeafCallerAMD64(t *testing.T) {
	p := program(t, "amd64")
	im := image(t, p)
	raMid := p.ReturnAddress("main.mid", "main.leaf")
	raOuter := p.ReturnAddress("main.outer", "main.mid")
	raMiddle := p.ReturnAddress("main.middle", "main.asmleaf")
	leaf := p.Func("main.leaf")
	mid := p.Func("main.mid")
	push := p.Find("main.mid", "PUSHQ BP")
	mov := p.Find("main.mid", "MOVQ SP, BP")
	call := p.Find("main.mid", "CALL")
	add := p.Find("main.mid", "ADDQ $0x8, SP")
	pop := p.Find("main.mid", "POPQ BP")
	ret := p.Find("main.mid", "RET")
	const sp, bp = 0xc000040e00, 0xc000040f80 // bp: a caller's frame
	cases := []leafCase{
		{"frameless leaf", Regs{PC: leaf.Entry + 4, SP: sp, FP: bp, W0: raMid}, raMid, FixApplied},
		{"leaf's last instruction", Regs{PC: p.Find("main.leaf", "RET").PC, SP: sp, FP: bp, W0: raMid}, raMid, FixApplied},
		{"mid at entry", Regs{PC: mid.Entry, SP: sp, FP: bp, W0: raOuter}, raOuter, FixApplied},
		{"mid at PUSHQ BP", Regs{PC: push.PC, SP: sp, FP: bp, W0: raOuter}, raOuter, FixApplied},
		{"mid after PUSHQ BP", Regs{PC: mov.PC, SP: sp, FP: bp, W0: bp, W1: raOuter}, raOuter, FixApplied},
		{"mid linked", Regs{PC: call.PC, SP: sp, FP: sp + 8, W0: 1, W1: 2}, 0, FixLinked},
		{"mid after ADDQ, linked", Regs{PC: pop.PC, SP: sp, FP: sp, W0: bp, W1: raOuter}, 0, FixLinked},
		{"mid after POPQ BP", Regs{PC: ret.PC, SP: sp, FP: bp, W0: raOuter}, raOuter, FixApplied},
		{"mid's morestack path", Regs{PC: ret.PC + 1, SP: sp, FP: bp, W0: raOuter}, raOuter, FixApplied},
		{"mid with a clobbered RBP", Regs{PC: add.PC, SP: sp, FP: 4, W0: 1, W1: 2}, 0, FixOutOfReach},
		{"assembly leaf", Regs{PC: p.Func("main.asmleaf").Entry + 8, SP: sp, FP: bp, W0: raMiddle}, raMiddle, FixApplied},
		{"[sp] is not code", Regs{PC: leaf.Entry, SP: sp, FP: bp, W0: 0x4}, 0, FixNotText},
		{"[sp] is zero", Regs{PC: leaf.Entry, SP: sp, FP: bp}, 0, FixNotText},
		{"[sp] follows no call", Regs{PC: leaf.Entry, SP: sp, FP: bp, W0: mid.Entry + 1}, 0, FixNotCall},
		{"assembly, [sp] follows no call", Regs{PC: p.Func("main.asmleaf").Entry, SP: sp, FP: bp, W0: mid.Entry + 3}, 0, FixNotCall},
		{"pc in no function", Regs{PC: 0x10, SP: sp, W0: raMid}, 0, FixUnknownPC},
		{"top frame", Regs{PC: funcPC(t, im, "runtime.goexit"), SP: sp, W0: raMid}, 0, FixTopFrame},
		{"SP-writing", Regs{PC: funcPC(t, im, "runtime.morestack"), SP: sp, W0: raMid}, 0, FixSPWrite},
	}
	checkLeafCases(t, wire.ArchAMD64, im, cases)
	if _, res := LeafCaller(wire.ArchUnknown, im, cases[0].regs); res != FixUnknownArch {
		t.Errorf("unknown arch: %v", res)
	}
}

func TestLeafCallerARM64(t *testing.T) {
	p := program(t, "arm64")
	im := image(t, p)
	if im.Arch != wire.ArchARM64 {
		t.Fatalf("arch %v", im.Arch)
	}
	raMid := p.ReturnAddress("main.mid", "main.leaf")
	raOuter := p.ReturnAddress("main.outer", "main.mid")
	raMiddle := p.ReturnAddress("main.middle", "main.asmleaf")
	mid := p.Func("main.mid")
	save := p.Find("main.mid", "MOVD.W R30")
	fpSave := p.Find("main.mid", "MOVD R29, -8(RSP)")
	call := p.Find("main.mid", "CALL")
	restore := p.Find("main.mid", "MOVD.P")
	ret := p.Find("main.mid", "RET")
	const sp, fp = 0xc000040e00, 0xc000040f80
	const junk = 0xdeadbeef // x30 after a call in the body
	cases := []leafCase{
		{"frameless leaf: LR", Regs{PC: p.Func("main.leaf").Entry + 8, SP: sp, FP: fp, LR: raMid, W0: junk}, raMid, FixApplied},
		{"mid at entry: LR", Regs{PC: mid.Entry, SP: sp, FP: fp, LR: raOuter}, raOuter, FixApplied},
		{"mid at MOVD.W: LR", Regs{PC: save.PC, SP: sp, FP: fp, LR: raOuter}, raOuter, FixApplied},
		{"mid after MOVD.W: [sp]", Regs{PC: fpSave.PC, SP: sp, FP: fp, LR: junk, W0: raOuter}, raOuter, FixApplied},
		{"mid linked", Regs{PC: call.PC, SP: sp, FP: sp - 8, LR: junk, W0: raOuter}, 0, FixLinked},
		{"mid after restoring R29: [sp]", Regs{PC: restore.PC, SP: sp, FP: fp, LR: junk, W0: raOuter}, raOuter, FixApplied},
		{"mid at RET: LR", Regs{PC: ret.PC, SP: sp, FP: fp, LR: raOuter, W0: junk}, raOuter, FixApplied},
		{"assembly leaf: LR", Regs{PC: p.Func("main.asmleaf").Entry + 4, SP: sp, FP: fp, LR: raMiddle}, raMiddle, FixApplied},
		{"LR follows no call", Regs{PC: mid.Entry, SP: sp, FP: fp, LR: mid.Entry + 8}, 0, FixNotCall},
		{"LR not code", Regs{PC: mid.Entry, SP: sp, FP: fp, LR: junk}, 0, FixNotText},
		{"top frame", Regs{PC: funcPC(t, im, "runtime.goexit"), SP: sp, LR: raMid}, 0, FixTopFrame},
	}
	checkLeafCases(t, wire.ArchARM64, im, cases)
}

// TestFixStack checks the record-level entry point and its refusals.
func TestFixStack(t *testing.T) {
	p := program(t, "amd64")
	im := image(t, p)
	raMid := p.ReturnAddress("main.mid", "main.leaf")
	raOuter := p.ReturnAddress("main.outer", "main.mid")
	pc := p.Func("main.leaf").Entry
	mk := func(flags record.Flags, stack ...uint64) *record.Record {
		return &record.Record{Header: record.Header{TPID: record.TPSample, Flags: flags},
			Args: []uint64{0xc000001000, 0xc000002000, 0, raMid, 0, 1, 0, 0}, Stack: stack}
	}
	exact := record.PC0Exact | record.StackFromInterrupt
	got, res := FixStack(wire.ArchAMD64, im, mk(exact, pc, raOuter))
	if res != FixApplied || len(got) != 3 || got[0] != pc || got[1] != raMid || got[2] != raOuter {
		t.Errorf("FixStack = %#x, %v", got, res)
	}
	for _, c := range []struct {
		name string
		rec  *record.Record
		res  FixResult
	}{
		{"no PC0_EXACT", mk(record.StackFromInterrupt, pc, raOuter), FixNoTrapFrame},
		{"no interrupt frame", mk(exact|record.NoInterruptFrame, pc, raOuter), FixNoTrapFrame},
		{"empty stack", mk(exact), FixUnknownPC},
		{"zero pc", mk(exact, 0), FixUnknownPC},
		{"not a sample", &record.Record{Header: record.Header{TPID: 16, Flags: exact}, Stack: []uint64{pc}}, FixNoTrapFrame},
	} {
		r := c.rec
		before := append([]uint64(nil), r.Stack...)
		got, res := FixStack(wire.ArchAMD64, im, r)
		if res != c.res || len(got) != len(before) {
			t.Errorf("%s: %#x, %v; want the stack unchanged, %v", c.name, got, res, c.res)
		}
	}
}
