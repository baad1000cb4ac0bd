package unwind

import (
	"testing"

	"github.com/unitrace/unitrace/symtab"
)

// The table step's arithmetic, both architectures' rules (chain_test.go walks with it).

func TestTableSlot(t *testing.T) {
	const spw, top = symtab.FuncFlagSPWrite, symtab.FuncFlagTopFrame
	cases := []struct {
		name           string
		rule           stepRule
		d              int32
		flag           symtab.FuncFlag
		sp             uintptr
		leaf           bool
		addr, callerSP uintptr
		inLR, ok       bool
	}{
		{"amd64 big frame", ruleAMD64, 0x220, 0, 0x8000, true, 0x8220, 0x8228, false, true},
		{"amd64 frameless", ruleAMD64, 0, 0, 0x8000, true, 0x8000, 0x8008, false, true},
		{"amd64 frameless, not the leaf", ruleAMD64, 0, 0, 0x8000, false, 0x8000, 0x8008, false, true},
		{"arm64 big frame", ruleARM64, 0x220, 0, 0x8000, true, 0x8000, 0x8220, false, true},
		{"arm64 frameless leaf", ruleARM64, 0, 0, 0x8000, true, 0, 0x8000, true, true},
		{"arm64 frameless, not the leaf", ruleARM64, 0, 0, 0x8000, false, 0, 0x8000, true, false},
		{"SPWRITE", ruleAMD64, 0x40, spw, 0x8000, true, 0, 0, false, false},
		{"top frame", ruleARM64, 0x10, top, 0x8000, true, 0, 0, false, false},
		{"negative delta", ruleAMD64, -8, 0, 0x8000, true, 0, 0, false, false},
		{"amd64 wraps", ruleAMD64, 0x220, 0, ^uintptr(0) - 0x10, true, 0, 0, false, false},
		{"arm64 wraps", ruleARM64, 0x220, 0, ^uintptr(0) - 0x10, true, 0, 0, false, false},
	}
	for _, c := range cases {
		addr, callerSP, inLR, ok := tableSlot(c.rule, c.d, c.flag, c.sp, c.leaf)
		if ok != c.ok || (ok && (addr != c.addr || callerSP != c.callerSP || inLR != c.inLR)) {
			t.Errorf("%s: %#x %#x %v %v, want %#x %#x %v %v", c.name, addr, callerSP, inLR, ok, c.addr, c.callerSP, c.inLR, c.ok)
		}
	}
}

func TestCallerRecord(t *testing.T) {
	cases := []struct {
		name     string
		rule     stepRule
		d        int32
		callerSP uintptr
		fp       uintptr
		ok       bool
	}{
		{"amd64 caller with a frame", ruleAMD64, 0x30, 0x8000, 0x8028, true},
		{"amd64 frameless caller", ruleAMD64, 0, 0x8000, 0, false},
		{"arm64 caller with a frame", ruleARM64, 0x30, 0x8000, 0x7ff8, true},
		{"arm64 frameless caller", ruleARM64, 0, 0x8000, 0, false},
		{"arm64 at the bottom", ruleARM64, 0x30, 4, 0, false},
		{"amd64 wraps", ruleAMD64, 0x30, ^uintptr(0) - 8, 0, false},
	}
	for _, c := range cases {
		fp, ok := callerRecord(c.rule, c.d, c.callerSP)
		if ok != c.ok || ok && fp != c.fp {
			t.Errorf("%s: %#x %v, want %#x %v", c.name, fp, ok, c.fp, c.ok)
		}
	}
}

func TestLinked(t *testing.T) {
	cases := []struct {
		name   string
		rule   stepRule
		d      int32
		sp, fp uintptr
		want   bool
	}{
		{"amd64 after the prologue", ruleAMD64, 0x28, 0x8000, 0x8020, true},
		{"amd64 frameless", ruleAMD64, 0, 0x8000, 0x9000, false},
		{"amd64 pushed, not yet linked", ruleAMD64, 8, 0x8000, 0x9000, false},
		{"amd64 frame pointer used for data", ruleAMD64, 0x228, 0x8000, 0x6a09e667f3bcc908, false},
		{"arm64 after the prologue", ruleARM64, 0x30, 0x8000, 0x7ff8, true},
		{"arm64 frameless", ruleARM64, 0, 0x8000, 0x7ff8, false},
		{"arm64 x29 used for data", ruleARM64, 0x30, 0x8000, 0x1234, false},
	}
	for _, c := range cases {
		if got := linked(c.rule, c.d, c.sp, c.fp); got != c.want {
			t.Errorf("%s: %v, want %v", c.name, got, c.want)
		}
	}
}

func TestCallerSPFromRecord(t *testing.T) {
	if sp, ok := callerSPFromRecord(ruleAMD64, 0x8000, 0); !ok || sp != 0x8010 {
		t.Errorf("amd64: %#x %v, want 0x8010", sp, ok)
	}
	if sp, ok := callerSPFromRecord(ruleARM64, 0x7ff8, 0x30); !ok || sp != 0x8030 {
		t.Errorf("arm64: %#x %v, want 0x8030", sp, ok)
	}
	if _, ok := callerSPFromRecord(ruleARM64, 0x7ff8, 0); ok {
		t.Error("arm64 callee without a frame: an SP")
	}
}
