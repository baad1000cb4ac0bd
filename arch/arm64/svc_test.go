package arm64

import (
	"encoding/binary"
	"testing"

	"golang.org/x/arch/arm64/arm64asm"
)

func TestSVCBranchable(t *testing.T) {
	for _, c := range []struct {
		name string
		word uint32
		spsr uint64
		want bool
	}{
		{"svc #0 from a thread", SVCInstruction, SPSRModeEL1t, true},
		{"flags set", SVCInstruction, SPSRModeEL1t | 0xf000_0000, true},
		{"svc #1", SVCInstruction | 1<<5, SPSRModeEL1t, false},
		{"not svc", 0xd503201f, SPSRModeEL1t, false},
		{"from the kernel's own stack", SVCInstruction, SPSRModeEL1h, false},
		{"irqs masked", SVCInstruction, SPSRModeEL1t | SPSRI, false},
		{"single step", SVCInstruction, SPSRModeEL1t | SPSRSS, false},
	} {
		if got := SVCBranchable(c.word, c.spsr); got != c.want {
			t.Errorf("%s: SVCBranchable(%#x, %#x) = %v, want %v", c.name, c.word, c.spsr, got, c.want)
		}
	}
	// The syndrome a slot's Frame reports is what the decoder reads for an SVC #0.
	if ESRClass(svcESR) != ECSVC64 || SVCImmediate(svcESR) != 0 {
		t.Errorf("svcESR %#x: class %#x, immediate %d", svcESR, ESRClass(svcESR), SVCImmediate(svcESR))
	}
}

// TestBranchTo decodes the branches branchTo encodes and checks where they go.
func TestBranchTo(t *testing.T) {
	for _, c := range []struct {
		from, to uintptr
		ok       bool
	}{
		{0x4020_0000, 0x4020_0000, true},
		{0x4020_0000, 0x4030_0010, true},
		{0x4030_0010, 0x4020_0000, true},
		{0x4000_0000, 0x4000_0000 + branchReach - 4, true},
		{0x4800_0000, 0x4800_0000 - branchReach, true},
		{0x4000_0000, 0x4000_0000 + branchReach, false},
		{0x4800_0000, 0x4800_0000 - branchReach - 4, false},
		{0x4020_0002, 0x4020_0010, false},
		{0x4020_0000, 0x4020_0011, false},
	} {
		insn, ok := branchTo(c.from, c.to)
		if ok != c.ok {
			t.Errorf("branchTo(%#x, %#x): ok = %v, want %v", c.from, c.to, ok, c.ok)
			continue
		}
		if !ok {
			continue
		}
		var b [4]byte
		binary.LittleEndian.PutUint32(b[:], insn)
		inst, err := arm64asm.Decode(b[:])
		if err != nil || inst.Op != arm64asm.B {
			t.Errorf("branchTo(%#x, %#x) = %#x: decodes as %v (%v)", c.from, c.to, insn, inst, err)
			continue
		}
		off := int64(inst.Args[0].(arm64asm.PCRel))
		if got := uintptr(int64(c.from) + off); got != c.to {
			t.Errorf("branchTo(%#x, %#x) = %#x: branches to %#x", c.from, c.to, insn, got)
		}
	}
}

// TestClaimSVCSlot claims every slot and one more: each site's branch goes to its own slot, the
// slot's return address is the site's next instruction, and the last claim fails.
func TestClaimSVCSlot(t *testing.T) {
	saved, savedUsed := svcReturns, svcSlotsUsed
	defer func() { svcReturns, svcSlotsUsed = saved, savedUsed }()
	svcSlotsUsed = 0
	const slots, text = 0x4030_0000, 0x4040_0000
	for k := 0; k < NumSVCSlots; k++ {
		if !SVCSlotsLeft() {
			t.Fatalf("no slot left after %d", k)
		}
		site := uintptr(text + 64*k)
		insn, ok := claimSVCSlot(site, slots)
		if !ok {
			t.Fatalf("claim %d failed", k)
		}
		if want, _ := branchTo(site, slots+uintptr(k)*SVCSlotBytes); insn != want {
			t.Errorf("claim %d: %#x, want a branch to slot %d (%#x)", k, insn, k, want)
		}
		if svcReturns[k] != uint64(site)+4 {
			t.Errorf("slot %d returns to %#x, want %#x", k, svcReturns[k], site+4)
		}
	}
	if SVCSlotsLeft() || SVCSlotsUsed() != NumSVCSlots {
		t.Errorf("all claimed: left %v, used %d", SVCSlotsLeft(), SVCSlotsUsed())
	}
	if _, ok := claimSVCSlot(text, slots); ok {
		t.Error("a claim beyond the last slot succeeded")
	}
	svcSlotsUsed = 0
	if _, ok := claimSVCSlot(slots+branchReach+SVCSlotBytes*4, slots); ok || svcSlotsUsed != 0 {
		t.Error("a site out of the slots' reach was given one")
	}
}
