package amd64

import "testing"

// TestYMMHiLayout: Frame.YMMHi and the signal frame's XSAVE area put YMM_Hi128 at offset 576,
// 256 bytes, as the standard XSAVE format does on every CPU with AVX: CPUID leaf 0xd,
// sub-leaf 2 reports its size (EAX) and offset (EBX). Checked on this host's CPU.
func TestYMMHiLayout(t *testing.T) {
	if !hasAVX() {
		t.Skip("this CPU has no AVX")
	}
	size, off, _, _ := cpuid(0xd, 2)
	if size != 256 || off != 576 {
		t.Errorf("CPUID.(0xd,2): YMM_Hi128 is %d bytes at %d, want 256 at 576", size, off)
	}
	var f Frame
	if len(f.YMMHi) != int(size) {
		t.Errorf("Frame.YMMHi is %d bytes, want %d", len(f.YMMHi), size)
	}
}
