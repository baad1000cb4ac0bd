package core

import (
	"github.com/unitrace/unitrace/arch/amd64"
	"github.com/unitrace/unitrace/kernel/machine"
	"github.com/unitrace/unitrace/kernel/signal"
	"github.com/unitrace/unitrace/unwind"
)

// The x86-64 signal frame's glue: package signal lays it out and encodes it; this maps the trap
// Frame to its context and back.

// pushSignalFrame builds the frame for sig on the thread's stack (or its alternate signal stack)
// and points f at the handler. It fails when the stack cannot take the frame.
func pushSignalFrame(f *machine.Frame, t *Thread, sig int, info signal.Info, a signal.Action) bool {
	sp := machine.FrameSP(f)
	top := t.Sig.Alt.FrameTop(sp, signal.AMD64RedZone, a.Flags)
	l := signal.PlaceAMD64(top)
	if amd64.AVXOn() {
		l = signal.PlaceAMD64XState(top) // the YMM registers' upper halves too, as Linux's XSAVE area
	}
	b, ok := UserBytes(l.Base, l.Size(), true)
	if !ok {
		return false
	}
	c := signal.AMD64Context{
		R8: f.R8, R9: f.R9, R10: f.R10, R11: f.R11, R12: f.R12, R13: f.R13, R14: f.R14, R15: f.R15,
		RDI: f.RDI, RSI: f.RSI, RBP: f.RBP, RBX: f.RBX, RDX: f.RDX, RAX: f.RAX, RCX: f.RCX,
		RSP: f.RSP, RIP: f.RIP, RFLAGS: f.RFLAGS,
		CS: uint16(f.CS), SS: uint16(f.SS),
		Err: f.ErrorCode, Trapno: f.Vector, CR2: f.CR2,
	}
	machine.SaveFPU(f) // the x87 half of the image is the CPU's until now
	signal.PutAMD64(b, l, &c, &f.FX, frameSaved(t, sp, info, a), a.Restorer)
	if amd64.AVXOn() {
		signal.PutAMD64XState(b, l, &f.YMMHi)
	}

	call := l.Call(sig, a.Handler)
	unwind.NoteRestorer(uintptr(a.Restorer)) // so that walks from the handler cross its frame
	f.RIP, f.RSP = call.PC, call.SP
	f.RDI, f.RSI, f.RDX = call.Sig, call.Info, call.Uc
	f.RAX = 0 // no vector registers carry arguments (the varargs convention)
	f.RFLAGS = signal.AMD64HandlerFlags(f.RFLAGS)
	return true
}

// SysSigreturn restores the context saved by pushSignalFrame, as the handler left it.
func SysSigreturn(f *machine.Frame) (uint64, bool) {
	b, ok := UserBytes(signal.AMD64FrameAt(machine.FrameSP(f)), signal.AMD64FrameSize, false)
	if !ok {
		sigreturnFault(f)
		return 0, false
	}
	var c signal.AMD64Context
	mask, fp := signal.ReadAMD64(b, &c)
	// rt_sigreturn is a system call, whose entry left the SSE registers out of f: fill them in
	// (as zero, for a frame without FP state) so that the trap's return loads all of them.
	machine.SaveFPU(f)
	if fp != 0 {
		fx, ok := UserBytes(fp, signal.AMD64FPSize, false)
		if !ok {
			sigreturnFault(f)
			return 0, false
		}
		signal.RestoreFX(&f.FX, fx)
		machine.LoadFPU(f) // its x87 half: the trap's return loads only the SSE registers and MXCSR
		if amd64.AVXOn() {
			x, ok := UserBytes(fp, signal.AMD64XStateSize(fx), false)
			if !ok {
				sigreturnFault(f)
				return 0, false
			}
			signal.RestoreYMMHi(&f.YMMHi, x) // machine.SaveFPU zeroed them; a frame without them leaves them so
		}
	}
	f.R8, f.R9, f.R10, f.R11, f.R12, f.R13, f.R14, f.R15 = c.R8, c.R9, c.R10, c.R11, c.R12, c.R13, c.R14, c.R15
	f.RDI, f.RSI, f.RBP, f.RBX, f.RDX, f.RAX, f.RCX = c.RDI, c.RSI, c.RBP, c.RBX, c.RDX, c.RAX, c.RCX
	f.RSP, f.RIP = c.RSP, c.RIP
	f.RFLAGS = signal.AMD64RestoredFlags(f.RFLAGS, c.RFLAGS)
	Cur().Sig.SetMask(mask)
	return 0, false // RAX is the restored context's, not a result
}
