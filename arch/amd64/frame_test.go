package amd64

import (
	"testing"
	"unsafe"
)

// TestFrameLayout pins what go_asm.h cannot know: the order in which the CPU pushes the
// hardware part (SDM vol. 3A §6.14.1), the stub's vector and error code words before it, and a
// size that keeps FX 16-byte aligned for FXSAVE.
func TestFrameLayout(t *testing.T) {
	var f Frame
	size := unsafe.Sizeof(f)
	if size%16 != 0 {
		t.Fatalf("Frame is %d bytes, not a multiple of 16: FXSAVE would fault", size)
	}
	if off := unsafe.Offsetof(f.FX); off != 0 {
		t.Errorf("FX at offset %d, want 0 (16-byte aligned at the frame base)", off)
	}
	tail := []uintptr{unsafe.Offsetof(f.Vector), unsafe.Offsetof(f.ErrorCode), unsafe.Offsetof(f.RIP),
		unsafe.Offsetof(f.CS), unsafe.Offsetof(f.RFLAGS), unsafe.Offsetof(f.RSP), unsafe.Offsetof(f.SS)}
	for i, off := range tail {
		if want := size - uintptr(len(tail)-i)*8; off != want {
			t.Errorf("tail word %d at offset %d, want %d", i, off, want)
		}
	}
}

func TestInitFX(t *testing.T) {
	var f Frame
	f.FX[100] = 1
	f.InitFX()
	if fcw := uint16(f.FX[0]) | uint16(f.FX[1])<<8; fcw != 0x037f {
		t.Errorf("FCW = %#x, want 0x37f", fcw)
	}
	if mxcsr := uint32(f.FX[24]) | uint32(f.FX[25])<<8; mxcsr != 0x1f80 {
		t.Errorf("MXCSR = %#x, want 0x1f80", mxcsr)
	}
	if f.FX[100] != 0 {
		t.Error("InitFX left old state behind")
	}
}

// The kernel stack header must match the first words of runtime.g, which the compiler's stack
// checks read, and leave the usable stack 16-byte aligned.
func TestKernelStackHeader(t *testing.T) {
	if kstackLo%16 != 0 {
		t.Errorf("kstackLo = %d, not 16-byte aligned", kstackLo)
	}
	if kstackSize&(kstackSize-1) != 0 {
		t.Errorf("kstackSize %d is not a power of two: the stubs mask RSP with it", kstackSize)
	}
	if kstackTLS < 4*8 {
		t.Error("TLS slot overlaps the stand-in g's stack bounds")
	}
}
