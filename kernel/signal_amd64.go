package kernel

import (
	"encoding/binary"

	"github.com/unitrace/unitrace/arch/amd64"
)

// The Linux x86-64 signal frame (arch/x86/include/asm/sigframe.h, uapi/asm/sigcontext.h,
// uapi/asm-generic/ucontext.h), as the Go runtime reads it (runtime/defs_linux_amd64.go):
//
//	sp+0    pretcode: sa_restorer, the handler's return address
//	sp+8    struct ucontext: uc_flags, uc_link, uc_stack{sp, flags, size},
//	        uc_mcontext (struct sigcontext, 256 bytes), uc_sigmask
//	sp+312  struct siginfo (128 bytes)
//	        ... the FXSAVE image (512 bytes, 64-byte aligned), pointed to by sigcontext.fpstate
const (
	sfUcontext = 8
	ucStack    = 16
	ucMcontext = 40
	ucSigmask  = 296
	ucSize     = 304
	sfInfo     = sfUcontext + ucSize
	sfSize     = sfInfo + 128
	fxSize     = 512
	redZone    = 128
	scR8       = 0 // sigcontext: r8..r15, rdi, rsi, rbp, rbx, rdx, rax, rcx, rsp, rip, eflags
	scCSGSFS   = 144
	scErr      = 152
	scTrapno   = 160
	scOldmask  = 168
	scCR2      = 176
	scFpstate  = 184
	userFlags  = 0x254dd5 // RFLAGS bits rt_sigreturn may restore (Linux FIX_EFLAGS): CF PF AF ZF SF TF DF OF AC RF ID NT
)

// pushSignalFrame builds the frame for sig on the thread's stack (or its alternate signal stack)
// and points f at the handler.
func pushSignalFrame(f *Frame, t *thread, sig int, info sigInfo, a sigaction) bool {
	sp := uintptr(f.RSP) - redZone
	onAlt := t.altSize != 0 && uint64(f.SP()-t.altStack) < uint64(t.altSize)
	if a.flags&saOnstack != 0 && t.altSize != 0 && !onAlt {
		sp = t.altStack + t.altSize
	}
	fp := (sp - fxSize) &^ 63
	frame := ((fp - sfSize) &^ 15) - 8
	b, ok := userBytes(frame, fp+fxSize-frame, true)
	if !ok {
		return false
	}
	for i := range b {
		b[i] = 0
	}
	copy(b[fp-frame:], f.FX[:])

	binary.LittleEndian.PutUint64(b[0:], a.restorer)
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
	mc := uc[ucMcontext:]
	regs := [18]uint64{f.R8, f.R9, f.R10, f.R11, f.R12, f.R13, f.R14, f.R15, f.RDI, f.RSI, f.RBP, f.RBX, f.RDX, f.RAX, f.RCX, f.RSP, f.RIP, f.RFLAGS}
	for i, r := range regs {
		binary.LittleEndian.PutUint64(mc[scR8+8*i:], r)
	}
	binary.LittleEndian.PutUint64(mc[scCSGSFS:], f.CS|f.SS<<48)
	binary.LittleEndian.PutUint64(mc[scErr:], f.ErrorCode)
	binary.LittleEndian.PutUint64(mc[scTrapno:], f.Vector)
	binary.LittleEndian.PutUint64(mc[scOldmask:], t.sigMask)
	binary.LittleEndian.PutUint64(mc[scCR2:], f.CR2)
	binary.LittleEndian.PutUint64(mc[scFpstate:], uint64(fp))
	binary.LittleEndian.PutUint64(uc[ucSigmask:], t.sigMask)

	si := b[sfInfo:]
	binary.LittleEndian.PutUint32(si[0:], uint32(info.signo))
	binary.LittleEndian.PutUint32(si[8:], uint32(info.code))
	if info.code == siTkill || info.code == siUser {
		binary.LittleEndian.PutUint32(si[16:], uint32(info.pid))
	} else {
		binary.LittleEndian.PutUint64(si[16:], info.addr)
	}

	f.RSP = uint64(frame)
	f.RIP = a.handler
	f.RDI = uint64(sig)
	f.RSI = uint64(frame + sfInfo)
	f.RDX = uint64(frame + sfUcontext)
	f.RAX = 0
	f.RFLAGS &^= amd64.FlagDF | amd64.FlagTF
	return true
}

// sysSigreturn restores the context saved by pushSignalFrame, as the handler left it. The
// restorer executes rt_sigreturn right after the handler's RET popped pretcode, so the frame
// starts 8 bytes below RSP.
func sysSigreturn(f *Frame) (uint64, bool) {
	frame := uintptr(f.RSP) - 8
	b, ok := userBytes(frame, sfSize, false)
	if !ok {
		killedBy(f, sigSEGV, sigInfo{signo: sigSEGV, code: siKernel})
		return 0, false
	}
	uc := b[sfUcontext:]
	mc := uc[ucMcontext:]
	var regs [18]uint64
	for i := range regs {
		regs[i] = binary.LittleEndian.Uint64(mc[scR8+8*i:])
	}
	fp := uintptr(binary.LittleEndian.Uint64(mc[scFpstate:]))
	if fp != 0 {
		fx, ok := userBytes(fp, fxSize, false)
		if !ok {
			killedBy(f, sigSEGV, sigInfo{signo: sigSEGV, code: siKernel})
			return 0, false
		}
		copy(f.FX[:], fx)
		// MXCSR reserved bits set would make FXRSTOR fault in the kernel: clear them.
		mxcsr := uint32(f.FX[24]) | uint32(f.FX[25])<<8 | uint32(f.FX[26])<<16 | uint32(f.FX[27])<<24
		mxcsr &= 0xffff
		binary.LittleEndian.PutUint32(f.FX[24:28], mxcsr)
	}
	f.R8, f.R9, f.R10, f.R11, f.R12, f.R13, f.R14, f.R15 = regs[0], regs[1], regs[2], regs[3], regs[4], regs[5], regs[6], regs[7]
	f.RDI, f.RSI, f.RBP, f.RBX, f.RDX, f.RAX, f.RCX, f.RSP = regs[8], regs[9], regs[10], regs[11], regs[12], regs[13], regs[14], regs[15]
	f.RIP = regs[16]
	f.RFLAGS = f.RFLAGS&^userFlags | regs[17]&userFlags | amd64.FlagIF
	t := cur()
	t.sigMask = binary.LittleEndian.Uint64(uc[ucSigmask:]) &^ unblockable
	return 0, false // RAX is the restored context's, not a result
}
