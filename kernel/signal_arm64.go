package kernel

import "encoding/binary"

// The Linux arm64 signal frame (arch/arm64/kernel/signal.c, uapi/asm/sigcontext.h,
// uapi/asm-generic/ucontext.h), as the Go runtime reads it (runtime/defs_linux_arm64.go):
//
//	sp+0     struct siginfo (128 bytes)
//	sp+128   struct ucontext: uc_flags, uc_link, uc_stack{sp, flags, size}, uc_sigmask, padding
//	         to 1024 bits of mask, then (16-aligned, at +176) struct sigcontext:
//	         fault_address, regs[31], sp, pc, pstate, __reserved[4096] holding an
//	         fpsimd_context (fpsr, fpcr, v0-v31) and an esr_context, ended by a null header
//	sp+4688  a frame record {x29, x30} that x29 points at, so frame-pointer walks link through
//
// The handler runs with x0 = signal, x1 = &info, x2 = &uc, x29 = &record, x30 = the return
// trampoline: the Go runtime leaves sa_restorer unset on arm64 (Linux would use its vDSO's
// sigreturn), so the kernel provides its own (sigreturnTrampoline: rt_sigreturn).
const (
	sfInfo      = 0
	sfUcontext  = 128
	ucStack     = 16
	ucSigmask   = 40
	ucMcontext  = 176
	scFault     = 0
	scRegs      = 8
	scSP        = 256
	scPC        = 264
	scPstate    = 272
	scReserved  = 288
	fpsimdMagic = 0x46508001
	fpsimdSize  = 528
	esrMagic    = 0x45535201
	esrSize     = 16
	sfSize      = sfUcontext + ucMcontext + scReserved + 4096 // 4688
	sfRecord    = sfSize                                      // {x29, x30}
	sfTotal     = sfRecord + 16
	pstateNZCV  = 0xf0000000 // the flags a handler may change; mode and masks stay the kernel's
)

// pushSignalFrame builds the frame for sig on the thread's stack (or its alternate signal stack)
// and points f at the handler.
func pushSignalFrame(f *Frame, t *thread, sig int, info sigInfo, a sigaction) bool {
	// Go's arm64 functions keep the caller's frame pointer at sp-8 for their whole body, so
	// the frame starts below that word (research §4.2: live data below SP).
	sp := uintptr(f.SavedSP) - 16
	onAlt := t.altSize != 0 && uint64(uintptr(f.SavedSP)-t.altStack) < uint64(t.altSize)
	if a.flags&saOnstack != 0 && t.altSize != 0 && !onAlt {
		sp = t.altStack + t.altSize
	}
	frame := (sp - sfTotal) &^ 15
	b, ok := userBytes(frame, sfTotal, true)
	if !ok {
		return false
	}
	for i := range b {
		b[i] = 0
	}
	si := b[sfInfo:]
	binary.LittleEndian.PutUint32(si[0:], uint32(info.signo))
	binary.LittleEndian.PutUint32(si[8:], uint32(info.code))
	if info.code == siTkill || info.code == siUser {
		binary.LittleEndian.PutUint32(si[16:], uint32(info.pid))
	} else {
		binary.LittleEndian.PutUint64(si[16:], info.addr)
	}

	uc := b[sfUcontext:]
	altFlags := uint64(ssDisable)
	if t.altSize != 0 {
		altFlags = 0
		if onAlt || a.flags&saOnstack != 0 {
			altFlags = ssOnstack
		}
	}
	binary.LittleEndian.PutUint64(uc[ucStack:], uint64(t.altStack))
	binary.LittleEndian.PutUint64(uc[ucStack+8:], altFlags)
	binary.LittleEndian.PutUint64(uc[ucStack+16:], uint64(t.altSize))
	binary.LittleEndian.PutUint64(uc[ucSigmask:], t.sigMask)
	mc := uc[ucMcontext:]
	binary.LittleEndian.PutUint64(mc[scFault:], f.FAR)
	for i := 0; i < 31; i++ {
		binary.LittleEndian.PutUint64(mc[scRegs+8*i:], f.X[i])
	}
	binary.LittleEndian.PutUint64(mc[scSP:], f.SavedSP)
	binary.LittleEndian.PutUint64(mc[scPC:], f.ELR)
	binary.LittleEndian.PutUint64(mc[scPstate:], f.SPSR)
	res := mc[scReserved:]
	binary.LittleEndian.PutUint32(res[0:], fpsimdMagic)
	binary.LittleEndian.PutUint32(res[4:], fpsimdSize)
	binary.LittleEndian.PutUint32(res[8:], uint32(f.FPSR))
	binary.LittleEndian.PutUint32(res[12:], uint32(f.FPCR))
	for i := 0; i < 64; i++ {
		binary.LittleEndian.PutUint64(res[16+8*i:], f.Q[i])
	}
	esr := res[fpsimdSize:]
	binary.LittleEndian.PutUint32(esr[0:], esrMagic)
	binary.LittleEndian.PutUint32(esr[4:], esrSize)
	binary.LittleEndian.PutUint64(esr[8:], f.ESR)
	// The null header after it ends the list (already zero).

	rec := b[sfRecord:]
	binary.LittleEndian.PutUint64(rec[0:], f.X[29])
	binary.LittleEndian.PutUint64(rec[8:], f.ELR)

	f.SavedSP = uint64(frame)
	f.ELR = a.handler
	f.X[0] = uint64(sig)
	f.X[1] = uint64(frame + sfInfo)
	f.X[2] = uint64(frame + sfUcontext)
	f.X[29] = uint64(frame + sfRecord)
	f.X[30] = uint64(sigreturnTrampoline())
	if a.flags&saRestorer != 0 && a.restorer != 0 {
		f.X[30] = a.restorer
	}
	return true
}

// sysSigreturn restores the context saved by pushSignalFrame, as the handler left it. The
// trampoline runs with sp back at the frame.
func sysSigreturn(f *Frame) (uint64, bool) {
	frame := uintptr(f.SavedSP)
	b, ok := userBytes(frame, sfTotal, false)
	if !ok {
		killedBy(f, sigSEGV, sigInfo{signo: sigSEGV, code: siKernel})
		return 0, false
	}
	uc := b[sfUcontext:]
	mc := uc[ucMcontext:]
	for i := 0; i < 31; i++ {
		f.X[i] = binary.LittleEndian.Uint64(mc[scRegs+8*i:])
	}
	f.SavedSP = binary.LittleEndian.Uint64(mc[scSP:])
	f.ELR = binary.LittleEndian.Uint64(mc[scPC:])
	f.SPSR = f.SPSR&^pstateNZCV | binary.LittleEndian.Uint64(mc[scPstate:])&pstateNZCV
	res := mc[scReserved:]
	if binary.LittleEndian.Uint32(res[0:]) == fpsimdMagic && binary.LittleEndian.Uint32(res[4:]) == fpsimdSize {
		f.FPSR = uint64(binary.LittleEndian.Uint32(res[8:]))
		f.FPCR = uint64(binary.LittleEndian.Uint32(res[12:]))
		for i := 0; i < 64; i++ {
			f.Q[i] = binary.LittleEndian.Uint64(res[16+8*i:])
		}
	}
	t := cur()
	t.sigMask = binary.LittleEndian.Uint64(uc[ucSigmask:]) &^ unblockable
	return 0, false // x0 is the restored context's, not a result
}
