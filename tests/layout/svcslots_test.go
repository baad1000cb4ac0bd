package layout

import (
	"encoding/binary"
	"strconv"
	"strings"
	"testing"

	"golang.org/x/arch/arm64/arm64asm"

	"github.com/unitrace/unitrace/arch/arm64"
)

// TestSVCSlots checks arm64's system-call slots (arch/arm64/svc.go) as linked: the kernel
// branches a rewritten call site to svcSlots + k*SVCSlotBytes and the slot must then put k in
// x0, so the table must be NumSVCSlots slots of that size, slot k loading k.
func TestSVCSlots(t *testing.T) {
	im := openImage(t, build(t, "arm64", "examples/hello"))
	sym, err := im.symbol(module + "/arch/arm64.svcSlots.abi0")
	if err != nil {
		sym, err = im.symbol(module + "/arch/arm64.svcSlots")
	}
	if err != nil {
		t.Fatal(err)
	}
	want := uint64(arm64.NumSVCSlots * arm64.SVCSlotBytes)
	if sym.Size != want {
		t.Fatalf("svcSlots is %d bytes, want %d", sym.Size, want)
	}
	words, err := im.words(sym.Value, int(want/8))
	if err != nil {
		t.Fatal(err)
	}
	code := make([]byte, want)
	for i, w := range words {
		binary.LittleEndian.PutUint64(code[8*i:], w)
	}
	for k := 0; k < arm64.NumSVCSlots; k++ {
		at := k * arm64.SVCSlotBytes
		if v, ok := loadsX0(code[at+16:]); !ok || v != uint64(k) {
			t.Errorf("slot %d (at %#x): its fifth instruction does not load %d into x0", k, sym.Value+uint64(at), k)
		}
	}
}

// loadsX0 returns the constant the instruction at code moves into x0, as the assembler encodes
// MOVD $k, R0: MOV from XZR, ORR with XZR (a bitmask immediate) or MOVZ.
func loadsX0(code []byte) (uint64, bool) {
	inst, err := arm64asm.Decode(code)
	if err != nil || inst.Args[0] == nil || inst.Args[0].String() != "X0" || inst.Args[1] == nil {
		return 0, false
	}
	var imm string
	switch {
	case inst.Op == arm64asm.MOV && inst.Args[1].String() == "XZR":
		return 0, true
	case inst.Op == arm64asm.ORR && inst.Args[1].String() == "XZR" && inst.Args[2] != nil:
		imm = inst.Args[2].String()
	case inst.Op == arm64asm.MOVZ || inst.Op == arm64asm.MOV:
		imm = inst.Args[1].String()
	default:
		return 0, false
	}
	v, err := strconv.ParseUint(strings.TrimPrefix(imm, "#"), 0, 64)
	return v, err == nil
}
