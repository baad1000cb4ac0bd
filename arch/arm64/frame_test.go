package arm64

import (
	"testing"
	"unsafe"
)

// TestFrameLayout pins what the stubs rely on beyond go_asm.h's offsets: x0-x30 first and in
// order, so every STP/LDP offset stays within the instruction's reach (504) and x0/x1 are at
// the Frame's base; the Q area 16-byte aligned and within FSTPQ/FLDPQ's reach of SP (1008); and
// a size that keeps SP 16-byte aligned and fits the SUB/ADD immediate the stubs encode.
func TestFrameLayout(t *testing.T) {
	var f Frame
	size := unsafe.Sizeof(f)
	if size%16 != 0 {
		t.Errorf("Frame is %d bytes, not a multiple of 16: SP alignment checks would fault", size)
	}
	for i := range f.X {
		if off := unsafe.Offsetof(f.X) + uintptr(i)*8; off != uintptr(i)*8 {
			t.Errorf("x%d at offset %d, want %d", i, off, i*8)
		}
	}
	if last := unsafe.Offsetof(f.X) + 30*8; last > 504 {
		t.Errorf("x30 at offset %d: beyond STP/LDP's reach", last)
	}
	q := unsafe.Offsetof(f.Q)
	if q%16 != 0 {
		t.Errorf("Q at offset %d, not 16-byte aligned", q)
	}
	if end := q + 30*16; end > 1008 {
		t.Errorf("q30 at offset %d: beyond FSTPQ/FLDPQ's reach", end)
	}
	if len(f.Q) != 64 {
		t.Errorf("Q holds %d words, want 64 (q0-q31)", len(f.Q))
	}
	for _, c := range []struct {
		name string
		off  uintptr
	}{
		{"SavedSP", unsafe.Offsetof(f.SavedSP)}, {"ELR", unsafe.Offsetof(f.ELR)},
		{"SPSR", unsafe.Offsetof(f.SPSR)}, {"ESR", unsafe.Offsetof(f.ESR)},
		{"FAR", unsafe.Offsetof(f.FAR)}, {"Kind", unsafe.Offsetof(f.Kind)},
		{"Prev", unsafe.Offsetof(f.Prev)}, {"FPCR", unsafe.Offsetof(f.FPCR)},
		{"FPSR", unsafe.Offsetof(f.FPSR)}, {"Jump", unsafe.Offsetof(f.Jump)},
	} {
		// MOVD's scaled 12-bit offset reaches 32760; keep them well inside.
		if c.off%8 != 0 || c.off > 4095 {
			t.Errorf("%s at offset %d", c.name, c.off)
		}
	}
	if trapReserve%16 != 0 || trapReserve >= 4096 {
		t.Errorf("trapReserve = %d: SUB_SP/ADD_SP need a 16-byte multiple below 4096", trapReserve)
	}
	if frameGap < 16 {
		t.Errorf("frameGap = %d: Go keeps its frame pointer at SP-8", frameGap)
	}
}

// TestKinds pins the VBAR_EL1 order (Arm ARM D1.10.2): the stub at offset Kind*0x80.
func TestKinds(t *testing.T) {
	for _, c := range []struct {
		kind, offset int
	}{
		{KindSyncEL1t, 0x000}, {KindIRQEL1t, 0x080}, {KindFIQEL1t, 0x100}, {KindSErrorEL1t, 0x180},
		{KindSyncEL1h, 0x200}, {KindIRQEL1h, 0x280}, {KindFIQEL1h, 0x300}, {KindSErrorEL1h, 0x380},
		{KindSyncLower, 0x400}, {NumKinds, 0x800},
	} {
		if c.kind*0x80 != c.offset {
			t.Errorf("kind %d at vector offset %#x, want %#x", c.kind, c.kind*0x80, c.offset)
		}
	}
	for k := uint64(0); k < NumKinds; k++ {
		f := Frame{Kind: k}
		if got, want := f.FromThread(), k < 4; got != want {
			t.Errorf("kind %d: FromThread = %v", k, got)
		}
		if got, want := f.IsIRQ(), k == KindIRQEL1t || k == KindIRQEL1h; got != want {
			t.Errorf("kind %d: IsIRQ = %v", k, got)
		}
	}
}

func TestFrameAccessors(t *testing.T) {
	f := Frame{ELR: 0x1000, SavedSP: 0x2000}
	f.X[29], f.X[30] = 0x3000, 0x4000
	if f.PC() != 0x1000 || f.SP() != 0x2000 || f.FP() != 0x3000 || f.LR() != 0x4000 {
		t.Errorf("accessors: pc %#x sp %#x fp %#x lr %#x", f.PC(), f.SP(), f.FP(), f.LR())
	}
	if InitialSPSR&SPSRModeMask != SPSRModeEL1t || InitialSPSR&(SPSRD|SPSRA|SPSRI|SPSRF) != 0 {
		t.Errorf("InitialSPSR = %#x: want EL1t with nothing masked", InitialSPSR)
	}
	// trapReturn picks the way back by SPSR.M[0]: SP_EL0 (EL1t) or SP_EL1 (EL1h).
	if SPSRModeEL1t&1 != 0 || SPSRModeEL1h&1 != 1 {
		t.Error("SPSR.M[0] no longer tells EL1t from EL1h")
	}
}

// The kernel stack header must match the first words of runtime.g, which the compiler's stack
// checks read, leave the usable stack 16-byte aligned, and let the stubs find it by masking SP.
func TestKernelStackHeader(t *testing.T) {
	if kstackLo%16 != 0 || kstackLo < 4*8 {
		t.Errorf("kstackLo = %d: must be 16-byte aligned and above the g's four words", kstackLo)
	}
	if kstackSize&(kstackSize-1) != 0 {
		t.Errorf("kstackSize %d is not a power of two: the stubs mask SP with it", kstackSize)
	}
	// CMP takes the room as a 12-bit immediate shifted by 12.
	if kstackTrapRoom%4096 != 0 || kstackTrapRoom>>12 > 4095 || kstackTrapRoom >= kstackSize {
		t.Errorf("kstackTrapRoom = %d", kstackTrapRoom)
	}
	if kstackTrapRoom < trapReserve+kstackLo+stackGuard {
		t.Errorf("kstackTrapRoom = %d leaves no room for a Frame and the handler", kstackTrapRoom)
	}
	var c CPU
	if unsafe.Offsetof(c.Self) != 0 {
		t.Error("CPU.Self is not at offset 0")
	}
}
