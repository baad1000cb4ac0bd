package signal

// Saved is what a signal frame keeps beside the registers, on every arch.
type Saved struct {
	Info  Info
	Mask  Set   // the interrupted code's mask, which rt_sigreturn restores
	Stack Stack // uc_stack: the alternate stack as the handler sees it (AltStack.Saved)
}

// Call is the state a handler starts in, which the arch's glue loads into the trap frame.
type Call struct {
	PC, SP        uint64 // the handler, and the frame's base
	Sig, Info, Uc uint64 // the handler's arguments: the signal, &siginfo, &ucontext
	FP, LR        uint64 // arm64 only: x29 (the frame record) and x30 (where the handler returns)
}

// Where a signal frame keeps the interrupted registers that a frame-pointer walk goes on with
// once it meets a handler's return to its restorer (package unwind): byte offsets from the
// frame's Base. On amd64 the restorer is the frame's first word, pretcode, so the walk meets
// it in the slot at Base; on arm64 the frame record above the rt_sigframe (ARM64FrameRecord)
// is what x29 pointed at when the handler began.
const (
	AMD64FrameRBP = amd64Uc + amd64UcMcontext + amd64ScRBP
	AMD64FrameRSP = amd64Uc + amd64UcMcontext + amd64ScRSP
	AMD64FrameRIP = amd64Uc + amd64UcMcontext + amd64ScRIP

	ARM64FrameX29    = arm64Uc + arm64UcMcontext + arm64ScRegs + 29*8
	ARM64FrameX30    = arm64Uc + arm64UcMcontext + arm64ScRegs + 30*8
	ARM64FrameSP     = arm64Uc + arm64UcMcontext + arm64ScSP
	ARM64FramePC     = arm64Uc + arm64UcMcontext + arm64ScPC
	ARM64FrameRecord = arm64Record
)
