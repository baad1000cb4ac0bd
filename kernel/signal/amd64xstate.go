package signal

import "encoding/binary"

// With AVX on, the x86-64 signal frame's FP state is an XSAVE area in the standard format, as
// Linux writes it for a process whose XCR0 is x87|SSE|AVX (arch/x86/kernel/fpu/signal.c,
// arch/x86/include/uapi/asm/sigcontext.h):
//
//	+0    the FXSAVE image (512 bytes); its sw_reserved bytes (+464, struct _fpx_sw_bytes)
//	      say an XSAVE area follows: magic1, extended_size, xfeatures, xstate_size
//	+512  the XSAVE header (64 bytes): xstate_bv, the components saved in a non-initial state
//	+576  YMM_Hi128: the upper halves of YMM0-YMM15 (256 bytes; its offset is CPUID
//	      leaf 0xd, sub-leaf 2's EBX on every CPU with AVX)
//	+832  FP_XSTATE_MAGIC2, the end marker
//
// and uc_flags has UC_FP_XSTATE. rt_sigreturn takes the YMM state back only when both magics
// are there and the sizes are these; otherwise, as Linux, it takes the FXSAVE image alone and
// the upper halves come back zero.
const (
	amd64FPXSW           = 464        // _fpstate_64.sw_reserved
	amd64FPXSWMagic1     = 0x46505853 // FP_XSTATE_MAGIC1
	amd64FPXSWMagic2     = 0x46505845 // FP_XSTATE_MAGIC2
	amd64XHeader         = 512        // the XSAVE header's xstate_bv
	amd64YMMHi           = 576        // the YMM_Hi128 component
	AMD64YMMHiSize       = 256
	amd64XStateSize      = amd64YMMHi + AMD64YMMHiSize // 832: XSAVE's size for x87|SSE|AVX
	amd64XFrameFPSize    = amd64XStateSize + 4         // with magic2: _fpx_sw_bytes.extended_size
	amd64XFeatures       = 1<<0 | 1<<1 | 1<<2          // x87, SSE, AVX (XCR0)
	amd64XFeatureAVX     = 1 << 2
	amd64UcFlagFPXState  = 0x1 // UC_FP_XSTATE
	amd64FPXSWSize       = 48  // sizeof(struct _fpx_sw_bytes)
	amd64FPXSWExtended   = 4   // its extended_size
	amd64FPXSWXFeatures  = 8   // its xfeatures
	amd64FPXSWXStateSize = 16  // its xstate_size
)

// PutAMD64XState makes the FP state of the frame l (laid out by PlaceAMD64XState, its FXSAVE
// image already written by PutAMD64) an XSAVE area holding ymmHi, the upper halves of
// YMM0-YMM15. b is the frame's bytes from l.Base.
func PutAMD64XState(b []byte, l AMD64Frame, ymmHi *[AMD64YMMHiSize]byte) {
	le := binary.LittleEndian
	fp := b[l.FPState-l.Base : l.FPState-l.Base+amd64XFrameFPSize]
	sw := fp[amd64FPXSW : amd64FPXSW+amd64FPXSWSize]
	clear(sw)
	le.PutUint32(sw, amd64FPXSWMagic1)
	le.PutUint32(sw[amd64FPXSWExtended:], amd64XFrameFPSize)
	le.PutUint64(sw[amd64FPXSWXFeatures:], amd64XFeatures)
	le.PutUint32(sw[amd64FPXSWXStateSize:], amd64XStateSize)
	clear(fp[amd64XHeader:amd64YMMHi])
	le.PutUint64(fp[amd64XHeader:], amd64XFeatures)
	copy(fp[amd64YMMHi:], ymmHi[:])
	le.PutUint32(fp[amd64XStateSize:], amd64FPXSWMagic2)
	uc := b[amd64Uc:]
	le.PutUint64(uc[amd64UcFlags:], le.Uint64(uc[amd64UcFlags:])|amd64UcFlagFPXState)
}

// AMD64XStateSize returns how many bytes of FP state rt_sigreturn reads at fpstate, from its
// FXSAVE image fx (AMD64FPSize bytes, as the handler left them): the XSAVE area's when its
// sw_reserved bytes describe the one PutAMD64XState writes, else the FXSAVE image's.
func AMD64XStateSize(fx []byte) uintptr {
	le := binary.LittleEndian
	sw := fx[amd64FPXSW : amd64FPXSW+amd64FPXSWSize]
	if le.Uint32(sw) != amd64FPXSWMagic1 || le.Uint32(sw[amd64FPXSWExtended:]) != amd64XFrameFPSize ||
		le.Uint32(sw[amd64FPXSWXStateSize:]) != amd64XStateSize ||
		le.Uint64(sw[amd64FPXSWXFeatures:])&^amd64XFeatures != 0 {
		return AMD64FPSize
	}
	return amd64XFrameFPSize
}

// RestoreYMMHi sets ymmHi from the FP state x that rt_sigreturn read (AMD64XStateSize bytes):
// the saved upper halves if x is a whole XSAVE area that holds them, zero otherwise (an FXSAVE
// image only, a missing end marker, or YMM in its initial state, as xstate_bv says).
func RestoreYMMHi(ymmHi *[AMD64YMMHiSize]byte, x []byte) {
	le := binary.LittleEndian
	if uintptr(len(x)) < amd64XFrameFPSize || le.Uint32(x[amd64XStateSize:]) != amd64FPXSWMagic2 ||
		le.Uint64(x[amd64XHeader:])&amd64XFeatureAVX == 0 {
		clear(ymmHi[:])
		return
	}
	copy(ymmHi[:], x[amd64YMMHi:amd64XStateSize])
}
