package core

import (
	"github.com/unitrace/unitrace/kernel/machine"
	"github.com/unitrace/unitrace/kernel/signal"
	"github.com/unitrace/unitrace/unwind"
)

// The arm64 signal frame's glue: package signal lays it out and encodes it; this maps the trap
// Frame to its context and back. The handler returns to the restorer when the program gave one,
// else to the kernel's own trampoline (sigreturn_arm64.s), which asks for rt_sigreturn.

// pushSignalFrame builds the frame for sig on the thread's stack (or its alternate signal stack)
// and points f at the handler. It fails when the stack cannot take the frame.
func pushSignalFrame(f *machine.Frame, t *Thread, sig int, info signal.Info, a signal.Action) bool {
	sp := machine.FrameSP(f)
	l := signal.PlaceARM64(t.Sig.Alt.FrameTop(sp, signal.ARM64BelowSP, a.Flags))
	b, ok := UserBytes(l.Base, l.Size(), true)
	if !ok {
		return false
	}
	if f.FPUnsaved != 0 {
		clear(f.Q[:]) // a system call's entry saved no vector register: the frame shows zeros
	}
	c := signal.ARM64Context{
		X:  f.X,
		SP: f.SavedSP, PC: f.ELR, Pstate: f.SPSR,
		FaultAddress: f.FAR, ESR: f.ESR,
		FPSR: f.FPSR, FPCR: f.FPCR,
	}
	signal.PutARM64(b, l, &c, &f.Q, frameSaved(t, sp, info, a))

	call := l.Call(sig, a.Handler, signal.ARM64Return(a, uint64(sigreturnTrampoline())))
	unwind.NoteRestorer(uintptr(call.LR)) // so that walks from the handler cross its frame
	f.ELR, f.SavedSP = call.PC, call.SP
	f.X[0], f.X[1], f.X[2] = call.Sig, call.Info, call.Uc
	f.X[29], f.X[30] = call.FP, call.LR
	f.Jump = 0 // the handler starts with every register as the kernel set it, x18 included
	return true
}

// SysSigreturn restores the context saved by pushSignalFrame, as the handler left it.
func SysSigreturn(f *machine.Frame) (uint64, bool) {
	b, ok := UserBytes(signal.ARM64FrameAt(machine.FrameSP(f)), signal.ARM64FrameSize, false)
	if !ok {
		sigreturnFault(f)
		return 0, false
	}
	var c signal.ARM64Context
	mask, fp := signal.ReadARM64(b, &c, &f.Q)
	f.X = c.X
	f.SavedSP, f.ELR = c.SP, c.PC
	f.SPSR = signal.ARM64RestoredPstate(f.SPSR, c.Pstate)
	f.Jump = 0 // the restored context may be anywhere, x18 live: back by ERET
	if fp {
		f.FPSR, f.FPCR = c.FPSR, c.FPCR
		f.FPUnsaved = 0 // the return loads what the frame held
	}
	Cur().Sig.SetMask(mask)
	return 0, false // x0 is the restored context's, not a result
}
