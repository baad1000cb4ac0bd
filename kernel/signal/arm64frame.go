package signal

import "encoding/binary"

// The arm64 signal frame, as Linux builds it (arch/arm64/kernel/signal.c, setup_rt_frame) and
// the Go runtime's handler reads it (runtime/defs_linux_arm64.go, signal_linux_arm64.go):
//
//	Base+0     rt_sigframe.info, siginfo_t (128 bytes)
//	Base+128   rt_sigframe.uc, struct ucontext: uc_flags, uc_link, uc_stack, uc_sigmask, padding
//	           to glibc's 1024-bit mask, then (16-aligned, at +176) uc_mcontext, struct
//	           sigcontext: fault_address, regs[31], sp, pc, pstate, __reserved[4096], which
//	           holds an fpsimd_context, an esr_context and the null record that ends the list
//	Base+4688  a struct frame_record {fp, lr} that x29 points at, so a frame-pointer walk goes
//	           from the handler into the interrupted code
//
// Everything fits in __reserved, so there is no extra_context; SVE is off, so no sve_context.

// struct rt_sigframe (arch/arm64/kernel/signal.c), and the frame record above it
// (setup_sigframe_layout's next_frame). The Go runtime declares neither, so these are pinned by
// TestARM64FramePins.
const (
	arm64Info       = 0                                // info
	arm64Uc         = InfoSize                         // uc: 128
	ARM64FrameSize  = arm64Uc + arm64UcSize            // what rt_sigreturn reads: 4688
	arm64Record     = ARM64FrameSize                   // the frame record
	arm64RecordSize = 16                               // struct frame_record {fp, lr}
	arm64Size       = ARM64FrameSize + arm64RecordSize // the bytes a frame takes
)

// ARM64BelowSP is how many bytes below the stack pointer a frame leaves alone: Go's arm64
// functions keep the caller's frame pointer at sp-8 for their whole body, live data below SP.
const ARM64BelowSP = 16

// struct ucontext (arch/arm64/include/uapi/asm/ucontext.h): the Go runtime's ucontext,
// TestARM64Layout. uc_mcontext follows __unused, which pads the mask to 1024 bits, 16-aligned.
const (
	arm64UcFlags    = 0                             // uc_flags
	arm64UcLink     = 8                             // uc_link
	arm64UcStack    = 16                            // uc_stack
	arm64UcSigmask  = 40                            // uc_sigmask
	arm64UcMcontext = 176                           // uc_mcontext
	arm64UcSize     = arm64UcMcontext + arm64ScSize // 4560
)

// struct sigcontext (arch/arm64/include/uapi/asm/sigcontext.h): the Go runtime's sigcontext,
// TestARM64Layout.
const (
	arm64ScFault      = 0                                   // fault_address
	arm64ScRegs       = 8                                   // regs[31]: x0-x30
	arm64ScSP         = 256                                 // sp
	arm64ScPC         = 264                                 // pc
	arm64ScPstate     = 272                                 // pstate
	arm64ScReserved   = 288                                 // __reserved, 16-aligned
	arm64ReservedSize = 4096                                // sizeof __reserved
	arm64ScSize       = arm64ScReserved + arm64ReservedSize // 4384
)

// The records in __reserved (arch/arm64/include/uapi/asm/sigcontext.h): each starts with a struct
// _aarch64_ctx {magic, size}, and a null one ends the list. The Go runtime declares none of them,
// so these are pinned by TestARM64RecordPins.
const (
	arm64CtxMagic = 0 // _aarch64_ctx.magic
	arm64CtxSize  = 4 // _aarch64_ctx.size

	arm64FpsimdMagic = 0x46508001 // FPSIMD_MAGIC
	arm64FpsimdFPSR  = 8          // fpsimd_context.fpsr
	arm64FpsimdFPCR  = 12         // fpsimd_context.fpcr
	arm64FpsimdVregs = 16         // fpsimd_context.vregs[32], __uint128_t each
	arm64FpsimdSize  = 528        // sizeof(struct fpsimd_context)

	arm64EsrMagic = 0x45535201 // ESR_MAGIC
	arm64EsrESR   = 8          // esr_context.esr
	arm64EsrSize  = 16         // sizeof(struct esr_context)
)

// arm64PstateNZCV are the PSTATE bits rt_sigreturn takes from the frame: the condition flags N,
// Z, C and V (SPSR_EL1 bits 31-28, Arm ARM C5.2.18). Mode and masks stay as the kernel has them:
// threads run at EL1 here, and a frame must not move them to EL1h or mask interrupts.
const arm64PstateNZCV = 0xf0000000

// ARM64Context is what an arm64 signal frame saves of the interrupted thread besides q0-q31:
// struct sigcontext's registers, and the FP control and status and the syndrome from the records.
type ARM64Context struct {
	X            [31]uint64 // x0-x30
	SP, PC       uint64
	Pstate       uint64
	FaultAddress uint64 // FAR_EL1
	ESR          uint64 // ESR_EL1
	FPSR, FPCR   uint64 // 32 bits in the frame
}

// ARM64Frame is where one arm64 signal frame lies: the rt_sigframe at Base, the frame record
// right above it.
type ARM64Frame struct {
	Base uintptr
}

// PlaceARM64 lays a frame out below top (AltStack.FrameTop, with ARM64BelowSP below the stack
// pointer), 16-byte aligned as SP must be.
func PlaceARM64(top uintptr) ARM64Frame { return ARM64Frame{Base: (top - arm64Size) &^ 15} }

// Size is the number of bytes the frame takes from Base.
func (l ARM64Frame) Size() uintptr { return arm64Size }

// PutARM64 builds the frame l in b, its l.Size() bytes at l.Base: the context c with q0-q31 from
// v (low, high words), and what s says. The frame record links the interrupted x29 with the
// interrupted pc (where Linux stores x30), so a walk from the handler names the interrupted
// function, leaf or not.
func PutARM64(b []byte, l ARM64Frame, c *ARM64Context, v *[64]uint64, s Saved) {
	b = b[:arm64Size]
	for i := range b {
		b[i] = 0
	}
	le := binary.LittleEndian
	putInfo(b[arm64Info:arm64Info+InfoSize], s.Info)

	uc := b[arm64Uc : arm64Uc+arm64UcSize]
	PutStack(uc[arm64UcStack:], s.Stack)
	le.PutUint64(uc[arm64UcSigmask:], uint64(s.Mask))

	mc := uc[arm64UcMcontext : arm64UcMcontext+arm64ScSize]
	le.PutUint64(mc[arm64ScFault:], c.FaultAddress)
	for i, x := range c.X {
		le.PutUint64(mc[arm64ScRegs+8*i:], x)
	}
	le.PutUint64(mc[arm64ScSP:], c.SP)
	le.PutUint64(mc[arm64ScPC:], c.PC)
	le.PutUint64(mc[arm64ScPstate:], c.Pstate)

	res := mc[arm64ScReserved : arm64ScReserved+arm64ReservedSize]
	fp := res[:arm64FpsimdSize]
	le.PutUint32(fp[arm64CtxMagic:], arm64FpsimdMagic)
	le.PutUint32(fp[arm64CtxSize:], arm64FpsimdSize)
	le.PutUint32(fp[arm64FpsimdFPSR:], uint32(c.FPSR))
	le.PutUint32(fp[arm64FpsimdFPCR:], uint32(c.FPCR))
	for i, w := range v {
		le.PutUint64(fp[arm64FpsimdVregs+8*i:], w)
	}
	esr := res[arm64FpsimdSize : arm64FpsimdSize+arm64EsrSize]
	le.PutUint32(esr[arm64CtxMagic:], arm64EsrMagic)
	le.PutUint32(esr[arm64CtxSize:], arm64EsrSize)
	le.PutUint64(esr[arm64EsrESR:], c.ESR)
	// The null record after it, which ends the list, is already zero.

	rec := b[arm64Record : arm64Record+arm64RecordSize]
	le.PutUint64(rec[0:], c.X[29])
	le.PutUint64(rec[8:], c.PC)
}

// Call is how the handler of sig at handler starts on the frame: AAPCS64 arguments (sig, &info,
// &uc), sp at Base, x29 at the frame record, and x30 at ret, where the handler returns (the
// restorer, or the kernel's rt_sigreturn trampoline: ARM64Return).
func (l ARM64Frame) Call(sig int, handler, ret uint64) Call {
	return Call{
		PC:   handler,
		SP:   uint64(l.Base),
		Sig:  uint64(sig),
		Info: uint64(l.Base + arm64Info),
		Uc:   uint64(l.Base + arm64Uc),
		FP:   uint64(l.Base + arm64Record),
		LR:   ret,
	}
}

// ARM64Return is where the handler under a returns to: a's restorer with SA_RESTORER (and one
// given), else trampoline. The Go runtime leaves sa_restorer unset on arm64, where Linux would
// use its vDSO's sigreturn.
func ARM64Return(a Action, trampoline uint64) uint64 {
	if a.Flags&SA_RESTORER != 0 && a.Restorer != 0 {
		return a.Restorer
	}
	return trampoline
}

// ARM64FrameAt returns where rt_sigreturn finds the frame of a thread at sp: the trampoline
// runs with sp back at Base.
func ARM64FrameAt(sp uintptr) uintptr { return sp }

// ReadARM64 reads what rt_sigreturn restores from the first ARM64FrameSize bytes of a frame, as
// the handler left them: the registers into c and the mask to restore. When the first record is
// an fpsimd_context it also reads FPSR and FPCR into c and q0-q31 into v, and fp is true;
// otherwise it leaves those alone. The bytes are the program's and may hold anything.
func ReadARM64(b []byte, c *ARM64Context, v *[64]uint64) (mask Set, fp bool) {
	le := binary.LittleEndian
	uc := b[arm64Uc : arm64Uc+arm64UcSize]
	mc := uc[arm64UcMcontext : arm64UcMcontext+arm64ScSize]
	for i := range c.X {
		c.X[i] = le.Uint64(mc[arm64ScRegs+8*i:])
	}
	c.SP = le.Uint64(mc[arm64ScSP:])
	c.PC = le.Uint64(mc[arm64ScPC:])
	c.Pstate = le.Uint64(mc[arm64ScPstate:])
	c.FaultAddress = le.Uint64(mc[arm64ScFault:])
	res := mc[arm64ScReserved : arm64ScReserved+arm64ReservedSize]
	if le.Uint32(res[arm64FpsimdSize+arm64CtxMagic:]) == arm64EsrMagic {
		c.ESR = le.Uint64(res[arm64FpsimdSize+arm64EsrESR:])
	}
	if le.Uint32(res[arm64CtxMagic:]) == arm64FpsimdMagic && le.Uint32(res[arm64CtxSize:]) == arm64FpsimdSize {
		c.FPSR = uint64(le.Uint32(res[arm64FpsimdFPSR:]))
		c.FPCR = uint64(le.Uint32(res[arm64FpsimdFPCR:]))
		for i := range v {
			v[i] = le.Uint64(res[arm64FpsimdVregs+8*i:])
		}
		fp = true
	}
	return Set(le.Uint64(uc[arm64UcSigmask:])), fp
}

// ARM64RestoredPstate is SPSR after rt_sigreturn, from the kernel's spsr and the frame's saved
// pstate: the condition flags come from saved, the rest stays.
func ARM64RestoredPstate(spsr, saved uint64) uint64 {
	return spsr&^arm64PstateNZCV | saved&arm64PstateNZCV
}
