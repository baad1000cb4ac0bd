package amd64

import "testing"

func TestTSSDescriptor(t *testing.T) {
	lo, hi := tssDescriptor(0x1122334455667788)
	// limit 103, base bits 0-23 at 16, type 0x89 at 40, base 24-31 at 56, base 32-63 in hi.
	if want := uint64(103) | 0x667788<<16 | 0x89<<40 | 0x55<<56; lo != want {
		t.Errorf("lo = %#x, want %#x", lo, want)
	}
	if hi != 0x11223344 {
		t.Errorf("hi = %#x, want 0x11223344", hi)
	}
}

func TestIDTGate(t *testing.T) {
	lo, hi := idtGate(0xffffffff81234567, 2)
	if want := uint64(0x4567) | KernelCS<<16 | 2<<32 | 0x8e<<40 | 0x8123<<48; lo != want {
		t.Errorf("lo = %#x, want %#x", lo, want)
	}
	if hi != 0xffffffff {
		t.Errorf("hi = %#x", hi)
	}
}

func TestISTFor(t *testing.T) {
	cases := map[int]uint8{0: istException, 2: istNMI, 8: istDoubleFault, 14: istException, 18: istMachineChk, 32: istIRQ, 0xe0: istIRQ, VectorSampler: istSampler, VectorBreakpoint: istBreakpoint, 255: istIRQ}
	for v, want := range cases {
		if got := istFor(v); got != want {
			t.Errorf("istFor(%d) = %d, want %d", v, got, want)
		}
	}
}

func TestPseudoDescriptor(t *testing.T) {
	var p [16]byte
	putPseudoDescriptor(&p, 0x0102030405060708, 0x0fff)
	want := []byte{0xff, 0x0f, 8, 7, 6, 5, 4, 3, 2, 1}
	for i, b := range want {
		if p[i] != b {
			t.Fatalf("byte %d = %#x, want %#x", i, p[i], b)
		}
	}
}

func TestPutTSSIST(t *testing.T) {
	var tss [104]byte
	putTSSIST(&tss, 1, 0x1000)
	putTSSIST(&tss, 7, 0x2000)
	if tss[36] != 0 || tss[37] != 0x10 {
		t.Errorf("IST1 bytes %x", tss[36:44])
	}
	if tss[36+6*8+1] != 0x20 {
		t.Errorf("IST7 bytes %x", tss[84:92])
	}
}
