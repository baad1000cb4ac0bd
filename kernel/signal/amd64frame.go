package signal

import "encoding/binary"

// The x86-64 signal frame, as Linux builds it (arch/x86/kernel/signal_64.c, x64_setup_rt_frame)
// and the Go runtime's handler reads it (runtime/defs_linux_amd64.go, signal_linux_amd64.go):
//
//	Base+0    rt_sigframe.pretcode: sa_restorer, the handler's return address
//	Base+8    rt_sigframe.uc, struct ucontext: uc_flags, uc_link, uc_stack,
//	          uc_mcontext (struct sigcontext, 256 bytes), uc_sigmask
//	Base+312  rt_sigframe.info, siginfo_t (128 bytes)
//	FPState   the FP state, 64-byte aligned, above the rest; sigcontext.fpstate points at it:
//	          the FXSAVE image (struct _fpstate_64, 512 bytes) when the kernel keeps the SSE
//	          state only, or with AVX on the XSAVE area (amd64xstate.go) that begins with it

// struct rt_sigframe (arch/x86/include/asm/sigframe.h, 64-bit). The Go runtime does not declare
// it (its handler gets &info and &uc as arguments), so these are pinned by TestAMD64FramePins.
const (
	amd64Pretcode  = 0                     // pretcode
	amd64Uc        = 8                     // uc
	amd64Info      = amd64Uc + amd64UcSize // info: 312
	AMD64FrameSize = amd64Info + InfoSize  // what rt_sigreturn reads: 440
)

// Where a frame goes, and its FP state.
const (
	// AMD64RedZone is how many bytes below RSP a leaf function may use (System V x86-64 ABI
	// §3.2.2): a frame goes below them.
	AMD64RedZone = 128

	// AMD64FPSize is the FXSAVE image, sizeof(struct _fpstate_64)
	// (arch/x86/include/uapi/asm/sigcontext.h; the Go runtime's fpstate, TestAMD64Layout).
	AMD64FPSize  = 512
	amd64FPMXCSR = 24 // _fpstate_64.mxcsr

	// amd64FPAlign is the FP state's alignment: Linux's, which XSAVE needs
	// (arch/x86/kernel/fpu/signal.c, fpu__alloc_mathframe).
	amd64FPAlign = 64

	// amd64MXCSRKeep are the MXCSR bits kept from a frame: bits 16-31 are reserved on every CPU
	// (Intel SDM vol. 1 §10.2.3).
	amd64MXCSRKeep = 0xffff
)

// struct ucontext (include/uapi/asm-generic/ucontext.h, as arch/x86/include/uapi/asm/ucontext.h
// uses it): the Go runtime's ucontext up to uc_sigmask, TestAMD64Layout. The runtime's type
// goes on with glibc's 1024-bit mask; the kernel's sigset_t is SigsetSize bytes and ends it.
const (
	amd64UcFlags    = 0                             // uc_flags
	amd64UcLink     = 8                             // uc_link
	amd64UcStack    = 16                            // uc_stack
	amd64UcMcontext = 40                            // uc_mcontext
	amd64UcSigmask  = amd64UcMcontext + amd64ScSize // uc_sigmask: 296
	amd64UcSize     = amd64UcSigmask + SigsetSize   // 304
)

// struct sigcontext (arch/x86/include/uapi/asm/sigcontext.h, the __x86_64__ one): the Go
// runtime's sigcontext, field by field, TestAMD64Layout.
const (
	amd64ScR8      = 0   // r8
	amd64ScR9      = 8   // r9
	amd64ScR10     = 16  // r10
	amd64ScR11     = 24  // r11
	amd64ScR12     = 32  // r12
	amd64ScR13     = 40  // r13
	amd64ScR14     = 48  // r14
	amd64ScR15     = 56  // r15
	amd64ScRDI     = 64  // rdi
	amd64ScRSI     = 72  // rsi
	amd64ScRBP     = 80  // rbp
	amd64ScRBX     = 88  // rbx
	amd64ScRDX     = 96  // rdx
	amd64ScRAX     = 104 // rax
	amd64ScRCX     = 112 // rcx
	amd64ScRSP     = 120 // rsp
	amd64ScRIP     = 128 // rip
	amd64ScEflags  = 136 // eflags
	amd64ScCS      = 144 // cs (u16)
	amd64ScSS      = 150 // __pad0 (u16), where Linux keeps ss for UC_SIGCONTEXT_SS
	amd64ScErr     = 152 // err
	amd64ScTrapno  = 160 // trapno
	amd64ScOldmask = 168 // oldmask
	amd64ScCR2     = 176 // cr2
	amd64ScFpstate = 184 // fpstate
	amd64ScSize    = 256 // with reserved1[8]
)

// RFLAGS bits (Intel SDM vol. 1 §3.4.3; arch/x86/include/uapi/asm/processor-flags.h).
const (
	rflagsCF = 1 << 0
	rflagsPF = 1 << 2
	rflagsAF = 1 << 4
	rflagsZF = 1 << 6
	rflagsSF = 1 << 7
	rflagsTF = 1 << 8
	rflagsIF = 1 << 9
	rflagsDF = 1 << 10
	rflagsOF = 1 << 11
	rflagsNT = 1 << 14
	rflagsRF = 1 << 16
	rflagsAC = 1 << 18
	rflagsID = 1 << 21
)

// amd64SigreturnFlags are the RFLAGS bits rt_sigreturn takes from the frame: Linux's FIX_EFLAGS
// (arch/x86/include/asm/sighandling.h: AC OF DF TF SF ZF AF PF CF RF), and NT and ID as well.
// The others, IF above all, stay as the kernel has them.
const amd64SigreturnFlags = rflagsCF | rflagsPF | rflagsAF | rflagsZF | rflagsSF | rflagsTF |
	rflagsDF | rflagsOF | rflagsAC | rflagsRF | rflagsNT | rflagsID

// AMD64Context is what an x86-64 signal frame saves of the interrupted thread besides its FP
// state: the registers of struct sigcontext, named as there.
type AMD64Context struct {
	R8, R9, R10, R11, R12, R13, R14, R15 uint64
	RDI, RSI, RBP, RBX, RDX, RAX, RCX    uint64
	RSP, RIP, RFLAGS                     uint64
	CS, SS                               uint16
	Err, Trapno, CR2                     uint64 // the trap's error code, vector and fault address
}

// AMD64Frame is where one x86-64 signal frame lies: the rt_sigframe at Base, the FP state at
// FPState (FPSize bytes: the FXSAVE image, or the XSAVE area), the whole of it in
// [Base, FPState+FPSize).
type AMD64Frame struct {
	Base, FPState, FPSize uintptr
}

// PlaceAMD64 lays a frame with an FXSAVE image out below top (AltStack.FrameTop, with
// AMD64RedZone below the stack pointer): the FP state 64-byte aligned right under top, the
// rt_sigframe under it, its base 8 below a 16-byte boundary, as a call leaves the stack at a
// function's entry (System V ABI §3.2.2), since the handler starts as if called with pretcode as
// its return address.
func PlaceAMD64(top uintptr) AMD64Frame { return placeAMD64(top, AMD64FPSize) }

// PlaceAMD64XState lays a frame out as PlaceAMD64 does, with room for the XSAVE area
// (PutAMD64XState).
func PlaceAMD64XState(top uintptr) AMD64Frame { return placeAMD64(top, amd64XFrameFPSize) }

func placeAMD64(top, fpSize uintptr) AMD64Frame {
	fp := (top - fpSize) &^ (amd64FPAlign - 1)
	return AMD64Frame{Base: ((fp - AMD64FrameSize) &^ 15) - 8, FPState: fp, FPSize: fpSize}
}

// Size is the number of bytes the frame takes from Base.
func (l AMD64Frame) Size() uintptr { return l.FPState + l.FPSize - l.Base }

// PutAMD64 builds the frame l in b, its l.Size() bytes at l.Base: the context c, the FP state
// fx, what s says, and restorer as the handler's return address.
func PutAMD64(b []byte, l AMD64Frame, c *AMD64Context, fx *[AMD64FPSize]byte, s Saved, restorer uint64) {
	b = b[:l.Size()]
	for i := range b {
		b[i] = 0
	}
	copy(b[l.FPState-l.Base:], fx[:])
	binary.LittleEndian.PutUint64(b[amd64Pretcode:], restorer)

	uc := b[amd64Uc : amd64Uc+amd64UcSize]
	PutStack(uc[amd64UcStack:], s.Stack)
	binary.LittleEndian.PutUint64(uc[amd64UcSigmask:], uint64(s.Mask))

	mc := uc[amd64UcMcontext : amd64UcMcontext+amd64ScSize]
	le := binary.LittleEndian
	le.PutUint64(mc[amd64ScR8:], c.R8)
	le.PutUint64(mc[amd64ScR9:], c.R9)
	le.PutUint64(mc[amd64ScR10:], c.R10)
	le.PutUint64(mc[amd64ScR11:], c.R11)
	le.PutUint64(mc[amd64ScR12:], c.R12)
	le.PutUint64(mc[amd64ScR13:], c.R13)
	le.PutUint64(mc[amd64ScR14:], c.R14)
	le.PutUint64(mc[amd64ScR15:], c.R15)
	le.PutUint64(mc[amd64ScRDI:], c.RDI)
	le.PutUint64(mc[amd64ScRSI:], c.RSI)
	le.PutUint64(mc[amd64ScRBP:], c.RBP)
	le.PutUint64(mc[amd64ScRBX:], c.RBX)
	le.PutUint64(mc[amd64ScRDX:], c.RDX)
	le.PutUint64(mc[amd64ScRAX:], c.RAX)
	le.PutUint64(mc[amd64ScRCX:], c.RCX)
	le.PutUint64(mc[amd64ScRSP:], c.RSP)
	le.PutUint64(mc[amd64ScRIP:], c.RIP)
	le.PutUint64(mc[amd64ScEflags:], c.RFLAGS)
	le.PutUint16(mc[amd64ScCS:], c.CS)
	le.PutUint16(mc[amd64ScSS:], c.SS)
	le.PutUint64(mc[amd64ScErr:], c.Err)
	le.PutUint64(mc[amd64ScTrapno:], c.Trapno)
	le.PutUint64(mc[amd64ScOldmask:], uint64(s.Mask))
	le.PutUint64(mc[amd64ScCR2:], c.CR2)
	le.PutUint64(mc[amd64ScFpstate:], uint64(l.FPState))

	putInfo(b[amd64Info:amd64Info+InfoSize], s.Info)
}

// Call is how the handler of sig at handler starts on the frame: System V's arguments (sig,
// &info, &uc) and the stack at Base, with pretcode as the return address.
func (l AMD64Frame) Call(sig int, handler uint64) Call {
	return Call{
		PC:   handler,
		SP:   uint64(l.Base),
		Sig:  uint64(sig),
		Info: uint64(l.Base + amd64Info),
		Uc:   uint64(l.Base + amd64Uc),
	}
}

// AMD64HandlerFlags is RFLAGS for a handler entered from a context with rflags: the direction
// and trap flags clear, as the ABI and Linux want a function entered.
func AMD64HandlerFlags(rflags uint64) uint64 { return rflags &^ (rflagsDF | rflagsTF) }

// AMD64FrameAt returns where rt_sigreturn finds the frame of a thread at sp: the handler's RET
// popped pretcode, so the frame starts 8 bytes below.
func AMD64FrameAt(sp uintptr) uintptr { return sp - 8 }

// ReadAMD64 reads what rt_sigreturn restores from the first AMD64FrameSize bytes of a frame, as
// the handler left them: the registers into c, the mask to restore, and where the FXSAVE image
// is (0: none). The bytes are the program's and may hold anything.
func ReadAMD64(b []byte, c *AMD64Context) (mask Set, fpstate uintptr) {
	uc := b[amd64Uc : amd64Uc+amd64UcSize]
	mc := uc[amd64UcMcontext : amd64UcMcontext+amd64ScSize]
	le := binary.LittleEndian
	*c = AMD64Context{
		R8: le.Uint64(mc[amd64ScR8:]), R9: le.Uint64(mc[amd64ScR9:]),
		R10: le.Uint64(mc[amd64ScR10:]), R11: le.Uint64(mc[amd64ScR11:]),
		R12: le.Uint64(mc[amd64ScR12:]), R13: le.Uint64(mc[amd64ScR13:]),
		R14: le.Uint64(mc[amd64ScR14:]), R15: le.Uint64(mc[amd64ScR15:]),
		RDI: le.Uint64(mc[amd64ScRDI:]), RSI: le.Uint64(mc[amd64ScRSI:]),
		RBP: le.Uint64(mc[amd64ScRBP:]), RBX: le.Uint64(mc[amd64ScRBX:]),
		RDX: le.Uint64(mc[amd64ScRDX:]), RAX: le.Uint64(mc[amd64ScRAX:]),
		RCX: le.Uint64(mc[amd64ScRCX:]), RSP: le.Uint64(mc[amd64ScRSP:]),
		RIP: le.Uint64(mc[amd64ScRIP:]), RFLAGS: le.Uint64(mc[amd64ScEflags:]),
		CS: le.Uint16(mc[amd64ScCS:]), SS: le.Uint16(mc[amd64ScSS:]),
		Err: le.Uint64(mc[amd64ScErr:]), Trapno: le.Uint64(mc[amd64ScTrapno:]),
		CR2: le.Uint64(mc[amd64ScCR2:]),
	}
	return Set(le.Uint64(uc[amd64UcSigmask:])), uintptr(le.Uint64(mc[amd64ScFpstate:]))
}

// RestoreFX copies the FXSAVE image src (AMD64FPSize bytes the program left at fpstate) into
// fx, with MXCSR's reserved upper half cleared: FXRSTOR faults on any of those bits, and it
// would fault in the kernel.
func RestoreFX(fx *[AMD64FPSize]byte, src []byte) {
	copy(fx[:], src[:AMD64FPSize])
	m := fx[amd64FPMXCSR : amd64FPMXCSR+4]
	binary.LittleEndian.PutUint32(m, binary.LittleEndian.Uint32(m)&amd64MXCSRKeep)
}

// AMD64RestoredFlags is RFLAGS after rt_sigreturn, from the kernel's rflags and the frame's
// saved ones: the bits a program may change (amd64SigreturnFlags) come from saved, the others
// stay, and interrupts are on.
func AMD64RestoredFlags(rflags, saved uint64) uint64 {
	return rflags&^amd64SigreturnFlags | saved&amd64SigreturnFlags | rflagsIF
}
