package signal

import "testing"

// FuzzSigreturn reads arbitrary bytes as the frames rt_sigreturn restores from: they are the
// program's memory and may hold anything. Reading never fails; what a read restores cannot
// touch the RFLAGS or PSTATE bits that stay the kernel's, nor block SIGKILL or SIGSTOP, nor
// give FXRSTOR reserved MXCSR bits; and reading is stable: a frame built from what was read
// reads back the same.
func FuzzSigreturn(f *testing.F) {
	var zero AMD64Context
	var fx [AMD64FPSize]byte
	l := PlaceAMD64(0x10000)
	seed := make([]byte, l.Size())
	PutAMD64(seed, l, &zero, &fx, Saved{Mask: ^Set(0)}, 0x1234)
	f.Add(seed)
	al := PlaceARM64(0x10000)
	aseed := make([]byte, al.Size())
	var c ARM64Context
	var v [64]uint64
	PutARM64(aseed, al, &c, &v, Saved{Mask: 1})
	f.Add(aseed)
	f.Add([]byte{})
	f.Fuzz(func(t *testing.T, data []byte) {
		const size = ARM64FrameSize // the larger of the two
		b := make([]byte, size)
		copy(b, data)

		// amd64
		var c AMD64Context
		mask, _ := ReadAMD64(b[:AMD64FrameSize], &c)
		var th Thread
		th.SetMask(mask)
		if th.Mask&Unblockable != 0 {
			t.Fatalf("restored mask %#x blocks SIGKILL or SIGSTOP", th.Mask)
		}
		const kernelFlags = rflagsIF | 2 | 3<<12
		if got := AMD64RestoredFlags(kernelFlags, c.RFLAGS); got&^amd64SigreturnFlags != kernelFlags || got&rflagsIF == 0 {
			t.Fatalf("restored RFLAGS %#x from %#x changes the kernel's bits", got, c.RFLAGS)
		}
		var fx [AMD64FPSize]byte
		RestoreFX(&fx, b[:AMD64FPSize])
		if fx[amd64FPMXCSR+2] != 0 || fx[amd64FPMXCSR+3] != 0 {
			t.Fatalf("restored MXCSR keeps reserved bits")
		}
		l := PlaceAMD64(0x100000)
		out := make([]byte, l.Size())
		PutAMD64(out, l, &c, &fx, Saved{Mask: mask}, 0)
		var c2 AMD64Context
		if mask2, fp := ReadAMD64(out[:AMD64FrameSize], &c2); c2 != c || mask2 != mask || fp != l.FPState {
			t.Fatalf("amd64: rebuilt frame reads %+v %#x, want %+v %#x", c2, mask2, c, mask)
		}

		// arm64
		var a ARM64Context
		var v [64]uint64
		amask, fp := ReadARM64(b, &a, &v)
		const kernelPstate = 0x3c4 // EL1t, DAIF
		if got := ARM64RestoredPstate(kernelPstate, a.Pstate); got&^arm64PstateNZCV != kernelPstate {
			t.Fatalf("restored PSTATE %#x from %#x changes the kernel's bits", got, a.Pstate)
		}
		if !fp && (a.FPSR != 0 || a.FPCR != 0 || v != [64]uint64{}) {
			t.Fatalf("arm64: FP state read from a frame without fpsimd_context")
		}
		al := PlaceARM64(0x100000)
		aout := make([]byte, al.Size())
		PutARM64(aout, al, &a, &v, Saved{Mask: amask})
		var a2 ARM64Context
		var v2 [64]uint64
		if amask2, fp2 := ReadARM64(aout[:ARM64FrameSize], &a2, &v2); a2 != a || v2 != v || amask2 != amask || !fp2 {
			t.Fatalf("arm64: rebuilt frame reads %+v %#x, want %+v %#x", a2, amask2, a, amask)
		}
	})
}

// FuzzAMD64XState reads arbitrary bytes as the FP state rt_sigreturn finds at fpstate with AVX
// on: the size it reads is one of the two it knows, and what it restores is either the YMM
// component's bytes or zeros.
func FuzzAMD64XState(f *testing.F) {
	l := PlaceAMD64XState(0x10000)
	seed := make([]byte, l.Size())
	var fx [AMD64FPSize]byte
	var ymm [AMD64YMMHiSize]byte
	ymm[3] = 9
	PutAMD64(seed, l, &AMD64Context{}, &fx, Saved{}, 0)
	PutAMD64XState(seed, l, &ymm)
	f.Add(seed[l.FPState-l.Base:])
	f.Add([]byte{})
	f.Fuzz(func(t *testing.T, data []byte) {
		x := make([]byte, amd64XFrameFPSize)
		copy(x, data)
		n := AMD64XStateSize(x[:AMD64FPSize])
		if n != AMD64FPSize && n != amd64XFrameFPSize {
			t.Fatalf("AMD64XStateSize = %d", n)
		}
		var got [AMD64YMMHiSize]byte
		RestoreYMMHi(&got, x[:n])
		if got != [AMD64YMMHiSize]byte{} && string(got[:]) != string(x[amd64YMMHi:amd64XStateSize]) {
			t.Fatal("restored bytes that are neither the component's nor zeros")
		}
	})
}
