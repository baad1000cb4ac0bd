package signal

import (
	"encoding/binary"
	"testing"
)

// TestAMD64XState: a frame with the XSAVE area gives rt_sigreturn back the upper halves it
// holds; a frame whose markers or sizes the handler changed, or whose xstate_bv says YMM is in
// its initial state, gives zeros, as Linux's fallback to the FXSAVE image does.
func TestAMD64XState(t *testing.T) {
	l := PlaceAMD64XState(0x10000)
	if l.FPState%64 != 0 || l.FPState+amd64XFrameFPSize > 0x10000 || l.Base%16 != 8 {
		t.Fatalf("layout %+v", l)
	}
	var ymm [AMD64YMMHiSize]byte
	for i := range ymm {
		ymm[i] = byte(i*7 + 1)
	}
	var fx [AMD64FPSize]byte
	fx[amd64FPMXCSR] = 0x80
	fresh := func() []byte {
		b := make([]byte, l.Size())
		PutAMD64(b, l, &AMD64Context{}, &fx, Saved{}, 0)
		PutAMD64XState(b, l, &ymm)
		return b
	}
	fp := func(b []byte) []byte { return b[l.FPState-l.Base:] }

	b := fresh()
	if got := binary.LittleEndian.Uint64(b[amd64Uc+amd64UcFlags:]); got&amd64UcFlagFPXState == 0 {
		t.Errorf("uc_flags = %#x, want UC_FP_XSTATE", got)
	}
	if fp(b)[amd64FPMXCSR] != 0x80 {
		t.Error("the FXSAVE image was overwritten")
	}
	n := AMD64XStateSize(fp(b)[:AMD64FPSize])
	if n != amd64XFrameFPSize {
		t.Fatalf("AMD64XStateSize = %d, want %d", n, amd64XFrameFPSize)
	}
	var got [AMD64YMMHiSize]byte
	RestoreYMMHi(&got, fp(b)[:n])
	if got != ymm {
		t.Error("the upper halves did not come back")
	}

	for _, c := range []struct {
		name  string
		at    int
		value uint32
	}{
		{"magic1", amd64FPXSW, 0},
		{"extended_size", amd64FPXSW + amd64FPXSWExtended, 4096},
		{"xstate_size", amd64FPXSW + amd64FPXSWXStateSize, 512},
		{"magic2", amd64XStateSize, 0},
		{"xstate_bv", amd64XHeader, 3},
	} {
		b := fresh()
		binary.LittleEndian.PutUint32(fp(b)[c.at:], c.value)
		got[0] = 1
		RestoreYMMHi(&got, fp(b)[:AMD64XStateSize(fp(b)[:AMD64FPSize])])
		if got != [AMD64YMMHiSize]byte{} {
			t.Errorf("%s changed: the upper halves came back, want zeros", c.name)
		}
	}
}
