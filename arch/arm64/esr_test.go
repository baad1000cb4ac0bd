package arm64

import "testing"

// Syndromes as QEMU reports them (some observed in the arm64 smoke test),
// decoded by hand from the Arm ARM's ESR_EL1 description.
func TestESRDecode(t *testing.T) {
	for _, c := range []struct {
		name    string
		esr     uint64
		class   uint32
		kind    FaultKind
		level   int
		write   bool
		fetch   bool
		svcImm  uint16
		isAbort bool
	}{
		{"svc #0", 0x5600_0000, ECSVC64, FaultOther, -1, false, false, 0, false},
		{"svc #0x1234", 0x5600_1234, ECSVC64, FaultOther, -1, false, false, 0x1234, false},
		{"brk #0x77", 0xf200_0077, ECBRK64, FaultOther, -1, false, false, 0x77, false},
		{"read, translation L3", 0x9600_0007, ECDataAbort, FaultTranslation, 3, false, false, 7, true},
		{"write, translation L0", 0x9600_0044, ECDataAbort, FaultTranslation, 0, true, false, 0x44, true},
		{"write, permission L3", 0x9600_004f, ECDataAbort, FaultPermission, 3, true, false, 0x4f, true},
		{"unaligned exclusive", 0x9600_0021, ECDataAbort, FaultAlignment, -1, false, false, 0x21, true},
		{"cache maintenance", 0x9600_0146, ECDataAbort, FaultTranslation, 2, false, false, 0x146, true},
		{"access flag L2", 0x9600_000a, ECDataAbort, FaultAccessFlag, 2, false, false, 0xa, true},
		{"address size L1", 0x9600_0001, ECDataAbort, FaultAddressSize, 1, false, false, 1, true},
		{"external", 0x9600_0010, ECDataAbort, FaultExternal, -1, false, false, 0x10, true},
		{"external on walk L1", 0x9600_0015, ECDataAbort, FaultExternal, 1, false, false, 0x15, true},
		{"tlb conflict", 0x9600_0030, ECDataAbort, FaultOther, -1, false, false, 0x30, true},
		{"fetch, translation L3", 0x8600_0007, ECInstrAbort, FaultTranslation, 3, false, true, 7, true},
		{"fetch from EL0", 0x8200_000f, ECInstrAbortLower, FaultPermission, 3, false, true, 0xf, true},
		{"write from EL0", 0x9200_0047, ECDataAbortLower, FaultTranslation, 3, true, false, 0x47, true},
		{"undefined (HLT)", 0x0200_0000, ECUnknown, FaultOther, -1, false, false, 0, false},
		{"fp access", 0x1fe0_0000, ECFPAccess, FaultOther, -1, false, false, 0, false},
	} {
		if got := ESRClass(c.esr); got != c.class {
			t.Errorf("%s: class %#x, want %#x", c.name, got, c.class)
		}
		kind, level := AbortFault(c.esr)
		if kind != c.kind || level != c.level {
			t.Errorf("%s: AbortFault = %v, %d; want %v, %d", c.name, kind, level, c.kind, c.level)
		}
		if got := AbortIsWrite(c.esr); got != c.write {
			t.Errorf("%s: AbortIsWrite = %v", c.name, got)
		}
		if got := AbortIsFetch(c.esr); got != c.fetch {
			t.Errorf("%s: AbortIsFetch = %v", c.name, got)
		}
		if got := IsAbort(c.esr); got != c.isAbort {
			t.Errorf("%s: IsAbort = %v", c.name, got)
		}
		if got := SVCImmediate(c.esr); got != c.svcImm {
			t.Errorf("%s: SVCImmediate = %#x, want %#x", c.name, got, c.svcImm)
		}
	}
	if ESRISS(0xffff_ffff_ffff_ffff) != esrISSMask {
		t.Error("ESRISS keeps bits above 24")
	}
	if FaultKind(99).String() != "invalid" || FaultPermission.String() != "permission" {
		t.Error("FaultKind names")
	}
}

// FuzzESR decodes arbitrary syndromes: nothing panics, and the answers agree with each other.
func FuzzESR(f *testing.F) {
	for _, esr := range []uint64{0x5600_0000, 0x9600_0047, 0x8600_000f, 0x9600_0021, 0, ^uint64(0)} {
		f.Add(esr)
	}
	f.Fuzz(func(t *testing.T, esr uint64) {
		class := ESRClass(esr)
		if class > 0x3f {
			t.Fatalf("class %#x", class)
		}
		kind, level := AbortFault(esr)
		if !IsAbort(esr) && (kind != FaultOther || level != -1) {
			t.Fatalf("%#x: not an abort but AbortFault = %v, %d", esr, kind, level)
		}
		if level < -1 || level > 3 {
			t.Fatalf("%#x: level %d", esr, level)
		}
		if AbortIsWrite(esr) && (AbortIsFetch(esr) || !IsAbort(esr)) {
			t.Fatalf("%#x: a write that is a fetch or no abort", esr)
		}
		_ = kind.String()
	})
}
